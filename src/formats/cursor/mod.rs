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

use super::toolkit::track::{read_tracked, TrackScanner};
use super::{LogFormat, LogSource, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};
use track::Tracker;

/// The Cursor format.
#[derive(Debug, Clone, Copy)]
pub struct Cursor;

impl LogFormat for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn display_name(&self) -> &'static str {
        "Cursor"
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        line::is_role_line(line)
    }

    fn scanner(&self) -> Box<dyn Scanner> {
        TrackScanner::<Tracker>::boxed()
    }

    fn read(
        &self,
        log: &dyn LogSource,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        read_tracked::<Tracker>(log, cancelled, sink)
    }
}
