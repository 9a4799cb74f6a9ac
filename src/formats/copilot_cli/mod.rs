//! The GitHub Copilot CLI session format (agent-logs-more.md "GitHub
//! Copilot CLI"): `session-state/<id>/events.jsonl`, one event a line,
//! with `workspace.yaml` beside it for the cwd and name. Lenient: a line
//! that cannot be understood is skipped and counted; only invalid UTF-8
//! fails a read.

pub mod event;
pub mod reader;
pub mod track;
pub mod workspace;

#[cfg(test)]
mod tests;

use std::path::Path;

use super::{HeaderState, LogFormat, LogSource, ScanMeta, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};
use track::Tracker;

/// The GitHub Copilot CLI format.
#[derive(Debug, Clone, Copy)]
pub struct CopilotCli;

impl LogFormat for CopilotCli {
    fn name(&self) -> &'static str {
        "copilot-cli"
    }

    fn side_files(&self) -> &'static [(&'static str, &'static str)] {
        &[(track::EVENTS, workspace::WORKSPACE)]
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        event::is_start_line(line)
    }

    fn scanner(&self) -> Box<dyn Scanner> {
        Box::new(CopilotScanner::default())
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

/// Header, title and capacity of one log, as its lines come.
#[derive(Debug, Clone, Default)]
struct CopilotScanner {
    tracker: Tracker,
}

impl Scanner for CopilotScanner {
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
        match &self.tracker.not_session {
            Some(why) => HeaderState::NotASession(why.clone()),
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
            capacity: self.tracker.capacity.filter(|_| readable),
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
