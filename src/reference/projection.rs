//! Projection of a session's current surface (reference.md §3), folded
//! while the log streams by.
//!
//! The surface depends on the *last* checkpoint, known only at the end, so
//! the projector keeps every projected message that could still matter.
//! It also forgets, early, the text of any message that retention can
//! never keep: if a message is on the final surface, so is every message
//! after it (shadowing removes a prefix by `seq`), and retention keeps a
//! suffix. So once the message plus everything after it already exceeds
//! the budget, only its `seq` and byte length are needed (for the
//! statistics). Memory then stays near the budget, not the log size.

use std::collections::VecDeque;

pub use crate::model::Role;
use crate::model::{Entry, Event};

use super::json;

/// One projected message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub seq: u64,
    pub role: Role,
    /// A compact checkpoint: retention never drops it.
    pub checkpoint: bool,
    pub text: String,
}

impl Message {
    /// Tag-safe JSON size of `{"role":…,"text":…}`.
    pub fn item_size(&self) -> usize {
        item_size(self.role, &self.text)
    }
}

/// Tag-safe JSON size of `{"role":ROLE,"text":TEXT}`.
pub fn item_size(role: Role, text: &str) -> usize {
    // {"role":"…","text":…}
    r#"{"role":"","text":}"#.len() + role.as_str().len() + json::tag_safe_len(text)
}

/// Messages that were projected but are already known to be dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    pub messages: usize,
    pub bytes: u64,
}

/// What decides the surface: the last checkpoint (session-log.md
/// "Folding the current surface"). A second pass over the same events can
/// project them again from it alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Surface {
    /// The last checkpoint's `throughSeq`: entries at or below it are
    /// shadowed.
    pub shadowed_through: Option<u64>,
    /// The last checkpoint's `seq`: it comes first on the surface.
    pub last_checkpoint_seq: Option<u64>,
}

impl Surface {
    /// Whether an entry with this `seq` other than the last checkpoint is on
    /// the surface.
    pub fn visible(&self, seq: u64) -> bool {
        self.shadowed_through.is_none_or(|through| seq > through)
    }
}

/// The projected surface, ready for retention.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Projection {
    /// Surface messages that may be retained, in surface order.
    pub messages: Vec<Message>,
    /// Surface messages dropped early: they come before every message of
    /// `messages` that retention may drop, so retention drops them first.
    pub dropped: Dropped,
    /// Whether any checkpoint is on the projected surface.
    pub compacted: bool,
    pub surface: Surface,
}

impl Projection {
    pub fn original_messages(&self) -> usize {
        self.messages.len() + self.dropped.messages
    }
}

/// Streams events into a [`Projection`].
#[derive(Debug)]
pub struct Projector {
    /// A lower bound of the data object's size without messages; `None`
    /// keeps every message (no early dropping).
    fixed_lower_bound: Option<usize>,
    budget: usize,
    /// The last checkpoint event (`seq`, `throughSeq`), even one whose text
    /// is empty: it alone decides shadowing.
    last_checkpoint: Option<(u64, u64)>,
    checkpoints: Vec<Message>,
    /// Running sum of `item_size + 1` over `checkpoints`, per checkpoint.
    checkpoint_sums: Vec<u64>,
    /// Non-checkpoint messages still held, in log order, with their
    /// `item_size + 1`.
    others: VecDeque<(Message, u64)>,
    /// Sum of `item_size + 1` over `others`.
    others_sum: u64,
    /// Number of checkpoints older than `others[0]`.
    checkpoints_before_front: usize,
    /// `(seq, bytes)` of messages whose text was dropped early.
    evicted: Vec<(u64, u64)>,
}

impl Projector {
    /// `fixed_lower_bound`: a lower bound of the data object's size with an
    /// empty conversation (see [`super::retention::fixed_size`]); `None`
    /// disables early dropping.
    pub fn new(fixed_lower_bound: Option<usize>, budget: usize) -> Self {
        Self {
            fixed_lower_bound,
            budget,
            last_checkpoint: None,
            checkpoints: Vec::new(),
            checkpoint_sums: Vec::new(),
            others: VecDeque::new(),
            others_sum: 0,
            checkpoints_before_front: 0,
            evicted: Vec::new(),
        }
    }

