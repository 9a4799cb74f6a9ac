//! The surface of one Gemini CLI session: the log is replayed to its
//! final message list (by [`super::track::Tracker`]), which is then
//! projected. Memory
//! holds that list (agent-logs-more.md "Memory": a replayed format's
//! exception), never the file.

use std::borrow::Cow;

use super::record::{Kind, Message};
use super::replay::Item;
use super::track::{self, Kept, SNAPSHOT};
use crate::formats::text;
use crate::model::{Entry, Event, Role};

/// What Gemini CLI answers a compression's summary turn with.
const SNAPSHOT_ACK: &str = "Got it. Thanks for the additional context!";

impl Item for Message {
    fn counts(&self) -> bool {
        track::surface_role(self).is_some()
    }
}

/// A full read keeps the messages, and projects the final list.
impl Kept for Message {
    fn keep(m: Message) -> Message {
        m
    }

    fn project(items: Vec<Message>, sink: &mut dyn FnMut(Entry<'_>)) {
        project(items, sink);
    }
}

/// The surface of the final list: its position is each message's seq; the
/// last snapshot turn is a checkpoint shadowing what precedes it.
fn project(messages: Vec<Message>, sink: &mut dyn FnMut(Entry<'_>)) {
    let checkpoint = messages
        .iter()
        .rposition(|m| m.kind == Kind::User && m.text.contains(SNAPSHOT));
    let start = checkpoint.unwrap_or(0);
    for (i, m) in messages.iter().enumerate().skip(start) {
        let seq = i as u64 + 1;
        if Some(i) == checkpoint {
            sink(Entry {
                seq,
                event: Event::Checkpoint {
                    through_seq: seq - 1,
                    text: Cow::Borrowed(&m.text),
                },
            });
            continue;
        }
        let acknowledges = checkpoint.is_some_and(|c| i == c + 1)
            && m.kind == Kind::Gemini
            && m.text.trim() == SNAPSHOT_ACK;
        let event = match track::surface_role(m) {
            Some(_) if acknowledges => Event::Other,
            Some(Role::User) => Event::Message {
                role: Role::User,
                text: text::person_text(Cow::Borrowed(&m.text)),
            },
            Some(role) => Event::Message {
                role,
                text: Cow::Borrowed(&m.text),
            },
            None => Event::Other,
        };
        sink(Entry { seq, event });
    }
}
