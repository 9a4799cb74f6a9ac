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
use crate::formats::lines::{self, Flow, LinesError};
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, LogError, ReadError, ReadSummary};

/// Reads a whole rollout, handing its surface events to `sink` in order.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let fail = |line: Option<u64>, reason: String| {
        ReadError::Log(LogError {
            file: log.name().to_string(),
            line,
            reason,
        })
    };
    let (mut reader, size) = log.open(None).map_err(|e| fail(None, e.to_string()))?;
    let has_message =
        has_response_message(&mut reader, size, cancelled).map_err(|e| walk_error(e, &fail))?;
    drop(reader);

    let (mut reader, size) = log
        .open(Some(size))
        .map_err(|e| fail(None, e.to_string()))?;
    let mut tracker = Tracker::for_read(!has_message);
    let consumed = lines::for_each_line::<()>(&mut reader, size, cancelled, &mut |raw| {
        tracker.line(raw, sink);
        Ok(if tracker.is_done() {
            Flow::Stop
        } else {
            Flow::Continue
        })
    })
    .map_err(|e| walk_error(e, &fail))?;

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

/// Whether any complete line is a `response_item` message (any role).
fn has_response_message(
    reader: &mut dyn std::io::Read,
    size: u64,
    cancelled: Cancelled<'_>,
) -> Result<bool, LinesError<()>> {
    let finder = memmem::Finder::new(b"\"response_item\"");
    let mut found = false;
    lines::for_each_line::<()>(reader, size, cancelled, &mut |raw| {
        // Only lines that can be response items are parsed.
        if finder.find(raw).is_some()
            && matches!(line::parse_line(raw), Ok(Line::Item(Item::Message { .. })))
        {
            found = true;
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    })?;
    Ok(found)
}

fn walk_error(e: LinesError<()>, fail: &dyn Fn(Option<u64>, String) -> ReadError) -> ReadError {
    match e {
        LinesError::Io(e) => fail(None, e.to_string()),
        LinesError::Cancelled | LinesError::Line(()) => ReadError::Cancelled,
        LinesError::TooLong => fail(None, too_long()),
    }
}

fn too_long() -> String {
    format!(
        "a line longer than {} MiB",
        crate::formats::lines::MAX_READ_LINE >> 20
    )
}
