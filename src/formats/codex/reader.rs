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
use crate::formats::toolkit::track::read_with;
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};

/// Reads a whole rollout, handing its surface events to `sink` in order.
/// The second pass stops at the size the first saw, so both see the same
/// lines and decide events-only alike.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let (has_message, size) = has_response_message(log, cancelled)?;
    read_with(
        log,
        Tracker::reading(!has_message),
        Some(size),
        cancelled,
        sink,
    )
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
