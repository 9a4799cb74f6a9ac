//! The Cursor agent transcript format (agent-logs-more.md "Cursor"):
//! `projects/<slug>/agent-transcripts/<id>/<id>.jsonl`, Claude-style
//! content blocks in role lines without ids, times or cwd. The session's
//! facts come from the file's place and the prompts' wrappers; every rule
//! the contract leaves unverified is in [`unverified`]. Lenient: a line
//! that cannot be understood is skipped and counted; only invalid UTF-8
//! fails a read.

pub mod defaults;
pub mod line;
pub mod message;
pub mod place;
pub mod track;
pub mod unverified;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;

use super::toolkit::declare::log_format;
use track::Tracker;

log_format! {
    /// The Cursor format.
    Cursor = "cursor",
    recognizes: line::is_role_line,
    tracked_by: (Tracker)
}
