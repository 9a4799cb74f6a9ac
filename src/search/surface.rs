//! A session's surface handed on one message at a time, so the writer
//! need not hold a large session's messages (issue 29 item 6).
//!
//! The surface depends on the log's last checkpoint, known only at its
//! end (reference/projection.rs). A session is first read as `prepare`
//! reads it, holding its projected messages; once they pass
//! [`HOLD_MOST`] bytes the first read lets them go and only learns the
//! surface (the last checkpoint), and a second read of the same bytes
//! hands each surface message on as it comes. The store's one 20 MB
//! session held 16.5 MiB of projected messages beside the writer's
//! queue: the language server's peak while its index was built.
//!
//! The second read hands the messages on in the projector's order only
//! when the log's `seq`s increase (the projector merges checkpoints and
//! other messages by `seq`); a large log whose `seq`s do not is held
//! whole, as before.

use crate::model::{Entry, Event, Role};
use crate::reference::projection::{Message, Projector, Surface};

/// The projected text a first read holds at most: a session with more
/// is read twice, not held. A few bytes in unit tests, so the search
/// tests write most of their sessions from a second read.
#[cfg(not(test))]
pub const HOLD_MOST: usize = 1 << 20;
#[cfg(test)]
pub const HOLD_MOST: usize = 16;

/// One message of a session's surface, in surface order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceMessage<'a> {
    pub seq: u64,
    pub role: Role,
    pub checkpoint: bool,
    pub text: &'a str,
}

impl<'a> From<&'a Message> for SurfaceMessage<'a> {
    fn from(m: &'a Message) -> Self {
        SurfaceMessage {
            seq: m.seq,
            role: m.role,
            checkpoint: m.checkpoint,
            text: &m.text,
        }
    }
}

/// What a first read learnt.
#[derive(Debug)]
pub enum FirstRead {
    /// The surface's messages: the session is small enough to hold.
    Held(Vec<Message>),
    /// The session is large: a second read hands its surface on.
    Large(Plan),
    /// The session is large and its `seq`s do not increase: it must be
    /// read again, held whole.
    Unordered,
}

/// What a second read needs to hand the surface on in order.
#[derive(Debug, Clone)]
pub struct Plan {
    surface: Surface,
    /// The last checkpoint `(seq, throughSeq)`, even one with no text.
    last: Option<(u64, u64)>,
    /// Its text, when it has one: the surface's first message.
    last_text: Option<String>,
}

/// Whether the `seq`s of a log's messages and checkpoints increase.
#[derive(Debug, Clone, Copy, Default)]
struct Order {
    last: Option<u64>,
    broken: bool,
}

impl Order {
    fn see(&mut self, seq: u64) {
        if self.last.is_some_and(|last| seq <= last) {
            self.broken = true;
        }
        self.last = Some(seq);
    }
}

/// The sink of a first read.
#[derive(Debug)]
pub struct FirstPass {
    /// `None` once more than [`HOLD_MOST`] bytes came.
    projector: Option<Projector>,
    held: usize,
    most: usize,
    last: Option<(u64, u64)>,
    last_text: Option<String>,
    order: Order,
}

impl Default for FirstPass {
    fn default() -> Self {
        Self::holding_at_most(HOLD_MOST)
    }
}

impl FirstPass {
    /// A first read that holds at most `most` bytes of text.
    pub fn holding_at_most(most: usize) -> Self {
        FirstPass {
            projector: Some(Projector::new(None, usize::MAX)),
            held: 0,
            most,
            last: None,
            last_text: None,
            order: Order::default(),
        }
    }

    pub fn push(&mut self, entry: Entry<'_>) {
        let text = match &entry.event {
            Event::Message { text, .. } => text,
            Event::Checkpoint { through_seq, text } => {
                self.last = Some((entry.seq, *through_seq));
                // A checkpoint's text is at most a message's (the writer
                // caps it): the one kept is the last.
                self.last_text = (!text.is_empty()).then(|| text.to_string());
                text
            }
            _ => return,
        };
        self.order.see(entry.seq);
        let Some(projector) = &mut self.projector else {
            return;
        };
        self.held += text.len();
        if self.held > self.most {
            self.projector = None;
        } else {
            projector.push(entry);
        }
    }

    pub fn finish(self) -> FirstRead {
        match self.projector {
            Some(projector) => FirstRead::Held(projector.finish().messages),
            None if self.order.broken => FirstRead::Unordered,
            None => FirstRead::Large(Plan {
                surface: Surface {
                    shadowed_through: self.last.map(|(_, through)| through),
                    last_checkpoint_seq: self.last.map(|(seq, _)| seq),
                },
                last: self.last,
                last_text: self.last_text,
            }),
        }
    }
}

/// The sink of a second read: hands on the surface of [`Plan`], in the
/// order the projector folds it.
#[derive(Debug)]
pub struct Stream<'a> {
    plan: &'a Plan,
    begun: bool,
    /// What this read found, to tell whether the log is the one the
    /// first read planned for.
    last: Option<(u64, u64)>,
    order: Order,
}

impl<'a> Stream<'a> {
    pub fn new(plan: &'a Plan) -> Self {
        Stream {
            plan,
            begun: false,
            last: None,
            order: Order::default(),
        }
    }

