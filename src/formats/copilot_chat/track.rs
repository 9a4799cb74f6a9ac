//! The state of one Copilot Chat session as its log is read, shared by the
//! index scanner and the full read: both replay the log to its final
//! state (agent-logs-more.md "Memory": a replayed format holds the
//! session's state, never the file), and take the header, title and
//! capacity from it.

use std::borrow::Cow;
use std::path::Path;

use serde_json::{Map, Value};

use super::mutation;
use super::place::Place;
use super::reader::project;
use super::surface;
use super::thin;
use crate::formats::text;
use crate::formats::toolkit::document::{Form, Taken};
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, SessionHeader};

/// The largest timestamp read exactly: 2^53 − 1 milliseconds.
const MAX_MILLIS: u64 = (1 << 53) - 1;

/// One session's replayed state and what its reading counted.
#[derive(Debug, Clone)]
pub struct Tracker {
    form: Form,
    pub place: Place,
    pub file_modified: Option<u64>,
    /// Lines taken and skipped, the line that fails the log, why it is
    /// no session.
    pub tally: Tally,
    /// Whether to keep only the state's shape and the texts the header
    /// and title need (the index's scanner; see [`thin`]).
    pub thin: bool,
    /// The state, once line 1 (or the document's start) gave one.
    state: Option<Value>,
    /// Whether the document had its array `requests`.
    has_requests: bool,
    /// The first request that may title the session, wherever it was
    /// (a request cut away by an edit counts).
    first_prompt: Option<String>,
    header: Option<SessionHeader>,
}

impl Default for Tracker {
    fn default() -> Self {
        Self {
            form: Form::Unknown,
            place: Place::default(),
            file_modified: None,
            tally: Tally::default(),
            thin: false,
            state: None,
            has_requests: false,
            first_prompt: None,
            header: None,
        }
    }
}

/// Whether `line` starts the mutation log: `{"kind":0,"v":{…}}`.
pub fn is_log_start(line: &[u8]) -> bool {
    // Most first lines of other formats have no `"kind"` at all.
    memchr::memmem::find(line, b"\"kind\"").is_some() && first_state(line).is_some()
}

/// Whether `line` starts a whole document: its `{` alone (pretty-printed),
/// or all of it on one line, an object with an array `requests`.
pub fn is_document_start(line: &[u8]) -> bool {
    let trimmed = line.trim_ascii();
    trimmed == b"{"
        || serde_json::from_slice::<Map<String, Value>>(trimmed)
            .is_ok_and(|doc| doc.get("requests").is_some_and(Value::is_array))
}

/// The state line 1 of a log starts with.
fn first_state(line: &[u8]) -> Option<Value> {
    let mut entry: Map<String, Value> = serde_json::from_slice(line).ok()?;
    mutation::full_state(&mut entry)
}

impl Tracker {
    /// Whether the log is the whole-document form.
    pub fn is_document(&self) -> bool {
        matches!(self.form, Form::Document(_))
    }

    /// Takes the next complete line.
    fn take(&mut self, raw: &[u8]) {
        self.tally.lines += 1;
        if self.is_done() {
            return;
        }
        let taken = self.form.take(
            raw,
            &mut self.place.forms,
            &mut self.tally,
            "Copilot Chat",
            |raw| !is_log_start(raw) && is_document_start(raw),
        );
        match taken {
            Taken::Nothing => return,
            Taken::Line(raw) => self.log_line(raw),
            Taken::Members(got) => {
                let prompts = self.first_prompt.is_none();
                let state = self.state.get_or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(state) = state {
                    for (key, mut value) in got.into_iter().flatten() {
                        if self.thin {
                            thin::thin_member(&key, &mut value, prompts);
                        }
                        if key == "requests" && value.is_array() {
                            self.has_requests = true;
                        }
                        state.insert(key, value);
                    }
                }
            }
        }
        self.note_first_prompt();
        self.refresh_header();
    }

