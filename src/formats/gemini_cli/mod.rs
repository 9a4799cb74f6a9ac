//! The Gemini CLI session format (agent-logs-more.md "Gemini CLI"): the
//! JSONL form replayed (a message written again under its id keeps its
//! place, `$set` replaces fields, `$rewindTo` cuts), and the older
//! whole-JSON `session-*.json` documents. Lenient: a record that cannot be
//! understood is skipped and counted; only invalid UTF-8 fails a read.

pub mod reader;
pub mod record;
pub mod replay;
pub mod track;

#[cfg(test)]
mod tests;

use std::path::Path;

use super::{HeaderState, LogFormat, LogSource, ScanMeta, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};
use track::{Place, Tracker};

/// The Gemini CLI format.
#[derive(Debug, Clone, Copy)]
pub struct GeminiCli;

impl LogFormat for GeminiCli {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn display_name(&self) -> &'static str {
        "Gemini CLI"
    }

    /// Every `.jsonl`, and the older `session-*.json` documents (never
    /// `checkpoint-*.json` or `logs.json`).
    fn is_log_name(&self, rel: &[u8]) -> bool {
        let base = rel.rsplit(|&b| b == b'/').next().unwrap_or(rel);
        rel.ends_with(b".jsonl") || (base.starts_with(b"session-") && base.ends_with(b".json"))
    }

    /// A metadata record, or the start of a whole-JSON document: its `{`
    /// alone (pretty-printed), or all of it on one line.
    fn recognizes(&self, line: &[u8]) -> bool {
        record::is_metadata_line(line) || record::is_document_start(line)
    }

    fn scanner(&self) -> Box<dyn Scanner> {
        Box::new(GeminiScanner::default())
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

/// Header, title and sub-agent titles of one log; it keeps one flag per
/// message, not the messages.
#[derive(Debug, Clone)]
struct GeminiScanner {
    tracker: Tracker<bool>,
}

impl Default for GeminiScanner {
    fn default() -> Self {
        Self {
            tracker: Tracker::new(|m| track::surface_role(&m).is_some()),
        }
    }
}

impl Scanner for GeminiScanner {
    fn file_modified(&mut self, millis: u64) {
        self.tracker.file_modified = Some(millis);
    }

    fn file_path(&mut self, path: &Path) {
        self.tracker.place = Place::of(path);
    }

    /// A document is rewritten whole: what follows the bytes read is no
    /// continuation of it.
    fn resumable(&self) -> bool {
        !self.tracker.is_document()
    }

    fn line(&mut self, line: &[u8]) {
        self.tracker.line(line);
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
            capacity: None,
            skipped_lines: self.tracker.skipped,
            failure,
        }
    }

    fn is_done(&self) -> bool {
        self.tracker.is_done()
    }

    fn parent(&self) -> Option<(String, String)> {
        self.tracker.parent()
    }

    fn child_title(&self, key: &str) -> Option<String> {
        self.tracker.children.get(key).cloned()
    }

    fn clone_box(&self) -> Box<dyn Scanner> {
        Box::new(self.clone())
    }
}
