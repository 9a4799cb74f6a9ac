//! Failures as JSON-RPC errors: session-reference failures are
//! RequestFailed (−32803) with their `SESSION_REFERENCE_*` code in `data`.

use serde_json::json;
use tower_lsp::jsonrpc::{Error, ErrorCode};

use crate::reference::{ErrorCode as ReferenceCode, ReferenceError};

/// LSP 3.17 `RequestFailed`.
pub const REQUEST_FAILED: i64 = -32803;

pub fn request_failed(error: &ReferenceError) -> Error {
    if error.code == ReferenceCode::Cancelled {
        // The client asked for it; tower-lsp answers a cancelled request
        // itself, this covers work that noticed the flag first.
        return Error::request_cancelled();
    }
    let mut data = json!({ "code": error.code.as_str() });
    if let Some(canonical) = &error.canonical {
        data["canonical"] = json!(canonical);
    }
    Error {
        code: ErrorCode::ServerError(REQUEST_FAILED),
        message: error.message.clone().into(),
        data: Some(data),
    }
}

pub fn invalid_params(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into().into(),
        data: None,
    }
}

/// A blocking task that did not finish (it panicked or was aborted).
pub fn internal(what: &str) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: format!("{what} stopped unexpectedly").into(),
        data: None,
    }
}
