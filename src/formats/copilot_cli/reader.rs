//! Reading one Copilot CLI session as it is at one moment: one pass, in
//! bounded memory (a compaction is a checkpoint in place; the projection
//! drops what it shadows).

use super::track::Tracker;
use crate::formats::lines::Flow;
use crate::formats::toolkit::driver;
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};

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
        tracker.place(path);
    }
    let bytes = driver::walk(log, None, cancelled, &mut |raw| {
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
    if let Some(why) = &tracker.not_session {
        return Err(fail(None, why.clone()));
    }
    let Some(header) = tracker.header().cloned() else {
        let why = if tracker.lines == 0 {
            "not a Copilot CLI session: no complete line"
        } else {
            "not a session: no user or assistant message"
        };
        return Err(fail(None, why.into()));
    };
    Ok(ReadSummary {
        header,
        captured_through_seq: Some(tracker.lines),
        title: tracker.title(),
        capacity: tracker.capacity,
        skipped_lines: tracker.skipped,
        bytes,
    })
}
