//! Reading one Cursor transcript as it is at one moment: one pass, in
//! memory that grows only with the model's current run of lines (joined
//! into one message when the run ends).

use super::track::Tracker;
use crate::formats::lines::Flow;
use crate::formats::toolkit::driver;
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};

/// Reads a whole transcript, handing its surface events to `sink` in order.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let fail = |line: Option<u64>, reason: String| driver::log_error(log, line, reason);
    let mut tracker = Tracker::new(true);
    tracker.file_modified = log.modified_ms();
    match log.path() {
        Some(path) => tracker.place(path),
        None => tracker.name(log.name()),
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
    // The last run ends with the log.
    tracker.end_run(sink);
    let Some(header) = tracker.header().cloned() else {
        let why = if tracker.lines == 0 {
            "not a Cursor transcript: no complete line"
        } else {
            "not a session: no user or assistant message"
        };
        return Err(fail(None, why.into()));
    };
    Ok(ReadSummary {
        header,
        captured_through_seq: Some(tracker.lines),
        title: tracker.title(),
        capacity: None,
        skipped_lines: tracker.skipped,
        bytes,
    })
}
