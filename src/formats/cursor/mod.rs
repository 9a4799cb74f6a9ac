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
mod tests;

use super::toolkit::track::tracked_by;
use super::LogFormat;
use track::Tracker;

/// The Cursor format.
#[derive(Debug, Clone, Copy)]
pub struct Cursor;

impl LogFormat for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        line::is_role_line(line)
    }

    tracked_by!(Tracker);
}
