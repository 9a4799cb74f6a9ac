//! The state of one Gemini CLI session as its log is read, shared by the
//! index scanner (which keeps one flag per message) and the full read
//! (which keeps the messages).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde_json::{Map, Value};

use super::record::{self, Kind, List, Message, Metadata, Record};
use super::replay::{Item, Replay};
use crate::formats::text;
use crate::formats::toolkit::document::{Form, Taken, TwoForms};
use crate::formats::toolkit::track::{Tally, Track};
use crate::fsio;
use crate::model::{Entry, Role, SessionHeader};

/// The longest `.project_root` read: a path, not a document.
const PROJECT_ROOT_MAX: u64 = 64 * 1024;

/// Where the log sits, as far as the session's facts depend on it.
#[derive(Debug, Clone, Default)]
pub struct Place {
    /// The parent's session id, for a log in `chats/<parentId>/`.
    pub parent: Option<String>,
    /// The project's root, from `.project_root`.
    pub cwd: Option<String>,
    /// Which form its name says it is in, and whether it is shadowed.
    pub forms: TwoForms,
}

impl Place {
    /// The facts of the log at `path`.
    pub fn of(path: &Path) -> Place {
        let is_json = path.extension().is_some_and(|e| e == "json");
        let dir = path.parent();
        let grand = dir.and_then(Path::parent);
        let (parent, project) = if name(grand) == Some("chats") && !is_json {
            (name(dir).map(str::to_string), grand.and_then(Path::parent))
        } else if name(dir) == Some("chats") {
            (None, grand)
        } else {
            (None, None)
        };
        Place {
            parent,
            cwd: project.and_then(project_root),
            forms: TwoForms::of(path),
        }
    }
}

/// The name of the directory `p`, when it is one and valid UTF-8.
fn name(p: Option<&Path>) -> Option<&str> {
    p.and_then(Path::file_name).and_then(|n| n.to_str())
}

/// The trimmed contents of `<project>/.project_root`, when not empty.
fn project_root(project: &Path) -> Option<String> {
    // Never a FIFO (it would hang the scan) nor a link out of the store.
    let bytes = fsio::read_side_file(&project.join(".project_root"), PROJECT_ROOT_MAX).ok()?;
    let root = std::str::from_utf8(&bytes).ok()?.trim();
    (!root.is_empty()).then(|| root.to_string())
}

/// What a replayed message becomes on the surface, if anything.
pub fn surface_role(m: &Message) -> Option<Role> {
    let trimmed = m.text.trim();
    match m.kind {
        _ if trimmed.is_empty() => None,
        Kind::User if is_context(trimmed) => None,
        Kind::User => Some(Role::User),
        Kind::Gemini => Some(Role::Assistant),
        Kind::Other => None,
    }
}

/// Context Gemini CLI puts in user turns (its `isIgnoredUserContent`).
fn is_context(trimmed: &str) -> bool {
    trimmed.starts_with("<session_context>") || trimmed.starts_with("<hook_context>")
}

/// Whether a user message's text may title the session.
fn titles(m: &Message) -> Option<String> {
    let trimmed = m.text.trim();
    let ignored = trimmed.is_empty()
        || trimmed.starts_with('/')
        || trimmed.starts_with('?')
        || is_context(trimmed)
        || trimmed.contains(SNAPSHOT);
    if m.kind != Kind::User || ignored {
        return None;
    }
    text::prompt_title(&text::person_text(Cow::Borrowed(&m.text)))
}

/// The element of a compression's summary turn.
pub const SNAPSHOT: &str = "<state_snapshot>";

/// One session's state, keeping `T` of each message.
#[derive(Debug, Clone)]
pub struct Tracker<T> {
    form: Form,
    pub place: Place,
    pub file_modified: Option<u64>,
    /// Lines taken and skipped, the line that fails the log, why it is
    /// no session.
    pub tally: Tally,
    /// Entries of the document's `messages` (the whole-JSON form).
    pub entries: u64,
    session_id: Option<String>,
    start_time: Option<u64>,
    earliest: Option<u64>,
    /// Whether the document's `messages` was seen.
    has_list: bool,
    summary: Option<String>,
    first_prompt: Option<String>,
    /// Sub-agent session id → the title the parent's call gave it.
    pub children: HashMap<String, String>,
    pub replay: Replay<T>,
    header: Option<SessionHeader>,
    keep: fn(Message) -> T,
}

/// What a tracker keeps of each message: one flag for the index's scan,
/// the message itself for a full read, which projects the final list.
pub trait Kept: Item + Clone + Send + Sync + fmt::Debug + 'static {
    fn keep(m: Message) -> Self;

    /// Hands on the surface of the final list.
    fn project(items: Vec<Self>, sink: &mut dyn FnMut(Entry<'_>)) {
        let _ = (items, sink);
    }
}

/// The index keeps whether each message counts.
impl Kept for bool {
    fn keep(m: Message) -> bool {
        surface_role(&m).is_some()
    }
}

impl<T: Kept> Tracker<T> {
    pub fn new(keep: fn(Message) -> T) -> Self {
        Self {
            form: Form::Unknown,
            place: Place::default(),
            file_modified: None,
            tally: Tally::default(),
            entries: 0,
            session_id: None,
            start_time: None,
            earliest: None,
            has_list: false,
            summary: None,
            first_prompt: None,
            children: HashMap::new(),
            replay: Replay::default(),
            header: None,
            keep,
        }
    }

