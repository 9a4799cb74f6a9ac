//! The GitHub Copilot Chat format of VS Code (agent-logs-more.md "GitHub
//! Copilot Chat in VS Code"): `chatSessions/<id>.jsonl`, a mutation log
//! replayed to the session's final state (full state, set, append after a
//! cut, delete: an edited request is a cut then an append, so the replay
//! is the live branch), and the older whole-JSON `<id>.json`. Lenient: an
//! entry that cannot be applied is skipped and counted; only invalid
//! UTF-8 fails a read.

pub mod mutation;
pub mod place;
pub mod reader;
pub mod surface;
pub mod thin;
pub mod track;

#[cfg(test)]
mod tests;

use std::path::Path;

use super::{HeaderState, LogFormat, LogSource, ScanMeta, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};
use place::{Place, EMPTY_WINDOW_DIR, SESSIONS_DIR};
use track::Tracker;

/// The Copilot Chat format.
#[derive(Debug, Clone, Copy)]
pub struct CopilotChat;

/// Folders VS Code keeps chat files in that are no sessions of their own:
/// hand-over copies (deleted after minutes) and an older fallback of
/// empty windows (agent-logs-more.md "Not read").
const NOT_READ: [&[u8]; 2] = [b"transferredChatSessions/", b"no-workspace/chatSessions/"];

impl LogFormat for CopilotChat {
    fn name(&self) -> &'static str {
        "copilot-chat"
    }

    fn display_name(&self) -> &'static str {
        "Copilot Chat"
    }

    /// Every `.jsonl`, and a `.json` directly in a `chatSessions` or
    /// `emptyWindowChatSessions` folder; none in the folders not read.
    fn is_log_name(&self, rel: &[u8]) -> bool {
        // The name of the folder a `.json` is directly in.
        let json_folder = rel.strip_suffix(b".json").and_then(|stem| {
            let dir = &stem[..memchr::memrchr(b'/', stem)?];
            Some(memchr::memrchr(b'/', dir).map_or(dir, |at| &dir[at + 1..]))
        });
        let ignored = NOT_READ
            .iter()
            .any(|dir| memchr::memmem::find(rel, dir).is_some());
        !ignored
            && (rel.ends_with(b".jsonl")
                || json_folder.is_some_and(|d| {
                    d == SESSIONS_DIR.as_bytes() || d == EMPTY_WINDOW_DIR.as_bytes()
                }))
    }

    /// A full-state entry, or the start of a whole document.
    fn recognizes(&self, line: &[u8]) -> bool {
        track::is_log_start(line) || track::is_document_start(line)
    }

    fn scanner(&self) -> Box<dyn Scanner> {
        Box::new(CopilotChatScanner::default())
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

/// Header, title and capacity of one log. It holds the replayed state's
/// shape (a later entry may set any path of it) without the texts it
/// never reads.
#[derive(Debug, Clone)]
struct CopilotChatScanner {
    tracker: Tracker,
}

impl Default for CopilotChatScanner {
    fn default() -> Self {
        let mut tracker = Tracker::default();
        tracker.thin = true;
        Self { tracker }
    }
}

impl Scanner for CopilotChatScanner {
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
            capacity: self.tracker.capacity().filter(|_| readable),
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
