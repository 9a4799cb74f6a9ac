//! The Codex rollout format (agent-logs.md "Codex"): `session_meta` first,
//! then `response_item`, `event_msg`, `compacted` and `turn_context`
//! lines. Lenient: a line that cannot be understood is skipped and
//! counted; only invalid UTF-8 fails a read.

pub mod defaults;
pub mod line;
pub mod reader;
pub mod text;
pub mod track;

use super::toolkit::track::TrackScanner;
use super::{LogFormat, LogSource, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};
use track::Tracker;

/// The Codex rollout format.
#[derive(Debug, Clone, Copy)]
pub struct Codex;

impl LogFormat for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        line::is_session_meta(line)
    }

    fn scanner(&self) -> Box<dyn Scanner> {
        CodexScanner::boxed()
    }

    fn read(
        &self,
        log: &dyn LogSource,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        reader::read_log(log, cancelled, sink)
    }
}

/// The store's scanner of a rollout.
pub type CodexScanner = TrackScanner<Tracker>;

#[cfg(test)]
mod tests;
