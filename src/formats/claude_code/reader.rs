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
//! Per line, pass 1 keeps about 50 bytes, whatever the line's size.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use super::line::{self, Kind, Line};
use super::meta::{self, Meta};
use crate::formats::lines::{self, Flow, LinesError};
use crate::formats::{HeaderState, LogSource};
use crate::model::{Cancelled, Entry, Event, LogError, ReadError, ReadSummary, Role};

/// Past this many bytes of text held back for split messages, the oldest
/// is emitted as it stands (its later parts become messages of their own),
/// so an adversarial log cannot make the buffer grow with it.
const REORDER_CAP: usize = 4 << 20;

const USER: u8 = 1;
const ASSISTANT: u8 = 2;
const SIDECHAIN: u8 = 4;

/// One tree line, as pass 1 keeps it. Ids are 64-bit hashes (0 = none).
#[derive(Debug, Clone, Copy)]
struct Node {
    line: u64,
    parent: u64,
    msg: u64,
    flags: u8,
}

/// Already-hashed keys need no second hash.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Hashed<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;
type HashedSet = HashSet<u64, BuildHasherDefault<PassThrough>>;

/// A 64-bit hash of an id (FNV-1a, then a splitmix64 finaliser so the
/// low bits the hash map uses are well mixed); never 0.
fn id_hash(id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in id.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    h.max(1)
}

fn opt_hash(id: Option<&str>) -> u64 {
    id.map_or(0, id_hash)
}

/// The tree of pass 1.
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    /// uuid hash → index of the first node with that uuid.
    by_uuid: Hashed<u32>,
    last_any: Option<usize>,
    last_main: Option<usize>,
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
        if l.is_sidechain {
            flags |= SIDECHAIN;
        }
        // Crossing a compaction: the boundary's logical parent is the last
        // line before it.
        let parent = match (l.compact_boundary, l.logical_parent_uuid.as_deref()) {
            (true, Some(logical)) => id_hash(logical),
            _ => opt_hash(l.parent_uuid.as_deref()),
        };
        let msg = match l.kind {
            Kind::Assistant => opt_hash(l.message_id.as_deref()),
            _ => 0,
        };
        let Ok(index) = u32::try_from(self.nodes.len()) else {
            return;
        };
        self.nodes.push(Node {
            line: line_no,
            parent,
            msg,
            flags,
        });
        if let Some(uuid) = l.uuid.as_deref() {
            self.by_uuid.entry(id_hash(uuid)).or_insert(index);
        }
        if flags & (USER | ASSISTANT) != 0 {
            self.last_any = Some(index as usize);
            if flags & SIDECHAIN == 0 {
                self.last_main = Some(index as usize);
            }
        }
    }

    /// The lines to project, in file order, each with its message id hash
    /// (0 = none), and per split message the number of its lines.
    fn plan(self, sub_agent: bool) -> (Vec<(u64, u64)>, Hashed<u32>) {
        let leaf = if sub_agent {
            self.last_any
        } else {
            self.last_main
        };
        let mut on = vec![false; self.nodes.len()];
        let mut cur = leaf;
        while let Some(i) = cur {
            match on.get_mut(i) {
                Some(seen) if !*seen => *seen = true,
                // A cycle, or out of range: the chain ends.
                _ => break,
            }
            cur = self
                .nodes
                .get(i)
                .map(|n| n.parent)
                .filter(|&p| p != 0)
                .and_then(|p| self.by_uuid.get(&p))
                .map(|&j| j as usize);
        }
        let excluded = |n: &Node| !sub_agent && n.flags & SIDECHAIN != 0;
        let mut live: HashedSet = HashedSet::default();
        for (n, _) in self.nodes.iter().zip(&on).filter(|(_, on)| **on) {
            if n.flags & ASSISTANT != 0 && n.msg != 0 && !excluded(n) {
                live.insert(n.msg);
            }
        }
        let mut plan = Vec::new();
        let mut parts: Hashed<u32> = Hashed::default();
        for (n, on) in self.nodes.iter().zip(&on) {
            if excluded(n) || n.flags & (USER | ASSISTANT) == 0 {
                continue;
            }
            // A split message's parts may hang off side branches (parallel
            // tool calls fork the tree); the message is live as a whole.
            let live_part = n.flags & ASSISTANT != 0 && n.msg != 0 && live.contains(&n.msg);
            if *on || live_part {
                plan.push((n.line, n.msg));
                if n.msg != 0 {
                    *parts.entry(n.msg).or_insert(0) += 1;
                }
            }
        }
        parts.retain(|_, count| *count > 1);
        (plan, parts)
    }
}

