//! The surface of one Copilot Chat session: the log is replayed to its
//! final state (by [`super::track::Tracker`]), whose requests are then
//! projected. Memory holds that state (agent-logs-more.md "Memory": a
//! replayed format's exception), never the file.

use std::borrow::Cow;

use serde_json::Value;

use super::surface;
use crate::formats::text;
use crate::model::{Entry, Role};

/// The surface of the final state: request `i` is the user message at
/// seq `2i + 1` and its answer at `2i + 2` (pending requests are not).
pub fn project(state: &Value, sink: &mut dyn FnMut(Entry<'_>)) {
    for (i, request) in surface::requests(state).iter().enumerate() {
        if surface::is_hidden(request) {
            continue;
        }
        let seq = 2 * i as u64 + 1;
        if let Some(asked) = surface::user_text(request).filter(|t| !t.trim().is_empty()) {
            sink(Entry::message(
                seq,
                Role::User,
                text::person_text(Cow::Borrowed(asked)),
            ));
        }
        let answer = surface::assistant_text(request);
        if !answer.trim().is_empty() {
            sink(Entry::message(seq + 1, Role::Assistant, answer));
        }
    }
}