    /// Whether the log is the whole-JSON form.
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
            "Gemini CLI",
            |raw| record::is_document_start(raw) && !record::is_metadata_line(raw),
        );
        match taken {
            Taken::Nothing => return,
            Taken::Line(raw) => self.jsonl_line(raw),
            Taken::Members(got) => {
                for member in got {
                    self.member(member);
                }
            }
        }
        self.refresh_header();
    }

    fn jsonl_line(&mut self, raw: &[u8]) {
        if self.tally.lines == 1 {
            match record::parse_line(raw) {
                Record::Metadata(meta) => self.metadata(meta),
                _ => {
                    self.tally.not_session =
                        Some("not a Gemini CLI session: line 1 is no metadata record".into())
                }
            }
            return;
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match record::parse_line(raw) {
            Record::Rewind(id) => self.replay.rewind(&id),
            Record::Message(m) => self.put(m),
            Record::Update { messages, summary } => {
                if let Some(list) = messages {
                    self.replay.clear();
                    self.list(list);
                }
                self.summary_of(summary);
            }
            // Only line 1 gives the id and the start: a later one is the
            // CLI resuming the session in the same file (within the minute
            // its file is named by), read for the rest.
            Record::Metadata(meta) => self.metadata(Metadata {
                session_id: None,
                start_time: None,
                ..meta
            }),
            Record::NotUnderstood => self.tally.skipped += 1,
        }
    }

    /// A completed member of the whole-JSON document.
    fn member(&mut self, member: Map<String, Value>) {
        for (key, value) in member {
            match key.as_str() {
                "sessionId" => self.session_id = value.as_str().map(str::to_string),
                "startTime" => {
                    self.start_time = value.as_str().and_then(text::parse_timestamp);
                }
                "summary" => self.summary_of(value.as_str().map(str::to_string)),
                "messages" => {
                    if let Some(list) = record::list(&value) {
                        self.has_list = true;
                        self.entries += list.messages.len() as u64 + list.skipped;
                        self.list(list);
                    }
                }
                _ => {}
            }
        }
    }

    fn metadata(&mut self, meta: Metadata) {
        if meta.session_id.is_some() {
            self.session_id = meta.session_id;
        }
        if meta.start_time.is_some() {
            self.start_time = meta.start_time;
        }
        self.summary_of(meta.summary);
        if let Some(list) = meta.messages {
            self.list(list);
        }
    }

    fn summary_of(&mut self, summary: Option<String>) {
        if let Some(named) = summary.as_deref().and_then(text::given_title) {
            self.summary = Some(named);
        }
    }

    fn list(&mut self, list: List) {
        self.tally.skipped += list.skipped;
        for m in list.messages {
            self.put(m);
        }
    }

    /// Puts one message record, noting what every record read tells.
    fn put(&mut self, mut m: Message) {
        if let Some(at) = m.timestamp {
            self.earliest = Some(self.earliest.map_or(at, |e| e.min(at)));
        }
        if self.first_prompt.is_none() {
            self.first_prompt = titles(&m);
        }
        for (agent, title) in std::mem::take(&mut m.agents) {
            self.children.entry(agent).or_insert(title);
        }
        let id = m.id.clone();
        self.replay.put(id, (self.keep)(m));
    }

    fn refresh_header(&mut self) {
        let created_at = self
            .start_time
            .or(self.earliest)
            .or(self.file_modified)
            .unwrap_or(0);
        match &mut self.header {
            Some(h) => h.created_at = created_at,
            None => {
                let complete = !self.is_document() || self.has_list;
                let Some(own) = self.session_id.as_deref().filter(|_| complete) else {
                    return;
                };
                let id = match &self.place.parent {
                    Some(parent) => format!("{parent}/{own}"),
                    None => own.to_string(),
                };
                self.header = Some(SessionHeader {
                    version: 0,
                    id,
                    created_at,
                    cwd: self.place.cwd.clone(),
                    label: None,
                });
            }
        }
    }
}

impl<T: Kept> Track for Tracker<T> {
    const NO_LINE: &'static str = "not a Gemini CLI session: no complete line";

    fn tally(&self) -> &Tally {
        &self.tally
    }

    fn for_scan() -> Self {
        Tracker::new(T::keep)
    }

    fn for_read() -> Self {
        Tracker::new(T::keep)
    }

    fn file_modified(&mut self, millis: u64) {
        self.file_modified = Some(millis);
    }

    fn file_path(&mut self, path: &Path) {
        self.place = Place::of(path);
    }

    /// The list is replayed whole; its projection waits for the end.
    fn line(&mut self, raw: &[u8], _sink: &mut dyn FnMut(Entry<'_>)) {
        self.take(raw);
    }

    /// The final list, given up to its projection.
    fn end(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        let replay = std::mem::take(&mut self.replay);
        T::project(replay.into_items().collect(), sink);
    }

    /// The header, once the log is known to be a session.
    fn header(&self) -> Option<&SessionHeader> {
        self.header
            .as_ref()
            // A bad line makes it one still: its read then says why.
            .filter(|_| {
                self.tally.not_session.is_none()
                    && (self.replay.has_message() || self.tally.failure.is_some())
            })
    }

    /// The summary, else the first user message cut to 80.
    fn title(&self) -> Option<String> {
        self.summary.clone().or_else(|| self.first_prompt.clone())
    }

    /// `(parent id, own id)` of a sub-agent's log.
    fn parent(&self) -> Option<(String, String)> {
        Some((self.place.parent.clone()?, self.session_id.clone()?))
    }

    fn child_title(&self, key: &str) -> Option<String> {
        self.children.get(key).cloned()
    }

    fn names_children(&self) -> bool {
        !self.children.is_empty()
    }

    /// A document is rewritten whole: what follows the bytes read is no
    /// continuation of it.
    fn resumable(&self) -> bool {
        !self.is_document()
    }

    /// A document's entries of `messages`; a log's lines.
    fn captured_through_seq(&self) -> Option<u64> {
        Some(if self.is_document() {
            self.entries
        } else {
            self.tally.lines
        })
    }
}
