//! Reading one Gemini CLI session as it is at one moment: the log is
//! replayed to its final message list, which is then projected. Memory
//! holds that list (agent-logs-more.md "Memory": a replayed format's
//! exception), never the file.

use std::borrow::Cow;

use super::record::{Kind, Message};
use super::replay::Item;
use super::track::{self, Place, Tracker, SNAPSHOT};
use crate::formats::lines::Flow;
use crate::formats::text;
use crate::formats::toolkit::driver;
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, Event, ReadError, ReadSummary, Role};

/// What Gemini CLI answers a compression's summary turn with.
const SNAPSHOT_ACK: &str = "Got it. Thanks for the additional context!";

impl Item for Message {
    fn counts(&self) -> bool {
        track::surface_role(self).is_some()
    }
}

/// Reads a whole session, handing its surface events to `sink` in order.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let fail = |line: Option<u64>, reason: String| driver::log_error(log, line, reason);
    let mut tracker: Tracker<Message> = Tracker::new(|m| m);
    tracker.file_modified = log.modified_ms();
    if let Some(path) = log.path() {
        tracker.place = Place::of(path);
    }
    let consumed = driver::walk(log, None, cancelled, &mut |raw| {
        tracker.line(raw);
        Ok(if tracker.is_done() {
            Flow::Stop
        } else {
            Flow::Continue
        })
    })?
    .bytes;
    if let Some(n) = tracker.failure {
        return Err(fail(Some(n), "invalid UTF-8".into()));
    }
    if let Some(why) = &tracker.not_session {
        return Err(fail(None, why.clone()));
    }
    let Some(header) = tracker.header().cloned() else {
        let why = if tracker.lines == 0 {
            "not a Gemini CLI session: no complete line"
        } else {
            "not a session: no user or assistant message"
        };
        return Err(fail(None, why.into()));
    };
    let title = tracker.title();
    let captured = if tracker.is_document() {
        tracker.entries
    } else {
        tracker.lines
    };
    let skipped = tracker.skipped;
    project(tracker.replay.into_items().collect(), sink);
    Ok(ReadSummary {
        header,
        captured_through_seq: Some(captured),
        title,
        capacity: None,
        skipped_lines: skipped,
        bytes: consumed,
    })
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
