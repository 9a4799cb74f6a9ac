//! The state of one `<id>.messages.json` as its bytes are read, shared by
//! the store's scan and the full read ([`crate::formats::toolkit::whole`]):
//! the top-level members are read whole, the `messages` entries one by
//! one, each its own seq (its position, from 1), so `capturedThroughSeq`
//! is the number of entries.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use super::place::{self, Metadata};
use super::unverified;
use crate::formats::text;
use crate::formats::toolkit::elements::{Elements, Piece};
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Role, SessionHeader, MAX_SAFE_INTEGER};

/// The member whose entries are the session's messages.
const MESSAGES: &str = "messages";

/// One conversation file's state.
#[derive(Debug, Clone)]
pub struct Tracker {
    /// Whether events are built (a full read) or only judged (a scan).
    project: bool,
    file_modified: Option<u64>,
    /// The session's id: its folder's name.
    id: Option<String>,
    /// `<id>.json` beside the file.
    metadata: Option<Metadata>,
    elements: Elements,
    /// Elements or lines read, skipped, the one not UTF-8, and why the
    /// log is no session (what every tracker counts alike).
    tally: Tally,
    /// The earliest message `ts`.
    earliest: Option<u64>,
    /// The `messages` array closed: the document was not cut inside it.
    messages_closed: bool,
    has_message: bool,
    first_prompt: Option<String>,
    header: Option<SessionHeader>,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            project: false,
            file_modified: None,
            id: None,
            metadata: None,
            tally: Tally::default(),
            elements: Elements::object_streaming(MESSAGES),
            earliest: None,
            messages_closed: false,
            has_message: false,
            first_prompt: None,
            header: None,
        }
    }
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Cline CLI session: the file is empty";

    tracker_parts!(scan_or_project, file_modified, tally_and_header);

    fn file_path(&mut self, path: &Path) {
        if let Some((id, dir)) = place::of(path) {
            self.metadata = place::metadata(dir, &id);
            self.id = Some(id);
        }
    }

    fn file_name(&mut self, name: &str) {
        self.id = place::session_id_of(name.as_bytes())
            .map(|id| String::from_utf8_lossy(id).into_owned());
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
        if self.id.is_none() {
            self.tally.not_session = Some(NOT_IN_ITS_FOLDER.into());
        } else if self.elements.failed || !self.messages_closed {
            self.tally.not_session = Some(NOT_A_SESSION.into());
        } else if self.header.is_none() {
            // The whole document was read: without a message it is no
            // session, and `status` says why.
            self.tally.not_session = Some("no user or assistant message".into());
        }
    }

    /// `metadata.title` of `<id>.json`, else the first person's message cut
    /// to 80.
    fn title(&self) -> Option<String> {
        self.metadata
            .as_ref()
            .and_then(|m| m.title.clone())
            .or_else(|| self.first_prompt.clone())
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
            Piece::Member(key, _) if key == MESSAGES => {
                // `messages` that is no array: no session.
                self.tally.not_session = Some(NOT_A_SESSION.into());
            }
            Piece::Member(..) => {}
            Piece::Element(entry) => {
                self.tally.lines += 1;
                let seq = self.tally.lines;
                self.entry(&entry, seq, sink);
            }
            Piece::ArrayEnd => self.messages_closed = true,
            Piece::Malformed => self.tally.not_session = Some(NOT_A_SESSION.into()),
            Piece::NotUtf8 => self.tally.failure = Some(self.tally.lines + 1),
        }
        self.settle();
    }

    fn entry(&mut self, entry: &Value, seq: u64, sink: &mut dyn FnMut(Entry<'_>)) {
        if !entry.is_object() {
            self.tally.skipped += 1;
            return;
        }
        if let Some(ts) = entry
            .get("ts")
            .and_then(Value::as_u64)
            .filter(|&ts| ts <= MAX_SAFE_INTEGER)
        {
            self.earliest = Some(self.earliest.map_or(ts, |e| e.min(ts)));
        }
        let Some((role, said)) = said(entry) else {
            return;
        };
        let said = match role {
            Role::User => text::person_text(Cow::Owned(said)).into_owned(),
            Role::Assistant => said,
        };
        if role == Role::User && self.first_prompt.is_none() {
            self.first_prompt = text::prompt_title(&said);
        }
        self.has_message = true;
        if self.project {
            sink(Entry::message(seq, role, said));
        }
    }

    /// The header, once the document is known to be a session: its id, a
    /// message, and the end of its `messages` seen (or a bad entry, whose
    /// read says why).
    fn settle(&mut self) {
        let Some(id) = self.id.as_ref() else {
            return;
        };
        if !(self.has_message && self.messages_closed) && self.tally.failure.is_none() {
            return;
        }
        let metadata = self.metadata.as_ref();
        self.header = Some(SessionHeader {
            version: 0,
            id: id.clone(),
            created_at: metadata
                .and_then(|m| m.started_at)
                .or(self.earliest)
                .or(self.file_modified)
                .unwrap_or(0),
            cwd: metadata.and_then(|m| m.cwd.clone()),
            label: None,
        });
    }
}

/// A message's role and text when it is the person's or the agent's: its
/// text blocks joined with `"\n"` (the person's each unwrapped from its
/// `<user_input>`); `None` when nothing is left after trimming (a `user`
/// message of tool results only, an `assistant` one of tool calls only).
fn said(entry: &Value) -> Option<(Role, String)> {
    let role = match entry.get("role").and_then(Value::as_str)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    let texts = unverified::content_texts(entry.get("content")?);
    let joined = match role {
        Role::User => texts
            .into_iter()
            .map(unverified::person_input)
            .collect::<Vec<_>>()
            .join("\n"),
        Role::Assistant => texts.join("\n"),
    };
    (!joined.trim().is_empty()).then_some((role, joined))
}

const NOT_A_SESSION: &str = "not a Cline CLI session: no object with an array messages";
const NOT_IN_ITS_FOLDER: &str =
    "not a Cline CLI session: the file is not <id>.messages.json in a folder <id>";