    pub fn push(&mut self, entry: Entry<'_>) {
        let (role, checkpoint, text) = match entry.event {
            Event::Message { role, text } => (role, false, text),
            Event::Checkpoint { through_seq, text } => {
                self.last_checkpoint = Some((entry.seq, through_seq));
                (Role::User, true, text)
            }
            _ => return,
        };
        if text.is_empty() {
            return;
        }
        let message = Message {
            seq: entry.seq,
            role,
            checkpoint,
            text: text.into_owned(),
        };
        let weight = message.item_size() as u64 + 1;
        if checkpoint {
            let before = self.checkpoint_sums.last().copied().unwrap_or(0);
            self.checkpoint_sums.push(before + weight);
            self.checkpoints.push(message);
        } else {
            self.others_sum += weight;
            self.others.push_back((message, weight));
        }
        self.evict();
    }

    /// Drops the text of leading messages that can no longer be retained.
    fn evict(&mut self) {
        let Some(fixed) = self.fixed_lower_bound else {
            return;
        };
        let checkpoint_total = self.checkpoint_sums.last().copied().unwrap_or(0);
        // The newest non-checkpoint message may become the last one, which
        // retention always keeps: never evict it.
        while self.others.len() >= 2 {
            let front_seq = self.others[0].0.seq;
            while self.checkpoints_before_front < self.checkpoints.len()
                && self.checkpoints[self.checkpoints_before_front].seq < front_seq
            {
                self.checkpoints_before_front += 1;
            }
            let checkpoints_before = match self.checkpoints_before_front {
                0 => 0,
                n => self.checkpoint_sums[n - 1],
            };
            // Size of the object holding the front and everything after it.
            let at_least =
                fixed as u64 + self.others_sum + (checkpoint_total - checkpoints_before) - 1;
            if at_least <= self.budget as u64 {
                return;
            }
            if let Some((front, weight)) = self.others.pop_front() {
                self.others_sum -= weight;
                self.evicted.push((front.seq, front.text.len() as u64));
            }
        }
    }

    /// Folds the surface (session-log.md "Folding the current surface").
    pub fn finish(self) -> Projection {
        let surface = Surface {
            shadowed_through: self.last_checkpoint.map(|(_, through)| through),
            last_checkpoint_seq: self.last_checkpoint.map(|(seq, _)| seq),
        };
        let last_checkpoint_seq = surface.last_checkpoint_seq;
        let visible = |seq: u64| surface.visible(seq);

        let mut messages = Vec::with_capacity(self.others.len() + self.checkpoints.len());
        let mut rest = Vec::with_capacity(self.checkpoints.len());
        for checkpoint in self.checkpoints {
            if Some(checkpoint.seq) == last_checkpoint_seq {
                messages.push(checkpoint);
            } else if visible(checkpoint.seq) {
                rest.push(checkpoint);
            }
        }
        let compacted = !messages.is_empty() || !rest.is_empty();
        // Merge the surviving checkpoints and other messages in log order.
        let mut others = self
            .others
            .into_iter()
            .map(|(m, _)| m)
            .filter(|m| visible(m.seq))
            .peekable();
        let mut checkpoints = rest.into_iter().peekable();
        loop {
            let take_checkpoint = match (checkpoints.peek(), others.peek()) {
                (Some(c), Some(o)) => c.seq < o.seq,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let next = if take_checkpoint {
                checkpoints.next()
            } else {
                others.next()
            };
            messages.extend(next);
        }
        let mut dropped = Dropped::default();
        for &(seq, bytes) in &self.evicted {
            if visible(seq) {
                dropped.messages += 1;
                dropped.bytes += bytes;
            }
        }
        Projection {
            messages,
            dropped,
            compacted,
            surface,
        }
    }
}
