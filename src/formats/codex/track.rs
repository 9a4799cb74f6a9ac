//! What a rollout says, line by line: its header, title, capacity, skipped
//! lines and surface events. One [`Tracker`] serves both the index (fed
//! appended lines only) and a full read, so they never disagree.

use std::borrow::Cow;

use super::line::{self, BlockKind, Item, Line, LineError, Meta};
use super::text;
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Event, Role, SessionHeader};

/// Seqs are spaced so that the messages of a `compacted` line's
/// `replacement_history` sort right after its checkpoint and before the
/// next line: line `n` has seq `n * SPACING`, its history `n * SPACING + i`.
pub const SPACING: u64 = 1 << 24;

/// The checkpoint text of a compaction whose summary is only encrypted.
pub const ENCRYPTED_SUMMARY: &str = "[earlier conversation compacted; its summary is encrypted]";

/// The state carried from line to line.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    /// Lines taken and skipped, the line that fails the log, why it is
    /// no session.
    pub tally: Tally,
    /// `None` until the first non-blank line decides.
    pub header: Option<Result<SessionHeader, String>>,
    pub titles: Titles,
    pub capacity: Option<u64>,
    pub surface: Surface,
    /// Whether a user or assistant message was seen (projected, or a
    /// `user_message`/`agent_message` event): a rollout without one is not
    /// a session.
    pub has_message: bool,
    /// Whether every line's events are wanted (a full read), or only as
    /// many as the title needs (the index).
    pub full: bool,
    /// The file's modification time: `createdAt` when `session_meta` has
    /// no parsable timestamp.
    pub file_modified: Option<u64>,
}

impl Tracker {
    /// A tracker for a full read; `events_only`: the rollout has no
    /// `response_item` message at all.
    pub fn reading(events_only: bool) -> Self {
        Self {
            full: true,
            surface: Surface {
                events_only,
                ..Surface::default()
            },
            ..Self::default()
        }
    }

    /// Whether the rollout, its `session_meta` read, is a session: once a
    /// user or assistant message is seen, or a line fails the read (that
    /// line may be the message; the read then says why it fails).
    pub fn is_session(&self) -> bool {
        self.has_message || self.tally.failure.is_some()
    }
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Codex session: no complete session_meta line";

    tracker_parts!(file_modified, tally, for_scan);

    /// A tracker for a rollout with `response_item` messages (the reader
    /// makes one with [`Tracker::reading`] once its first pass knows).
    fn for_read() -> Self {
        Tracker::reading(false)
    }