    fn log_line(&mut self, raw: &[u8]) {
        let prompts = self.first_prompt.is_none();
        let thinned = |mut entry: Map<String, Value>| {
            if self.thin {
                thin::thin_entry(&mut entry, prompts);
            }
            entry
        };
        if self.tally.lines == 1 {
            let state = serde_json::from_slice(raw)
                .ok()
                .map(thinned)
                .and_then(|mut entry| mutation::full_state(&mut entry));
            match state {
                Some(state) => self.state = Some(state),
                None => {
                    self.tally.not_session =
                        Some("not a Copilot Chat session: line 1 is no full state (kind 0)".into())
                }
            }
            return;
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let (Some(state), Ok(entry)) = (
            &mut self.state,
            serde_json::from_slice::<Map<String, Value>>(raw),
        ) else {
            self.tally.skipped += 1;
            return;
        };
        if mutation::apply(state, thinned(entry)).is_err() {
            self.tally.skipped += 1;
        }
    }

    /// Notes the first request that titles the session, once there is one.
    fn note_first_prompt(&mut self) {
        if self.first_prompt.is_some() {
            return;
        }
        let Some(state) = &self.state else { return };
        self.first_prompt = surface::requests(state)
            .iter()
            .filter(|r| !surface::is_hidden(r))
            .filter_map(surface::user_text)
            .find_map(|t| text::prompt_title(&text::person_text(Cow::Borrowed(t))));
    }

    fn refresh_header(&mut self) {
        let Some(state) = self.state.as_ref() else {
            return;
        };
        if self.is_document() && !self.has_requests {
            return;
        }
        let millis = |v: Option<&Value>| v.and_then(Value::as_u64).filter(|&n| n <= MAX_MILLIS);
        let created_at = millis(state.get("creationDate"))
            .or_else(|| millis(surface::requests(state).first()?.get("timestamp")))
            .or(self.file_modified)
            .unwrap_or(0);
        let id = state
            .get("sessionId")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .or(self.place.stem.as_deref());
        let Some(id) = id else {
            return;
        };
        match &mut self.header {
            Some(h) => {
                h.created_at = created_at;
                if h.id != id {
                    h.id = id.to_string();
                }
            }
            None => {
                self.header = Some(SessionHeader {
                    version: 0,
                    id: id.to_string(),
                    created_at,
                    cwd: self.place.cwd.clone(),
                    label: None,
                })
            }
        }
    }

    /// Entries of the document's `requests` (its `capturedThroughSeq`).
    pub fn requests(&self) -> u64 {
        self.state
            .as_ref()
            .map_or(0, |s| surface::requests(s).len() as u64)
    }
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Copilot Chat session: no complete line";

    tracker_parts!(file_modified, tally_and_header);

    /// The index's tracker keeps the state's shape and only the texts
    /// the header and title need (see [`thin`]).
    fn for_scan() -> Self {
        Tracker {
            thin: true,
            ..Tracker::default()
        }
    }

    fn for_read() -> Self {
        Tracker::default()
    }

    fn file_path(&mut self, path: &Path) {
        self.place = Place::of(path);
    }

    /// The state is replayed whole; its projection waits for the end.
    fn line(&mut self, raw: &[u8], _sink: &mut dyn FnMut(Entry<'_>)) {
        self.take(raw);
    }

    /// The final state's requests.
    fn end(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        if let Some(state) = &self.state {
            project(state, sink);
        }
    }

    /// The header, once the log is known to be a session.
    /// The name VS Code shows (`customTitle`), else the first request's
    /// text cut to 80.
    fn title(&self) -> Option<String> {
        self.state
            .as_ref()
            .and_then(|s| s.get("customTitle"))
            .and_then(Value::as_str)
            .and_then(text::given_title)
            .or_else(|| self.first_prompt.clone())
    }

    fn capacity(&self) -> Option<u64> {
        self.state.as_ref().and_then(surface::capacity)
    }

    /// A document is rewritten whole: what follows the bytes read is no
    /// continuation of it.
    fn resumable(&self) -> bool {
        !self.is_document()
    }

    fn no_header(&self) -> (Option<u64>, String) {
        let why = if self.tally.lines == 0 {
            Self::NO_LINE
        } else {
            "not a Copilot Chat session: no array `requests`"
        };
        (None, why.into())
    }

    /// A document's requests; a log's lines.
    fn captured_through_seq(&self) -> Option<u64> {
        Some(if self.is_document() {
            self.requests()
        } else {
            self.tally.lines
        })
    }
}
