//! Reading a transcript's live branch in memory that does not grow with
//! the text (agent-logs.md "Claude Code", "Speed").
//!
//! The surface is known only once the last line is seen (it hangs from the
//! last user/assistant line), so the log is read twice:
//!
//! 1. every line is parsed without its texts; the metadata is gathered and
//!    each tree line is recorded as a few hashed integers (uuid, parent,
//!    `message.id`, flags). The live branch is then walked from its leaf.
//! 2. the same bytes are streamed again and only the lines to project are
//!    parsed, in file order. Lines of one split assistant message are
//!    merged at the first of them by a small reorder buffer.
//!
//! Per user/assistant line (and any other line with a uuid), pass 1 keeps
//! about 30 bytes, whatever the line's size.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::hash::BuildHasher;

use super::line::{self, Kind, Line};
use super::meta::{self, Meta};
use crate::formats::lines::Flow;
use crate::formats::toolkit::driver;
use crate::formats::toolkit::track::{verdict, walk_tracked, Track};
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, Event, ReadError, ReadSummary, Role};

/// Past this many bytes of text held back for split messages, the oldest
/// is emitted as it stands (its later parts become messages of their own),
/// so an adversarial log cannot make the buffer grow with it.
const REORDER_CAP: usize = 4 << 20;

const USER: u8 = 1;
const ASSISTANT: u8 = 2;
const SIDECHAIN: u8 = 4;
/// A chain line with nothing to project (tool results, `isMeta`, lines
/// without text): pass 2 need not parse it.
const SILENT: u8 = 8;

/// "None" for a `u32` index.
const NONE: u32 = u32::MAX;

/// A 64-bit hash of an id, kept in memory only; never 0, which stands for
/// "none".
fn id_hash(id: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(id).max(1)
}

fn opt_hash(id: Option<&str>) -> u64 {
    id.map_or(0, id_hash)
}

/// The tree of pass 1, one column per field so a node costs about 25
/// bytes (no padding, no hash-map buckets): every user and assistant line,
/// and any other line with a uuid.
#[derive(Default)]
struct Tree {
    /// Line number of each node.
    lines: Vec<u32>,
    flags: Vec<u8>,
    /// Hashes of each node's uuid and parent (0 = none).
    uuids: Vec<u64>,
    parents: Vec<u64>,
    /// Assistant nodes with a `message.id`: node index and id hash, in
    /// node order.
    msg_nodes: Vec<u32>,
    msg_ids: Vec<u64>,
    last_any: Option<u32>,
    last_main: Option<u32>,
}

/// What pass 2 projects: lines in file order, and per split message its
/// number of planned lines.
struct Plan {
    lines: Vec<Planned>,
    parts: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct Planned {
    line: u32,
    /// The split message it belongs to (an index of `parts`), or `NONE`.
    group: u32,
    /// Whether it has text to parse; a silent part only places and
    /// completes its message.
    parse: bool,
}

impl Tree {
    fn record(&mut self, line_no: u64, l: &Line<'_>) {
        let mut flags = match l.kind {
            Kind::User => USER,
            Kind::Assistant => ASSISTANT,
            // Any line with a uuid may be a parent: `progress` and
            // `attachment` lines sit inside chains.
            _ if l.uuid.is_some() => 0,
            _ => return,
        };
        // Past 2^32 − 1 lines (a 64 GB file at least) nothing is recorded:
        // those lines are never on the surface.
        let (Ok(line), Ok(index)) = (u32::try_from(line_no), u32::try_from(self.lines.len()))
        else {
            return;
        };
        if index == NONE {
            return;
        }
        if l.is_sidechain {
            flags |= SIDECHAIN;
        }
        let silent = match l.kind {
            Kind::User if l.is_compact_summary => false,
            Kind::User => l.is_meta || !l.has_text(),
            _ => !l.has_text(),
        };
        if silent {
            flags |= SILENT;
        }
        // Crossing a compaction: the boundary's logical parent is the last
        // line before it.
        let parent = match (l.compact_boundary, l.logical_parent_uuid.as_deref()) {
            (true, Some(logical)) => id_hash(logical),
            _ => opt_hash(l.parent_uuid.as_deref()),
        };
        self.lines.push(line);
        self.flags.push(flags);
        self.uuids.push(opt_hash(l.uuid.as_deref()));
        self.parents.push(parent);
        if let (Kind::Assistant, Some(id)) = (l.kind, l.message_id.as_deref()) {
            self.msg_nodes.push(index);
            self.msg_ids.push(id_hash(id));
        }
        if flags & (USER | ASSISTANT) != 0 {
            self.last_any = Some(index);
            if flags & SIDECHAIN == 0 {
                self.last_main = Some(index);
            }
        }
    }