/// Reads a whole transcript as it is now, handing its surface to `sink`.
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
    let walk_error = |e: LinesError<(u64, String)>| match e {
        LinesError::Io(e) => fail(None, e.to_string()),
        LinesError::Cancelled => ReadError::Cancelled,
        LinesError::Line((n, reason)) => fail(Some(n), reason),
    };

    // Pass 1: metadata and tree.
    let (mut reader, size) = log.open(None).map_err(|e| fail(None, e.to_string()))?;
    let mut meta = Meta::dated_by(log.modified_ms());
    let mut tree = Tree::default();
    let consumed = lines::for_each_line(&mut reader, size, cancelled, &mut |raw| {
        if let Some(parsed) = meta.raw_line(raw) {
            tree.record(meta.lines, &parsed);
        }
        match &meta.failure {
            Some(_) => Err((meta.lines, "invalid UTF-8".to_string())),
            None => Ok(Flow::Continue),
        }
    })
    .map_err(walk_error)?;
    drop(reader);
    let header = match meta.header() {
        HeaderState::Session(h) => h,
        HeaderState::NotASession(why) => return Err(fail(None, format!("not a session: {why}"))),
        HeaderState::Pending => return Err(fail(None, "no line has a sessionId".into())),
    };
    let (plan, parts) = tree.plan(meta.is_sub_agent());

    // Pass 2: the planned lines, over the same bytes.
    let (mut reader, _) = log
        .open(Some(consumed))
        .map_err(|e| fail(None, e.to_string()))?;
    let mut reorder = Reorder::new(parts);
    let mut next = plan.iter().copied().peekable();
    let mut line_no = 0u64;
    lines::for_each_line(&mut reader, consumed, cancelled, &mut |raw| {
        line_no += 1;
        let Some(&(want, msg)) = next.peek() else {
            return Ok(Flow::Stop);
        };
        if want != line_no {
            return Ok(Flow::Continue);
        }
        next.next();
        let text =
            simdutf8::basic::from_utf8(raw).map_err(|_| (line_no, "invalid UTF-8".to_string()))?;
        // The bytes parsed in pass 1; a line that no longer parses was
        // replaced in between and is skipped.
        if let Ok(l) = line::parse(text, true) {
            project(&l, line_no, msg, &mut reorder, sink);
        }
        Ok(Flow::Continue)
    })
    .map_err(walk_error)?;
    reorder.finish(sink);

    let scanned = meta.scan_meta();
    Ok(ReadSummary {
        header,
        captured_through_seq: (meta.lines > 0).then_some(meta.lines),
        title: scanned.title,
        capacity: None,
        skipped_lines: scanned.skipped_lines,
        bytes: consumed,
    })
}

/// The surface event of one planned line.
fn project(
    l: &Line<'_>,
    seq: u64,
    msg: u64,
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
                reorder.push(
                    Entry {
                        seq,
                        event: Event::Message {
                            role: Role::User,
                            text,
                        },
                    },
                    sink,
                );
            }
        }
        Kind::Assistant => reorder.assistant(seq, msg, meta::all_text(&l.content), sink),
        _ => {}
    }
}

/// A surface event held back behind an unfinished split message.
struct Held {
    seq: u64,
    event: HeldEvent,
    /// The split message this is (0: a complete event).
    msg: u64,
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
    /// Split message → its planned lines not yet seen.
    remaining: Hashed<u32>,
}

impl Reorder {
    fn new(parts: Hashed<u32>) -> Self {
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
            msg: 0,
        });
        self.flush(sink);
    }

    fn assistant(
        &mut self,
        seq: u64,
        msg: u64,
        text: Cow<'_, str>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) {
        let Some(left) = self.remaining.get_mut(&msg) else {
            // Not split: one line, one message.
            return self.push(
                Entry {
                    seq,
                    event: Event::Message {
                        role: Role::Assistant,
                        text,
                    },
                },
                sink,
            );
        };
        *left = left.saturating_sub(1);
        let open = self
            .held
            .iter_mut()
            .rev()
            .find(|h| h.msg == msg && matches!(h.event, HeldEvent::Message(..)));
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
                msg,
            }),
        }
        self.flush(sink);
    }

    fn hold(&mut self, held: Held) {
        self.held_bytes += held.text_len();
        self.held.push_back(held);
    }

    fn is_complete(&self, held: &Held) -> bool {
        held.msg == 0 || self.remaining.get(&held.msg).is_none_or(|&n| n == 0)
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
