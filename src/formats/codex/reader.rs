//! Reading one rollout as it is at one moment.
//!
//! Whether `event_msg` messages are projected depends on the whole file (a
//! rollout with no `response_item` message at all), so a first pass looks
//! for one. It stops at the first such message, which Codex writes within
//! a rollout's first lines; only an events-only rollout is read twice.
//! Both passes stop at the size the first open saw. Memory holds one chunk
//! plus the longest line, never the file.

use memchr::memmem;

use super::line::{self, Item, Line};
use super::track::Tracker;
use crate::formats::lines::Flow;
use crate::formats::toolkit::driver;
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};

/// Reads a whole rollout, handing its surface events to `sink` in order.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let fail = |line: Option<u64>, reason: String| driver::log_error(log, line, reason);
    let (has_message, size) = has_response_message(log, cancelled)?;
    let mut tracker = Tracker::for_read(!has_message);
    let consumed = driver::walk(log, Some(size), cancelled, &mut |raw| {
        tracker.line(raw, sink);
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
    let header = match tracker.header {
        Some(Ok(_)) if !tracker.is_session() => {
            return Err(fail(
                None,
                "not a session: no user or assistant message".into(),
            ))
        }
        Some(Ok(header)) => header,
        Some(Err(why)) => return Err(fail(None, format!("not a Codex session: {why}"))),
        None => {
            return Err(fail(
                None,
                "not a Codex session: no complete session_meta line".into(),
            ))
        }
    };
    Ok(ReadSummary {
        header,
        captured_through_seq: Some(tracker.lines),
        title: tracker.titles.title(),
        capacity: tracker.capacity,
        skipped_lines: tracker.skipped,
        // Up to the last complete line: a read limited to it sees the same
        // lines in both passes, so it decides events-only the same way.
        bytes: consumed,
    })
}

/// Whether any complete line is a `response_item` message (any role), and
/// the size the log had when it was opened.
fn has_response_message(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
) -> Result<(bool, u64), ReadError> {
    let finder = memmem::Finder::new(b"\"response_item\"");
    let mut found = false;
    let walked = driver::walk(log, None, cancelled, &mut |raw| {
        // Only lines that can be response items are parsed.
        if finder.find(raw).is_some()
            && matches!(line::parse_line(raw), Ok(Line::Item(Item::Message { .. })))
        {
            found = true;
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    })?;
    Ok((found, walked.size))
}