    /// Marks the live branch: the chain from the leaf back to a root.
    fn walk(&mut self, leaf: Option<u32>) -> Vec<bool> {
        let n = self.lines.len();
        // Node indices sorted by uuid (then index, so a repeated uuid
        // resolves to its first line): a binary search finds a parent.
        let mut order: Vec<u32> = (0..n)
            .filter(|&i| self.uuids.get(i).is_some_and(|&u| u != 0))
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        let uuids = std::mem::take(&mut self.uuids);
        let key = |i: u32| uuids.get(i as usize).copied().unwrap_or(0);
        order.sort_unstable_by_key(|&i| (key(i), i));
        let find = |hash: u64| -> Option<u32> {
            let at = order.partition_point(|&i| key(i) < hash);
            order.get(at).copied().filter(|&i| key(i) == hash)
        };
        let mut on = vec![false; n];
        let mut cur = leaf;
        while let Some(i) = cur {
            match on.get_mut(i as usize) {
                Some(seen) if !*seen => *seen = true,
                // A cycle, or out of range: the chain ends.
                _ => break,
            }
            cur = self
                .parents
                .get(i as usize)
                .copied()
                .filter(|&p| p != 0)
                .and_then(find);
        }
        self.parents = Vec::new();
        on
    }

    /// The lines to project, in file order.
    fn plan(mut self, sub_agent: bool) -> Plan {
        let leaf = if sub_agent {
            self.last_any
        } else {
            self.last_main
        };
        let on = self.walk(leaf);
        let flags = &self.flags;
        let flag = |i: u32| flags.get(i as usize).copied().unwrap_or(0);
        let excluded = |i: u32| !sub_agent && flag(i) & SIDECHAIN != 0;
        let is_on = |i: u32| on.get(i as usize).copied().unwrap_or(false);
        // Message ids of the live assistant lines. A split message's parts
        // may hang off side branches (parallel tool calls fork the tree):
        // the message is live as a whole.
        let mut live: Vec<u64> = self
            .msg_nodes
            .iter()
            .zip(&self.msg_ids)
            .filter(|(&i, _)| is_on(i) && !excluded(i))
            .map(|(_, &id)| id)
            .collect();
        live.sort_unstable();
        live.dedup();
        let mut lines = Vec::new();
        // (message id, position in `lines`) of planned assistant lines.
        let mut keyed: Vec<(u64, u32)> = Vec::new();
        let mut msgs = self.msg_nodes.iter().zip(&self.msg_ids).peekable();
        for (i, &line) in (0u32..).zip(&self.lines) {
            let msg = match msgs.peek() {
                Some((&m, &id)) if m == i => {
                    msgs.next();
                    Some(id)
                }
                _ => None,
            };
            if excluded(i) || flag(i) & (USER | ASSISTANT) == 0 {
                continue;
            }
            // A silent line is planned only as a part of a message, which
            // it may place (a thinking line before the text).
            let silent = flag(i) & SILENT != 0;
            if silent && msg.is_none() {
                continue;
            }
            let live_part = msg.is_some_and(|id| live.binary_search(&id).is_ok());
            if is_on(i) || live_part {
                let Ok(pos) = u32::try_from(lines.len()) else {
                    break;
                };
                if let Some(id) = msg {
                    keyed.push((id, pos));
                }
                lines.push(Planned {
                    line,
                    group: NONE,
                    parse: !silent,
                });
            }
        }
        drop((on, live, self));
        // Lines sharing a message id form a split message.
        keyed.sort_unstable();
        let mut parts = Vec::new();

        for run in keyed.chunk_by(|a, b| a.0 == b.0) {
            let (Ok(count), Ok(group)) = (u32::try_from(run.len()), u32::try_from(parts.len()))
            else {
                continue;
            };
            if count < 2 {
                continue;
            }
            parts.push(count);
            for &(_, pos) in run {
                if let Some(slot) = lines.get_mut(pos as usize) {
                    slot.group = group;
                }
            }
        }
        Plan { lines, parts }
    }
}

/// Reads a whole transcript as it is now, handing its surface to `sink`.
pub fn read_log(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    // Pass 1: metadata and tree.
    let mut meta = Meta::for_read();
    let mut tree = Tree::default();
    let consumed = walk_tracked(log, &mut meta, None, cancelled, &mut |meta, raw| {
        if let Some(parsed) = meta.raw_line(raw) {
            tree.record(meta.lines(), &parsed);
        }
    })?
    .bytes;
    let header = verdict(log, &meta)?;
    let Plan { lines: plan, parts } = tree.plan(meta.is_sub_agent());

    // Pass 2: the planned lines, over the same bytes.
    let mut reorder = Reorder::new(parts);
    let mut next = plan.iter().copied().peekable();
    let mut line_no = 0u64;
    driver::walk(log, Some(consumed), cancelled, &mut |raw| {
        line_no += 1;
        let Some(&planned) = next.peek() else {
            return Ok(Flow::Stop);
        };
        if u64::from(planned.line) != line_no {
            return Ok(Flow::Continue);
        }
        next.next();
        let group = planned.group;
        if !planned.parse {
            if group != NONE {
                reorder.assistant(line_no, group, Cow::Borrowed(""), sink);
            }
            return Ok(Flow::Continue);
        }
        let text =
            simdutf8::basic::from_utf8(raw).map_err(|_| (line_no, "invalid UTF-8".to_string()))?;
        // The bytes parsed in pass 1; a line that no longer parses was
        // replaced in between and is skipped.
        if let Ok(l) = line::parse(text, true) {
            project(&l, line_no, group, &mut reorder, sink);
        }
        Ok(Flow::Continue)
    })?;
    reorder.finish(sink);

    Ok(ReadSummary {
        header,
        captured_through_seq: meta.captured_through_seq(),
        title: meta.title(),
        capacity: None,
        skipped_lines: meta.skipped(),
        bytes: consumed,
    })
}

/// The surface event of one planned line.
fn project(
    l: &Line<'_>,
    seq: u64,
    group: u32,
    reorder: &mut Reorder,
    sink: &mut dyn FnMut(Entry<'_>),
) {
    match l.kind {
        Kind::User if l.is_compact_summary => reorder.push(
            Entry {
                seq,
                // Shadows everything on the branch before it.
                event: Event::Checkpoint {
                    through_seq: seq.saturating_sub(1),
                    text: meta::all_text(&l.content),
                },
            },
            sink,
        ),
        Kind::User => {
            if let Some(text) = meta::user_text(l) {
                reorder.push(Entry::message(seq, Role::User, text), sink);
            }
        }
        Kind::Assistant => reorder.assistant(seq, group, meta::all_text(&l.content), sink),
        _ => {}
    }
}

/// A surface event held back behind an unfinished split message.
struct Held {
    seq: u64,
    event: HeldEvent,
    /// The split message this is (`NONE`: a complete event).
    group: u32,
}

enum HeldEvent {
    Message(Role, String),
    Checkpoint(u64, String),
}

impl Held {
    fn text_len(&self) -> usize {
        match &self.event {
            HeldEvent::Message(_, t) | HeldEvent::Checkpoint(_, t) => t.len(),
        }
    }

    fn into_entry(self) -> Entry<'static> {
        let event = match self.event {
            HeldEvent::Message(role, text) => Event::Message {
                role,
                text: Cow::Owned(text),
            },
            HeldEvent::Checkpoint(through_seq, text) => Event::Checkpoint {
                through_seq,
                text: Cow::Owned(text),
            },
        };
        Entry {
            seq: self.seq,
            event,
        }
    }
}

/// Keeps entries in `seq` order while split assistant messages gather
/// their parts: an entry waits only behind an unfinished message.
struct Reorder {
    held: VecDeque<Held>,
    held_bytes: usize,
    /// Per split message, its planned lines not yet seen.
    remaining: Vec<u32>,
}

impl Reorder {
    fn new(parts: Vec<u32>) -> Self {
        Self {
            held: VecDeque::new(),
            held_bytes: 0,
            remaining: parts,
        }
    }