    /// Takes the next complete line, handing its surface events to `sink`.
    fn line(&mut self, raw: &[u8], sink: &mut dyn FnMut(Entry<'_>)) {
        self.tally.lines += 1;
        if self.is_done() || raw.is_empty() {
            return;
        }
        let parsed = line::parse_line(raw);
        if self.header.is_none() {
            self.header = Some(match parsed {
                Ok(Line::Meta(meta)) => Ok(header_of(&meta, self.file_modified)),
                Err(LineError::NotUtf8) => {
                    Err(format!("line {} is not valid UTF-8", self.tally.lines))
                }
                _ => Err(format!(
                    "line {} is not a Codex session_meta with an id",
                    self.tally.lines
                )),
            });
            return;
        }
        let line = match parsed {
            Ok(line) => line,
            Err(LineError::NotUtf8) => {
                self.tally.failure = Some(self.tally.lines);
                return;
            }
            Err(LineError::NotUnderstood) => {
                self.tally.skipped += 1;
                return;
            }
        };
        match &line {
            Line::ThreadName(Some(name)) => {
                if let Some(name) = text::given_title(name) {
                    self.titles.named = Some(name);
                }
            }
            Line::UserEvent(message) | Line::AgentEvent(message) if !message.trim().is_empty() => {
                self.has_message = true;
                if matches!(line, Line::UserEvent(_)) && self.titles.first_event.is_none() {
                    self.titles.first_event =
                        text::prompt_title(&text::person_text(Cow::Borrowed(message)));
                }
            }
            Line::Window(Some(window)) => self.capacity = Some(*window),
            _ => {}
        }
        if !self.full && self.titles.settled() && self.has_message {
            // The index needs the surface only for the title's last
            // resort; once it cannot matter, keep no checkpoint text.
            self.surface.checkpoint_text = None;
            return;
        }
        let base = self.tally.lines.saturating_mul(SPACING);
        let first_message = &mut self.titles.first_message;
        let has_message = &mut self.has_message;
        self.surface.push(base, line, &mut |entry| {
            if let Event::Message { role, text } = &entry.event {
                *has_message = true;
                if *role == Role::User && first_message.is_none() {
                    *first_message = text::prompt_title(text);
                }
            }
            sink(entry);
        });
    }

    /// Why line 1 is no `session_meta` (the only way a rollout is none).
    fn not_session(&self) -> Option<&str> {
        match &self.header {
            Some(Err(why)) => Some(why),
            _ => None,
        }
    }

    /// A rollout is a session once a user or assistant message is seen:
    /// before that (a prompt a hook blocked) it is pending, listed as
    /// skipped, and becomes a session when one is appended.
    fn header(&self) -> Option<&SessionHeader> {
        match &self.header {
            Some(Ok(header)) if self.is_session() => Some(header),
            _ => None,
        }
    }

    fn title(&self) -> Option<String> {
        self.titles.title()
    }

    fn capacity(&self) -> Option<u64> {
        self.capacity
    }

    fn read_fault(&self) -> Option<(Option<u64>, String)> {
        if let Some(n) = self.tally.failure {
            return Some((Some(n), "invalid UTF-8".into()));
        }
        let why = self.not_session()?;
        Some((None, format!("not a Codex session: {why}")))
    }

    fn no_header(&self) -> (Option<u64>, String) {
        let why = match self.header {
            Some(_) => "not a session: no user or assistant message",
            None => Self::NO_LINE,
        };
        (None, why.into())
    }
}

/// The session a `session_meta` describes.
fn header_of(meta: &Meta<'_>, file_modified: Option<u64>) -> SessionHeader {
    let created_at = [&meta.timestamp, &meta.line_timestamp]
        .into_iter()
        .flatten()
        .find_map(|t| text::rfc3339_millis(t))
        .or(file_modified)
        // Only a full read knows no modification time; its header's
        // `createdAt` is not used (the index's is).
        .unwrap_or(0);
    let label = meta
        .subagent
        .then(|| {
            [
                &meta.agent_nickname,
                &meta.spawn_nickname,
                &meta.agent_role,
                &meta.spawn_role,
            ]
            .into_iter()
            .flatten()
            .find_map(|name| text::given_title(name))
        })
        .flatten();
    SessionHeader {
        version: 0,
        id: meta.id.to_string(),
        created_at,
        cwd: meta.cwd.as_deref().map(str::to_string),
        label,
    }
}

/// The candidates for a session's title, in order of precedence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Titles {
    /// The last non-empty `thread_name_updated`, trimmed.
    pub named: Option<String>,
    /// The first `user_message` event with text, cut to 80.
    pub first_event: Option<String>,
    /// The first projected user message, cut to 80.
    pub first_message: Option<String>,
}

impl Titles {
    /// Whether the first projected user message can no longer matter:
    /// a candidate before it is set (they are never unset) or it is known.
    pub fn settled(&self) -> bool {
        self.named.is_some() || self.first_event.is_some() || self.first_message.is_some()
    }

    pub fn title(&self) -> Option<String> {
        self.named
            .clone()
            .or_else(|| self.first_event.clone())
            .or_else(|| self.first_message.clone())
    }
}

