//! The state of one hydra log as its lines are read, shared by the index
//! scanner and the full read: the header, then each event validated by
//! [`EventCursor`]. Strict: the first bad line ends the log's reading.

use super::line::{self, Header, LineError};
use super::reader::{to_entry, EventCursor};
use crate::formats::toolkit::track::{tracker_parts, Track};
use crate::model::{Entry, SessionHeader};

/// One log's state.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    /// Whether events are handed on (a full read) or only validated.
    project: bool,
    header: Option<Header>,
    /// Why line 1 is no header, in a scan's words (and the error itself).
    not_header: Option<(String, LineError)>,
    cursor: EventCursor,
    /// The first bad event line and what is wrong with it.
    failure: Option<(u64, LineError)>,
}

impl Track for Tracker {
    const NO_LINE: &'static str = "no complete session header";

    tracker_parts!(scan_or_project);

    fn line(&mut self, raw: &[u8], sink: &mut dyn FnMut(Entry<'_>)) {
        if self.is_done() {
            return;
        }
        if self.header.is_none() {
            match line::parse_header_with_capacity(raw) {
                Ok((header, capacity)) => {
                    self.cursor = EventCursor::after_header_with(capacity);
                    self.header = Some(header);
                }
                Err(e) => {
                    let why = format!("line 1 is not a session header ({e})");
                    self.not_header = Some((why, e));
                }
            }
            return;
        }
        match self.cursor.accept(raw) {
            Ok(Some(event)) if self.project => sink(to_entry(event)),
            Ok(_) => {}
            Err(fault) => self.failure = Some(fault),
        }
    }

    fn lines(&self) -> u64 {
        if self.header.is_some() {
            self.cursor.line
        } else {
            0
        }
    }

    /// A strict log skips nothing: a line it cannot read fails it.
    fn skipped(&self) -> u64 {
        0
    }

    fn failure(&self) -> Option<u64> {
        self.failure.as_ref().map(|(n, _)| *n)
    }

    fn not_session(&self) -> Option<&str> {
        self.not_header.as_ref().map(|(why, _)| why.as_str())
    }

    fn header(&self) -> Option<&SessionHeader> {
        self.header.as_ref()
    }

    /// The latest non-empty `session/title`.
    fn title(&self) -> Option<String> {
        self.cursor.title.clone()
    }

    fn capacity(&self) -> Option<u64> {
        self.cursor.capacity
    }

    fn why_not(&self) -> Option<String> {
        if let Some((n, e)) = &self.failure {
            return Some(format!("line {n}: {e}"));
        }
        self.not_session().map(str::to_string)
    }

    fn read_fault(&self) -> Option<(Option<u64>, String)> {
        if let Some((n, e)) = &self.failure {
            return Some((Some(*n), e.to_string()));
        }
        let (_, e) = self.not_header.as_ref()?;
        Some((Some(1), format!("not a session header ({e})")))
    }

    fn no_header(&self) -> (Option<u64>, String) {
        (Some(1), Self::NO_LINE.into())
    }

    /// The seq of the last event line.
    fn captured_through_seq(&self) -> Option<u64> {
        self.cursor.last_seq
    }
}
