//! Typed session-reference failures with the stable `SESSION_REFERENCE_*` codes.

use std::fmt;

/// The stable failure codes of reference.md §8 (plus the server's
/// informational `TRUNCATED` diagnostic code, which is never an error), and
/// `FETCHING`: not a failure, the answer of a source that does not wait
/// for the network while a team store's snapshot is fetched (issue 26),
/// shown as an informational diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidConfig,
    InvalidReference,
    SelfReference,
    TooMany,
    ReadFailed,
    BudgetExceeded,
    Cancelled,
    Fetching,
}

impl ErrorCode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidConfig => "SESSION_REFERENCE_INVALID_CONFIG",
            ErrorCode::InvalidReference => "SESSION_REFERENCE_INVALID_REFERENCE",
            ErrorCode::SelfReference => "SESSION_REFERENCE_SELF_REFERENCE",
            ErrorCode::TooMany => "SESSION_REFERENCE_TOO_MANY",
            ErrorCode::ReadFailed => "SESSION_REFERENCE_READ_FAILED",
            ErrorCode::BudgetExceeded => "SESSION_REFERENCE_BUDGET_EXCEEDED",
            ErrorCode::Cancelled => "SESSION_REFERENCE_CANCELLED",
            ErrorCode::Fetching => "SESSION_REFERENCE_FETCHING",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A session-reference failure: a code, a human message, and for a
/// noncanonical URI the canonical form the editor and CLI offer as the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceError {
    pub code: ErrorCode,
    pub message: String,
    pub canonical: Option<String>,
}

impl ReferenceError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            canonical: None,
        }
    }

    pub fn invalid_config(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidConfig, message)
    }

    pub fn read_failed(cause: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::ReadFailed,
            format!("failed to read referenced session: {cause}"),
        )
    }

    pub fn budget_exceeded() -> Self {
        Self::new(
            ErrorCode::BudgetExceeded,
            "referenced session snapshot cannot fit the configured byte budget",
        )
    }

    /// Session `id`'s bytes are being fetched from `from` (a team store's
    /// URL) in the background.
    pub fn fetching(id: &str, sha256: &str, from: &str) -> Self {
        let short = sha256.get(..12).unwrap_or(sha256);
        Self::new(
            ErrorCode::Fetching,
            format!(
                "fetching session {} (version sha256:{short}) from {from}",
                super::json::stringify(id)
            ),
        )
    }

    /// Session `id` (a published id) is not listed yet: the first listing
    /// of the team store(s) at `from` is on its way.
    pub fn listing(id: &str, from: &str) -> Self {
        Self::new(
            ErrorCode::Fetching,
            format!(
                "fetching session {}: waiting for the first listing of {from}",
                super::json::stringify(id)
            ),
        )
    }

    pub fn cancelled() -> Self {
        Self::new(
            ErrorCode::Cancelled,
            "session reference preparation was cancelled",
        )
    }
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ReferenceError {}

pub type Result<T, E = ReferenceError> = std::result::Result<T, E>;
