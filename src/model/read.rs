//! The outcome of reading one session's log.

use std::fmt;

use super::session::SessionHeader;

/// What one full read of a session found besides its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadSummary {
    pub header: SessionHeader,
    /// The log's `capturedThroughSeq`; `None` when it has no events.
    pub captured_through_seq: Option<u64>,
    /// The latest non-empty title.
    pub title: Option<String>,
    /// The model capacity recorded by the log, if any.
    pub capacity: Option<u64>,
    /// Lines a lenient format could not understand and skipped.
    pub skipped_lines: u64,
    /// The bytes of the log this read covered (up to its last complete
    /// line): a read limited to them reads the same lines again.
    pub bytes: u64,
}

/// A log that could not be read: names the file (relative to its store)
/// and, for a bad line, its number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogError {
    pub file: String,
    pub line: Option<u64>,
    pub reason: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

impl std::error::Error for LogError {}

/// A failed read: a bad log, or the caller gave up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    Log(LogError),
    Cancelled,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Log(e) => e.fmt(f),
            ReadError::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl From<LogError> for ReadError {
    fn from(e: LogError) -> Self {
        ReadError::Log(e)
    }
}
