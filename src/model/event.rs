//! The events of a session's log that projection needs, whatever format
//! wrote them.

use std::borrow::Cow;

/// Who said a projected message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One event with its position in the log. `seq` strictly increases
/// through a log; a checkpoint shadows every entry with `seq ≤ through_seq`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry<'a> {
    pub seq: u64,
    pub event: Event<'a>,
}

impl<'a> Entry<'a> {
    /// The message `role` wrote at `seq`: what most of a log's surface is.
    pub fn message(seq: u64, role: Role, text: impl Into<Cow<'a, str>>) -> Self {
        Entry {
            seq,
            event: Event::Message {
                role,
                text: text.into(),
            },
        }
    }
}

/// What an event means for projection (reference.md §3).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Event<'a> {
    /// A message a person or the agent wrote, its text blocks joined with
    /// `"\n"` (possibly empty: projection drops empty messages).
    Message { role: Role, text: Cow<'a, str> },
    /// A compact checkpoint: its text summarises every entry with
    /// `seq ≤ through_seq`. Only the last one decides shadowing, even when
    /// its text is empty.
    Checkpoint {
        through_seq: u64,
        text: Cow<'a, str>,
    },
    /// A title the session was given (the last non-empty one wins).
    Title(Cow<'a, str>),
    /// The model capacity in tokens the session now runs with; `None`
    /// resets it (session-log.md, "Model capacity").
    Capacity(Option<u64>),
    /// Anything else on the surface or off it: tool results, plugin and
    /// injected messages, deltas, unknown types. Never projected.
    Other,
}