    /// Hands on the messages `entry` adds to the surface (the last
    /// checkpoint, which comes first, before the first entry).
    pub fn push(&mut self, entry: Entry<'_>, out: &mut dyn FnMut(SurfaceMessage<'_>)) {
        self.begin(out);
        let (role, checkpoint, text) = match &entry.event {
            Event::Message { role, text } => (*role, false, text),
            Event::Checkpoint { through_seq, text } => {
                self.last = Some((entry.seq, *through_seq));
                (Role::User, true, text)
            }
            _ => return,
        };
        self.order.see(entry.seq);
        let is_last = checkpoint && Some(entry.seq) == self.plan.surface.last_checkpoint_seq;
        if text.is_empty() || is_last || !self.plan.surface.visible(entry.seq) {
            return;
        }
        out(SurfaceMessage {
            seq: entry.seq,
            role,
            checkpoint,
            text,
        });
    }

    /// Hands on the last checkpoint if nothing did yet (a log of no
    /// entries on the second read).
    pub fn begin(&mut self, out: &mut dyn FnMut(SurfaceMessage<'_>)) {
        if std::mem::replace(&mut self.begun, true) {
            return;
        }
        if let (Some((seq, _)), Some(text)) = (self.plan.last, &self.plan.last_text) {
            out(SurfaceMessage {
                seq,
                role: Role::User,
                checkpoint: true,
                text,
            });
        }
    }

    /// Whether the second read found the log the first one planned for:
    /// the same last checkpoint, `seq`s that increase.
    pub fn agrees(&self) -> bool {
        self.last == self.plan.last && !self.order.broken
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use proptest::prelude::*;

    use super::*;

    fn message(seq: u64, role: Role, text: &str) -> Entry<'static> {
        Entry {
            seq,
            event: Event::Message {
                role,
                text: Cow::Owned(text.to_string()),
            },
        }
    }

    fn checkpoint(seq: u64, through_seq: u64, text: &str) -> Entry<'static> {
        Entry {
            seq,
            event: Event::Checkpoint {
                through_seq,
                text: Cow::Owned(text.to_string()),
            },
        }
    }

    fn owned(m: SurfaceMessage<'_>) -> Message {
        Message {
            seq: m.seq,
            role: m.role,
            checkpoint: m.checkpoint,
            text: m.text.to_string(),
        }
    }

    /// The surface as the writer gets it with `most` bytes held at most:
    /// held, or streamed by a second read of the same entries.
    fn surface(entries: &[Entry<'static>], most: usize) -> Option<Vec<Message>> {
        let mut first = FirstPass::holding_at_most(most);
        for entry in entries {
            first.push(entry.clone());
        }
        match first.finish() {
            FirstRead::Held(messages) => Some(messages),
            FirstRead::Unordered => None,
            FirstRead::Large(plan) => {
                let mut stream = Stream::new(&plan);
                let mut out = Vec::new();
                for entry in entries {
                    stream.push(entry.clone(), &mut |m| out.push(owned(m)));
                }
                stream.begin(&mut |m| out.push(owned(m)));
                assert!(stream.agrees());
                Some(out)
            }
        }
    }

    fn projected(entries: &[Entry<'static>]) -> Vec<Message> {
        let mut projector = Projector::new(None, usize::MAX);
        for entry in entries {
            projector.push(entry.clone());
        }
        projector.finish().messages
    }

    #[test]
    fn a_large_session_streams_the_surface_the_projector_folds() {
        let entries = [
            message(1, Role::User, "first question"),
            message(2, Role::Assistant, "first answer"),
            checkpoint(3, 1, "early summary"),
            message(4, Role::User, ""),
            message(5, Role::User, "second question"),
            checkpoint(6, 4, "the last summary"),
            message(7, Role::Assistant, "second answer"),
        ];
        let expected = projected(&entries);
        assert_eq!(expected[0].text, "the last summary");
        assert_eq!(surface(&entries, 1), Some(expected.clone()));
        assert_eq!(surface(&entries, usize::MAX), Some(expected));
    }

    #[test]
    fn a_second_read_of_another_log_does_not_agree() {
        let mut first = FirstPass::holding_at_most(0);
        first.push(message(1, Role::User, "question"));
        first.push(checkpoint(2, 1, "summary"));
        let FirstRead::Large(plan) = first.finish() else {
            panic!("a session over the bound is large");
        };
        let mut stream = Stream::new(&plan);
        stream.push(message(1, Role::User, "question"), &mut |_| {});
        assert!(!stream.agrees(), "the checkpoint is gone");
        stream.push(checkpoint(2, 1, "summary"), &mut |_| {});
        assert!(stream.agrees());
        stream.push(message(2, Role::User, "out of order"), &mut |_| {});
        assert!(!stream.agrees());
    }

    #[test]
    fn a_large_log_whose_seqs_do_not_increase_is_held() {
        let entries = [
            message(5, Role::User, "late"),
            message(3, Role::User, "early"),
        ];
        assert_eq!(surface(&entries, 1), None);
        assert_eq!(surface(&entries, usize::MAX), Some(projected(&entries)));
    }

    fn entry_strategy() -> impl Strategy<Value = (u8, u8, String)> {
        (0u8..4, 0u8..20, "[ab ]{0,6}")
    }

    proptest! {
        /// Any log of increasing `seq`s: streamed or held, the surface is
        /// the projector's, message for message.
        #[test]
        fn streamed_and_held_surfaces_agree(
            spec in proptest::collection::vec(entry_strategy(), 0..30),
            most in 0usize..40,
        ) {
            let entries: Vec<Entry<'static>> = spec
                .iter()
                .enumerate()
                .map(|(i, (kind, back, text))| {
                    let seq = i as u64 * 2 + 1;
                    match kind {
                        0 => message(seq, Role::User, text),
                        1 => message(seq, Role::Assistant, text),
                        2 => checkpoint(seq, seq.saturating_sub(u64::from(*back)), text),
                        _ => Entry { seq, event: Event::Title(Cow::Borrowed("t")) },
                    }
                })
                .collect();
            prop_assert_eq!(surface(&entries, most), Some(projected(&entries)));
        }
    }
}
