//! Failures as JSON-RPC errors: session-reference failures are
//! RequestFailed (−32803) with their `SESSION_REFERENCE_*` code in `data`.

use lsp_server::{ErrorCode, ResponseError};
use serde_json::json;

use crate::reference::{ErrorCode as ReferenceCode, ReferenceError};

/// What a request handler answers.
pub type Result<T> = std::result::Result<T, ResponseError>;

/// LSP 3.17 `RequestFailed`.
pub const REQUEST_FAILED: i32 = ErrorCode::RequestFailed as i32;

fn error(code: ErrorCode, message: impl Into<String>) -> ResponseError {
    ResponseError {
        code: code as i32,
        message: message.into(),
        data: None,
    }
}

pub fn request_failed(error: &ReferenceError) -> ResponseError {
    if error.code == ReferenceCode::Cancelled {
        // The client asked for it; the main loop answers a cancelled
        // request itself, this covers work that noticed the flag first.
        return cancelled();
    }
    let mut data = json!({ "code": error.code.as_str() });
    if let Some(canonical) = &error.canonical {
        data["canonical"] = json!(canonical);
    }
    ResponseError {
        code: REQUEST_FAILED,
        message: error.message.clone(),
        data: Some(data),
    }
}

pub fn cancelled() -> ResponseError {
    error(ErrorCode::RequestCanceled, "Request cancelled")
}

pub fn invalid_params(message: impl Into<String>) -> ResponseError {
    error(ErrorCode::InvalidParams, message)
}

/// Whether `e` is −32602 (the request's own fault: a malformed query).
pub fn is_invalid_params(e: &ResponseError) -> bool {
    e.code == ErrorCode::InvalidParams as i32
}

pub fn invalid_request(message: impl Into<String>) -> ResponseError {
    error(ErrorCode::InvalidRequest, message)
}

pub fn method_not_found(method: &str) -> ResponseError {
    error(
        ErrorCode::MethodNotFound,
        format!("Method not found: {method}"),
    )
}

pub fn not_initialized() -> ResponseError {
    error(
        ErrorCode::ServerNotInitialized,
        "Server not initialized: send initialize first",
    )
}

/// Work that did not finish (it panicked or was aborted).
pub fn internal(what: &str) -> ResponseError {
    error(
        ErrorCode::InternalError,
        format!("{what} stopped unexpectedly"),
    )
}
