//! The Cursor agent transcript format (agent-logs-more.md "Cursor"):
//! `projects/<slug>/agent-transcripts/<id>/<id>.jsonl`, Claude-style
//! content blocks in role lines without ids, times or cwd. The session's
//! facts come from the file's place and the prompts' wrappers; every rule
//! the contract leaves unverified is in [`unverified`]. Lenient: a line
//! that cannot be understood is skipped and counted; only invalid UTF-8
//! fails a read.

pub mod line;
pub mod message;
pub mod place;
pub mod reader;
pub mod track;
pub mod unverified;

#[cfg(test)]
mod tests;

use std::path::Path;

use super::{HeaderState, LogFormat, LogSource, ScanMeta, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};
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

    fn scanner(&self) -> Box<dyn Scanner> {
        Box::new(CursorScanner {
            tracker: Tracker::new(false),
        })
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

/// Header and title of one transcript, as its lines come.
#[derive(Debug, Clone)]
struct CursorScanner {
    tracker: Tracker,
}

impl Scanner for CursorScanner {
    fn file_modified(&mut self, millis: u64) {
        self.tracker.file_modified = Some(millis);
    }

    fn file_path(&mut self, path: &Path) {
        self.tracker.place(path);
    }

    fn line(&mut self, line: &[u8]) {
        self.tracker.line(line, &mut |_| {});
    }

    fn header(&self) -> HeaderState {
        if let Some(header) = self.tracker.header() {
            return HeaderState::Session(header.clone());
        }
        match self.tracker.why_not() {
            Some(why) => HeaderState::NotASession(why),
            None => HeaderState::Pending,
        }
    }

    fn header_ref(&self) -> Option<&SessionHeader> {
        self.tracker.header()
    }

    fn meta(&self) -> ScanMeta {
        let failure = self
            .tracker
            .why_not()
            .filter(|_| self.tracker.failure.is_some());
        let readable = failure.is_none();
        ScanMeta {
            title: self.tracker.title().filter(|_| readable),
            capacity: None,
            skipped_lines: self.tracker.skipped,
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
