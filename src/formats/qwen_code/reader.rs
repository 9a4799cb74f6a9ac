//! A full read of a Qwen Code chat file, in memory that does not grow with
//! the text (agent-logs.md "Speed"): pass 1 runs the scan's [`Tracker`]
//! keeping the records' [`Chain`](super::chain::Chain); pass 2 streams the
//! same bytes again and parses only the chain's lines, joining the records
//! of one uuid into one message at its first line. A message is handed on
//! once its last record is read, in order; past [`HELD_CAP`] bytes of text
//! held back, the oldest is handed on as it stands.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::chain::Planned;
use super::record::{self, ContentRole, Line};
use super::track::Tracker;
use super::unverified;
use crate::formats::copilot_cli::track::NO_SUMMARY;
use crate::formats::lines::Flow;
use crate::formats::text;
use crate::formats::toolkit::driver;
use crate::formats::toolkit::track::{whole_pass, Track};
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, Event, ReadError, ReadSummary, Role};

/// Line `n` has seq `n * SPACING`; a compression's retained history
/// `n * SPACING + i`, right after its checkpoint.
pub const SPACING: u64 = 1 << 24;

/// Text held back for messages whose records are still to come.
const HELD_CAP: usize = 4 << 20;

/// A message waiting for its last record.
struct Held {
    node: u64,
    role: Role,
    text: String,
    complete: bool,
}

/// Reads the whole chat file as it is now, handing its surface to `sink`.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let (mut tracker, bytes, header) = whole_pass::<Tracker>(log, cancelled)?;
    let plan = tracker.take_chain().map(|c| c.plan()).unwrap_or_default();

    let mut next = plan.iter().copied().peekable();
    let mut held: VecDeque<Held> = VecDeque::new();
    let mut held_bytes = 0usize;
    // The first line of the last message handed on.
    let mut emitted = 0u64;
    let mut line_no = 0u64;
    driver::walk(log, Some(bytes), cancelled, &mut |raw| {
        line_no += 1;
        let Some(&planned) = next.peek() else {
            return Ok(Flow::Stop);
        };
        if planned.line() != line_no {
            return Ok(Flow::Continue);
        }
        next.next();
        // The bytes parsed in pass 1; a line that no longer reads as a
        // record was replaced in between and adds nothing.
        let Line::Record(r) = record::parse(raw) else {
            return Ok(Flow::Continue);
        };
        match planned {
            Planned::Compression { line } => {
                flush(&mut held, &mut held_bytes, &mut emitted, true, sink);
                compression(line, r.compressed.as_deref().unwrap_or_default(), sink);
            }
            Planned::Part {
                line,
                node,
                role,
                last,
            } => {
                // A message handed on early (over the cap): its later
                // records are messages of their own, at their own lines.
                let (node, last) = if node <= emitted {
                    (line, true)
                } else {
                    (node, last)
                };
                let part = r.text.unwrap_or_default();
                held_bytes += part.len();
                match held.iter_mut().rev().find(|h| h.node == node) {
                    Some(h) => h.text.push_str(&part),
                    None => held.push_back(Held {
                        node,
                        role,
                        text: part,
                        complete: false,
                    }),
                }
                if last {
                    if let Some(h) = held.iter_mut().rev().find(|h| h.node == node) {
                        h.complete = true;
                    }
                }
                flush(&mut held, &mut held_bytes, &mut emitted, false, sink);
            }
        }
        Ok(Flow::Continue)
    })?;
    flush(&mut held, &mut held_bytes, &mut emitted, true, sink);

    Ok(ReadSummary {
        header,
        captured_through_seq: Some(tracker.lines()),
        title: tracker.title(),
        capacity: tracker.capacity(),
        skipped_lines: tracker.skipped(),
        bytes,
    })
}

/// Hands on the held messages from the front that are complete (`all`:
/// every one), and the oldest while the held text is over its cap.
fn flush(
    held: &mut VecDeque<Held>,
    held_bytes: &mut usize,
    emitted: &mut u64,
    all: bool,
    sink: &mut dyn FnMut(Entry<'_>),
) {
    while let Some(front) = held.front() {
        if !(all || front.complete || *held_bytes > HELD_CAP) {
            break;
        }
        let Some(h) = held.pop_front() else { break };
        *held_bytes = held_bytes.saturating_sub(h.text.len());
        *emitted = h.node;
        message(h.node.saturating_mul(SPACING), h.role, h.text, sink);
    }
}

/// A message at `seq`, when its text is not empty after trimming.
fn message(seq: u64, role: Role, text: String, sink: &mut dyn FnMut(Entry<'_>)) {
    if text.trim().is_empty() {
        return;
    }
    let text = match role {
        Role::User => text::person_text(Cow::Owned(text)),
        Role::Assistant => Cow::Owned(text),
    };
    sink(Entry::message(seq, role, text));
}

/// The compaction checkpoint at line `line` and the history it retains.
fn compression(line: u64, history: &[(ContentRole, String)], sink: &mut dyn FnMut(Entry<'_>)) {
    let base = line.saturating_mul(SPACING);
    let (summary, tail) = unverified::compression_summary(history);
    sink(Entry {
        seq: base,
        event: Event::Checkpoint {
            through_seq: base.saturating_sub(1),
            text: Cow::Borrowed(summary.unwrap_or(NO_SUMMARY)),
        },
    });
    let mut offset = 0;
    for (i, (role, text)) in history.iter().enumerate().skip(tail) {
        let role = match role {
            ContentRole::User => Role::User,
            ContentRole::Model => Role::Assistant,
            ContentRole::Other => continue,
        };
        if i == tail && role == Role::Assistant && text == unverified::COMPRESSION_ACK {
            continue;
        }
        offset = (offset + 1).min(SPACING - 1);
        message(base.saturating_add(offset), role, text.clone(), sink);
    }
}
