//! The events of a hydra log (session-log.md "Lines"): each line
//! validated in order, and its format-neutral meaning.

use std::borrow::Cow;

use super::line::{self, EventBody, LineError, SourceKind};
use crate::model::{Entry, Event, Role};

/// Validation state carried from line to line; resumable, so an index can
/// parse only what was appended since its last read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventCursor {
    /// Lines consumed so far (line 1 is the header).
    pub line: u64,
    /// The seq of the last event line: the log's `capturedThroughSeq`.
    pub last_seq: Option<u64>,
    /// The latest non-empty `session/title`.
    pub title: Option<String>,
    /// The model capacity: the last `route/assembled`'s, else the header's.
    pub capacity: Option<u64>,
}

impl Default for EventCursor {
    fn default() -> Self {
        Self::after_header()
    }
}

impl EventCursor {
    pub fn after_header() -> Self {
        Self {
            line: 1,
            last_seq: None,
            title: None,
            capacity: None,
        }
    }

    /// The cursor after a header that records `capacity`.
    pub fn after_header_with(capacity: Option<u64>) -> Self {
        Self {
            capacity,
            ..Self::after_header()
        }
    }

    /// Accepts one complete line (without its line end).
    pub fn accept<'l>(
        &mut self,
        raw: &'l [u8],
    ) -> Result<Option<line::Event<'l>>, (u64, LineError)> {
        self.line += 1;
        if raw.is_empty() {
            return Ok(None);
        }
        let event = line::parse_event(raw).map_err(|e| (self.line, e))?;
        if self.last_seq.is_some_and(|last| event.seq <= last) {
            return Err((self.line, LineError::SeqNotIncreasing));
        }
        self.last_seq = Some(event.seq);
        match &event.body {
            EventBody::Title(title) if !title.is_empty() => self.title = Some(title.to_string()),
            EventBody::Route(capacity) => self.capacity = *capacity,
            _ => {}
        }
        Ok(Some(event))
    }
}

/// The format-neutral meaning of a hydra event.
pub fn to_entry(event: line::Event<'_>) -> Entry<'_> {
    let event_kind = match event.body {
        EventBody::UserMessage { source, texts } => match source {
            SourceKind::User => Event::Message {
                role: Role::User,
                text: join(texts),
            },
            SourceKind::Checkpoint { through_seq } => Event::Checkpoint {
                through_seq,
                text: join(texts),
            },
            SourceKind::Other => Event::Other,
        },
        EventBody::AssistantMessage { texts } => Event::Message {
            role: Role::Assistant,
            text: join(texts),
        },
        EventBody::Title(title) => Event::Title(title),
        EventBody::Route(capacity) => Event::Capacity(capacity),
        EventBody::ToolResult | EventBody::Other => Event::Other,
    };
    Entry {
        seq: event.seq,
        event: event_kind,
    }
}

/// Text blocks joined with `"\n"`; one block is passed on without a copy.
fn join(mut texts: Vec<Cow<'_, str>>) -> Cow<'_, str> {
    match texts.len() {
        0 => Cow::Borrowed(""),
        1 => texts.swap_remove(0),
        _ => Cow::Owned(texts.join("\n")),
    }
}
