//! The Codex rollout format (agent-logs.md "Codex"): `session_meta` first,
//! then `response_item`, `event_msg`, `compacted` and `turn_context`
//! lines. Lenient: a line that cannot be understood is skipped and
//! counted; only invalid UTF-8 fails a read.

pub mod line;
pub mod reader;
pub mod text;
pub mod track;

use super::{HeaderState, LogFormat, LogSource, ScanMeta, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};
use track::Tracker;

/// The Codex rollout format.
#[derive(Debug, Clone, Copy)]
pub struct Codex;

impl LogFormat for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn display_name(&self) -> &'static str {
        "Codex"
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        line::is_session_meta(line)
    }

    fn scanner(&self) -> Box<dyn Scanner> {
        Box::new(CodexScanner::default())
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

/// Header, title, capacity and skipped lines of a rollout, line by line.
#[derive(Debug, Clone, Default)]
pub struct CodexScanner {
    tracker: Tracker,
}

impl Scanner for CodexScanner {
    fn file_modified(&mut self, millis: u64) {
        self.tracker.file_modified = Some(millis);
    }

    fn line(&mut self, line: &[u8]) {
        self.tracker.line(line, &mut |_| {});
    }

    fn header(&self) -> HeaderState {
        // A rollout is a session once a user or assistant message is seen:
        // before that (a prompt a hook blocked) it is pending, listed as
        // skipped, and becomes a session when one is appended.
        match &self.tracker.header {
            Some(Ok(header)) if self.tracker.is_session() => HeaderState::Session(header.clone()),
            None | Some(Ok(_)) => HeaderState::Pending,
            Some(Err(why)) => HeaderState::NotASession(why.clone()),
        }
    }

    fn header_ref(&self) -> Option<&SessionHeader> {
        match &self.tracker.header {
            Some(Ok(header)) if self.tracker.is_session() => Some(header),
            _ => None,
        }
    }

    fn meta(&self) -> ScanMeta {
        let t = &self.tracker;
        let failure = t.failure.map(|n| format!("line {n}: invalid UTF-8"));
        let readable = failure.is_none();
        ScanMeta {
            title: t.titles.title().filter(|_| readable),
            capacity: t.capacity.filter(|_| readable),
            skipped_lines: t.skipped,
            failure,
        }
    }

    fn is_done(&self) -> bool {
        self.tracker.is_done()
    }

    fn clone_box(&self) -> Box<dyn Scanner> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests;