/// Turns lines into surface events (messages and checkpoints).
#[derive(Debug, Clone, Default)]
pub struct Surface {
    /// The rollout has no `response_item` message: its `user_message` and
    /// `agent_message` events are its messages.
    pub events_only: bool,
    /// The last checkpoint's text: a user message repeating it after the
    /// checkpoint is not shown twice.
    pub checkpoint_text: Option<String>,
}

impl Surface {
    /// The events of one line whose seq is `base`.
    pub fn push<'a>(&mut self, base: u64, line: Line<'a>, sink: &mut dyn FnMut(Entry<'a>)) {
        let event = match line {
            Line::Item(item) => self.message(item),
            Line::UserEvent(text) if self.events_only => self.user(text::person_text(text)),
            Line::AgentEvent(text) if self.events_only => Some(Event::Message {
                role: Role::Assistant,
                text,
            }),
            Line::Compacted { message, history } => {
                self.compacted(base, message, history, sink);
                return;
            }
            Line::ThreadName(Some(name)) if !name.trim().is_empty() => {
                Some(Event::Title(Cow::Owned(name.trim().to_string())))
            }
            Line::Window(Some(window)) => Some(Event::Capacity(Some(window))),
            _ => None,
        };
        if let Some(event) = event {
            sink(Entry { seq: base, event });
        }
    }

    /// A checkpoint shadowing every earlier line, then the messages of its
    /// replacement history.
    fn compacted<'a>(
        &mut self,
        base: u64,
        message: Cow<'a, str>,
        history: Option<Vec<Item<'a>>>,
        sink: &mut dyn FnMut(Entry<'a>),
    ) {
        let history = history.unwrap_or_default();
        let text = if !message.trim().is_empty() {
            message
        } else if history.iter().any(|i| matches!(i, Item::Compaction)) {
            Cow::Borrowed(ENCRYPTED_SUMMARY)
        } else {
            Cow::Borrowed("")
        };
        self.checkpoint_text = (!text.is_empty()).then(|| text.to_string());
        sink(Entry {
            seq: base,
            event: Event::Checkpoint {
                through_seq: base.saturating_sub(1),
                text,
            },
        });
        let mut offset = 0;
        for item in history {
            if let Some(event) = self.message(item) {
                offset = (offset + 1).min(SPACING - 1);
                sink(Entry {
                    seq: base.saturating_add(offset),
                    event,
                });
            }
        }
    }

    /// A response item's message, if it projects one.
    fn message<'a>(&self, item: Item<'a>) -> Option<Event<'a>> {
        let Item::Message { role, blocks } = item else {
            return None;
        };
        match role.as_ref() {
            "user" => {
                let texts = blocks
                    .into_iter()
                    .filter(|b| b.kind == BlockKind::InputText)
                    .map(|b| b.text)
                    .filter(|t| !text::is_injected_context(t))
                    .map(text::person_text);
                self.user(join(texts))
            }
            "assistant" => {
                let texts = blocks
                    .into_iter()
                    .filter(|b| b.kind == BlockKind::OutputText)
                    .map(|b| b.text);
                let text = join(texts);
                (!text.is_empty()).then_some(Event::Message {
                    role: Role::Assistant,
                    text,
                })
            }
            // `developer` and `system` messages are never projected.
            _ => None,
        }
    }

    fn user<'a>(&self, text: Cow<'a, str>) -> Option<Event<'a>> {
        if text.is_empty() || self.checkpoint_text.as_deref() == Some(text.as_ref()) {
            return None;
        }
        Some(Event::Message {
            role: Role::User,
            text,
        })
    }
}

/// Texts joined with `"\n"`; a single text is passed on without a copy.
fn join<'a>(mut texts: impl Iterator<Item = Cow<'a, str>>) -> Cow<'a, str> {
    let Some(first) = texts.next() else {
        return Cow::Borrowed("");
    };
    let Some(second) = texts.next() else {
        return first;
    };
    let mut joined = first.into_owned();
    for text in std::iter::once(second).chain(texts) {
        joined.push('\n');
        joined.push_str(&text);
    }
    Cow::Owned(joined)
}
