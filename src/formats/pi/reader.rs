//! A full read of a Pi session file, in memory that does not grow with
//! the text (agent-logs-files-3.md "Pi"; agent-logs.md "Speed").
//!
//! The live branch hangs from the file's last entry, so it is known only
//! once every line is read: pass 1 runs the scan's [`Tracker`] keeping the
//! entries' [`Tree`](super::tree::Tree) (a few integers per entry, no
//! text); pass 2 reads the compaction that decides the surface, when there
//! is one (Pi puts its summary before the kept tail, which is earlier in
//! the file); pass 3 streams the same bytes again and parses only the
//! path's messages, in file order.

use std::borrow::Cow;

use super::entry::{self, Kind, Line};
use super::track::Tracker;
use crate::formats::copilot_cli::track::NO_SUMMARY;
use crate::formats::lines::Flow;
use crate::formats::toolkit::driver;
use crate::formats::toolkit::track::{whole_pass, Track};
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, Event, ReadError, ReadSummary};

/// Reads the whole session file as it is now, handing its surface to `sink`.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let (mut tracker, bytes, header) = whole_pass::<Tracker>(log, cancelled)?;
    let plan = tracker
        .take_tree()
        .map(|tree| tree.plan(tracker.is_tree()))
        .unwrap_or_default();

    if let Some(checkpoint) = plan.checkpoint {
        let mut summary = None;
        let mut line_no = 0u64;
        driver::walk(log, Some(bytes), cancelled, &mut |raw| {
            line_no += 1;
            if line_no < checkpoint.line {
                return Ok(Flow::Continue);
            }
            if let Line::Entry(entry::Entry {
                kind: Kind::Compaction { summary: s, .. },
                ..
            }) = entry::parse(raw)
            {
                summary = s.map(Cow::into_owned);
            }
            Ok(Flow::Stop)
        })?;
        let text = summary
            .filter(|s| !s.trim().is_empty())
            .map_or(Cow::Borrowed(NO_SUMMARY), Cow::Owned);
        sink(Entry {
            seq: checkpoint.seq,
            event: Event::Checkpoint {
                through_seq: checkpoint.seq.saturating_sub(1),
                text,
            },
        });
    }

    let mut next = plan.lines.iter().copied().peekable();
    let mut line_no = 0u64;
    driver::walk(log, Some(bytes), cancelled, &mut |raw| {
        line_no += 1;
        let Some(&planned) = next.peek() else {
            return Ok(Flow::Stop);
        };
        if planned != line_no {
            return Ok(Flow::Continue);
        }
        next.next();
        // The bytes parsed in pass 1; a line that no longer reads as a
        // message was replaced in between and is left out.
        if let Line::Entry(entry::Entry {
            kind: Kind::Message(role, text),
            ..
        }) = entry::parse(raw)
        {
            sink(Entry::message(line_no, role, text));
        }
        Ok(Flow::Continue)
    })?;

    Ok(ReadSummary {
        header,
        captured_through_seq: Some(tracker.lines()),
        title: tracker.title(),
        capacity: None,
        skipped_lines: tracker.skipped(),
        bytes,
    })
}
