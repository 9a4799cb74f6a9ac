//! The state of one Continue session file as its bytes are read, shared by
//! the store's scan and the full read ([`crate::formats::toolkit::whole`]):
//! the top-level members are read whole, the `history` entries one by one,
//! each its own seq (its position, from 1), so `capturedThroughSeq` is the
//! number of entries.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::place::{self, Created};
use super::unverified;
use crate::formats::text;
use crate::formats::toolkit::elements::{Elements, Piece};
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Event, Role, SessionHeader};

/// The member whose entries are the session's messages.
const HISTORY: &str = "history";
/// Continue's placeholder title (`NEW_SESSION_TITLE`), replaced by a
/// generated one: no title.
const NEW_SESSION: &str = "New Session";

/// One session file's state.
#[derive(Debug, Clone)]
pub struct Tracker {
    /// Whether events are built (a full read) or only judged (a scan).
    project: bool,
    file_modified: Option<u64>,
    /// The list beside the file (`sessions.json`).
    list: Option<Arc<Created>>,
    elements: Elements,
    /// Elements or lines read, skipped, the one not UTF-8, and why the
    /// log is no session (what every tracker counts alike).
    tally: Tally,
    id: Option<String>,
    title: Option<String>,
    cwd: Option<String>,
    /// The `history` array closed: the document was not cut inside it.
    history_closed: bool,
    has_message: bool,
    first_prompt: Option<String>,
    header: Option<SessionHeader>,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            project: false,
            file_modified: None,
            list: None,
            tally: Tally::default(),
            elements: Elements::object_streaming(HISTORY),
            id: None,
            title: None,
            cwd: None,
            history_closed: false,
            has_message: false,
            first_prompt: None,
            header: None,
        }
    }
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Continue session: the file is empty";

    tracker_parts!(scan_or_project, file_modified, tally_and_header);

    fn file_path(&mut self, path: &Path) {
        self.list = place::list_beside(path);
    }

    /// Takes the next bytes of the document.
    fn line(&mut self, raw: &[u8], sink: &mut dyn FnMut(Entry<'_>)) {
        if self.is_done() {
            return;
        }
        let mut elements = std::mem::take(&mut self.elements);
        elements.feed(raw, &mut |piece| self.piece(piece, sink));
        self.elements = elements;
        if self.elements.failed {
            self.tally.not_session = Some(NOT_A_SESSION.into());
        }
    }

    /// The document has ended: what it lacks decides.
    fn end(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        if self.is_done() {
            return;
        }
        let mut elements = std::mem::take(&mut self.elements);
        elements.end(&mut |piece| self.piece(piece, sink));
        self.elements = elements;
        if self.is_done() {
            return;
        }
        if self.elements.failed || self.id.is_none() || !self.history_closed {
            self.tally.not_session = Some(NOT_A_SESSION.into());
        } else if self.header.is_none() {
            // The whole document was read: without a message it is no
            // session, and `status` says why.
            self.tally.not_session = Some("no user or assistant message".into());
        }
    }

    /// `title` as written, else the first user message cut to 80.
    fn title(&self) -> Option<String> {
        self.title.clone().or_else(|| self.first_prompt.clone())
    }

    /// The document is rewritten whole on every change.
    fn resumable(&self) -> bool {
        false
    }
}

impl Tracker {
    fn piece(&mut self, piece: Piece, sink: &mut dyn FnMut(Entry<'_>)) {
        if self.is_done() {
            return;
        }
        match piece {
            Piece::Member(key, value) => self.member(&key, value),
            Piece::Element(entry) => {
                self.tally.lines += 1;
                let seq = self.tally.lines;
                self.entry(&entry, seq, sink);
            }
            Piece::ArrayEnd => self.history_closed = true,
            Piece::Malformed => self.tally.not_session = Some(NOT_A_SESSION.into()),
            Piece::NotUtf8 => self.tally.failure = Some(self.tally.lines + 1),
        }
        self.settle();
    }

    fn member(&mut self, key: &str, value: Value) {
        match (key, value) {
            ("sessionId", Value::String(id)) => self.id = Some(id),
            ("title", Value::String(title)) => {
                self.title = text::given_title(&title).filter(|t| t != NEW_SESSION);
            }
            ("workspaceDirectory", Value::String(dir)) => {
                self.cwd = unverified::workspace_cwd(&dir)
            }
            // `history` that is no array: no session.
            (HISTORY, _) => self.tally.not_session = Some(NOT_A_SESSION.into()),
            _ => {}
        }
    }

    fn entry(&mut self, entry: &Value, seq: u64, sink: &mut dyn FnMut(Entry<'_>)) {
        let Some(message) = entry.get("message").filter(|m| m.is_object()) else {
            self.tally.skipped += 1;
            return;
        };
        let said = message_text(message);
        if let Some((Role::User, text)) = &said {
            if self.first_prompt.is_none() {
                self.first_prompt = text::prompt_title(&text::person_text(Cow::Borrowed(text)));
            }
        }
        if said.is_some() {
            self.has_message = true;
        }
        if !self.project {
            return;
        }
        // The last summary shadows its own entry and every earlier one.
        let summary = entry
            .get("conversationSummary")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty());
        let event = match (summary, said) {
            (Some(summary), _) => Event::Checkpoint {
                through_seq: seq,
                text: Cow::Owned(summary.to_string()),
            },
            (None, Some((role, text))) => Event::Message {
                role,
                text: match role {
                    Role::User => Cow::Owned(text::person_text(text).into_owned()),
                    Role::Assistant => Cow::Owned(text.into_owned()),
                },
            },
            (None, None) => return,
        };
        sink(Entry { seq, event });
    }

    /// The header, once the document is known to be a session: its id, a
    /// message, and the end of its `history` seen (or a bad entry, whose
    /// read says why).
    fn settle(&mut self) {
        let Some(id) = self.id.as_ref() else {
            return;
        };
        if !(self.has_message && self.history_closed) && self.tally.failure.is_none() {
            return;
        }
        self.header = Some(SessionHeader {
            version: 0,
            id: id.clone(),
            created_at: self
                .list
                .as_ref()
                .and_then(|l| l.get(id).copied())
                .or(self.file_modified)
                .unwrap_or(0),
            cwd: self.cwd.clone(),
            label: None,
        });
    }
}

/// A `ChatMessage`'s role and text when it is a person's or the agent's:
/// a string `content`, or its `text` parts joined with `"\n"`; `None` when
/// empty after trimming, or for `thinking`, `system` and `tool` messages.
fn message_text(message: &Value) -> Option<(Role, Cow<'_, str>)> {
    let role = match message.get("role").and_then(Value::as_str)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    let text = match message.get("content")? {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            Cow::Owned(texts.join("\n"))
        }
        _ => return None,
    };
    (!text.trim().is_empty()).then_some((role, text))
}

const NOT_A_SESSION: &str =
    "not a Continue session: no object with a string sessionId and an array history";
