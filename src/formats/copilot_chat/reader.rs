//! Reading one Copilot Chat session as it is at one moment: the log is
//! replayed to its final state, whose requests are then projected. Memory
//! holds that state (agent-logs-more.md "Memory": a replayed format's
//! exception), never the file.

use std::borrow::Cow;

use serde_json::Value;

use super::place::Place;
use super::surface;
use super::track::Tracker;
use crate::formats::lines::Flow;
use crate::formats::text;
use crate::formats::toolkit::driver;
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, Event, ReadError, ReadSummary, Role};

/// Reads a whole session, handing its surface events to `sink` in order.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let fail = |line: Option<u64>, reason: String| driver::log_error(log, line, reason);
    let mut tracker = Tracker::default();
    tracker.file_modified = log.modified_ms();
    if let Some(path) = log.path() {
        tracker.place = Place::of(path);
    }
    let bytes = driver::walk(log, None, cancelled, &mut |raw| {
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
            "not a Copilot Chat session: no complete line"
        } else {
            "not a Copilot Chat session: no array `requests`"
        };
        return Err(fail(None, why.into()));
    };
    let captured = if tracker.is_document() {
        tracker.requests()
    } else {
        tracker.lines
    };
    let summary = ReadSummary {
        header,
        captured_through_seq: Some(captured),
        title: tracker.title(),
        capacity: tracker.capacity(),
        skipped_lines: tracker.skipped,
        bytes,
    };
    if let Some(state) = tracker.into_state() {
        project(&state, sink);
    }
    Ok(summary)
}

/// The surface of the final state: request `i` is the user message at
/// seq `2i + 1` and its answer at `2i + 2` (pending requests are not).
fn project(state: &Value, sink: &mut dyn FnMut(Entry<'_>)) {
    for (i, request) in surface::requests(state).iter().enumerate() {
        if surface::is_hidden(request) {
            continue;
        }
        let seq = 2 * i as u64 + 1;
        if let Some(asked) = surface::user_text(request).filter(|t| !t.trim().is_empty()) {
            sink(Entry {
                seq,
                event: Event::Message {
                    role: Role::User,
                    text: text::person_text(Cow::Borrowed(asked)),
                },
            });
        }
        let answer = surface::assistant_text(request);
        if !answer.trim().is_empty() {
            sink(Entry {
                seq: seq + 1,
                event: Event::Message {
                    role: Role::Assistant,
                    text: Cow::Owned(answer),
                },
            });
        }
    }
}