    fn push(&mut self, entry: Entry<'_>, sink: &mut dyn FnMut(Entry<'_>)) {
        if self.held.is_empty() {
            sink(entry);
            return;
        }
        let event = match entry.event {
            Event::Message { role, text } => HeldEvent::Message(role, text.into_owned()),
            Event::Checkpoint { through_seq, text } => {
                HeldEvent::Checkpoint(through_seq, text.into_owned())
            }
            _ => return,
        };
        self.hold(Held {
            seq: entry.seq,
            event,
            group: NONE,
        });
        self.flush(sink);
    }

    fn assistant(
        &mut self,
        seq: u64,
        group: u32,
        text: Cow<'_, str>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) {
        let Some(left) = self.remaining.get_mut(group as usize) else {
            // Not split: one line, one message.
            return self.push(Entry::message(seq, Role::Assistant, text), sink);
        };
        *left = left.saturating_sub(1);
        let open = self
            .held
            .iter_mut()
            .rev()
            .find(|h| h.group == group && matches!(h.event, HeldEvent::Message(..)));
        match open {
            Some(held) => {
                if let HeldEvent::Message(_, joined) = &mut held.event {
                    if !text.is_empty() {
                        if !joined.is_empty() {
                            joined.push('\n');
                            self.held_bytes += 1;
                        }
                        joined.push_str(&text);
                        self.held_bytes += text.len();
                    }
                }
            }
            None => self.hold(Held {
                seq,
                event: HeldEvent::Message(Role::Assistant, text.into_owned()),
                group,
            }),
        }
        self.flush(sink);
    }

    fn hold(&mut self, held: Held) {
        self.held_bytes += held.text_len();
        self.held.push_back(held);
    }

    fn is_complete(&self, held: &Held) -> bool {
        self.remaining
            .get(held.group as usize)
            .is_none_or(|&n| n == 0)
    }

    /// Emits every leading entry that is complete, and the oldest ones
    /// regardless while too much is held.
    fn flush(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        while let Some(front) = self.held.front() {
            if !self.is_complete(front) && self.held_bytes <= REORDER_CAP {
                return;
            }
            if let Some(front) = self.held.pop_front() {
                self.held_bytes -= front.text_len();
                sink(front.into_entry());
            }
        }
    }

    /// Emits what is left (parts that never came: the file changed).
    fn finish(mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        while let Some(front) = self.held.pop_front() {
            sink(front.into_entry());
        }
    }
}
