//! The messages a run's lines make (agent-logs-files-3.md "Aider",
//! "Messages"): consecutive user lines are one user message, consecutive
//! reply lines (blank lines between them included) one assistant message;
//! a tool line ends the message before it and is never projected, and a
//! blank line ends a user message. Texts are trimmed; an empty one, or a
//! user message that is exactly `<blank>` (an empty input), is no message.
//!
//! The same [`Projector`] serves the index scan (titles, whether a run
//! holds a message) and the full read (events), so both agree.

use crate::model::Role;

use super::line::Line;

/// What an empty input is written as.
const BLANK_INPUT: &str = "<blank>";

/// What the projector hands on, in line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A message, at the seq of its first line.
    Message { seq: u64, role: Role, text: String },
    /// A line (or a message) that is on no surface: tool output, an empty
    /// input, a message left empty.
    Other { seq: u64 },
}

/// The message being gathered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Open {
    #[default]
    None,
    User {
        seq: u64,
        text: String,
    },
    Assistant {
        seq: u64,
        text: String,
        /// Blank lines seen since the last reply line, each with its
        /// `\n`: part of the message only when another reply line follows.
        blanks: String,
    },
}

/// Turns a run's classified lines (after its header) into [`Piece`]s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Projector {
    open: Open,
}

impl Projector {
    /// Takes the line at `seq`, handing on what it ends.
    pub fn line(&mut self, seq: u64, line: Line<'_>, out: &mut dyn FnMut(Piece)) {
        match (line, &mut self.open) {
            (Line::User(more), Open::User { text, .. }) => {
                text.push('\n');
                text.push_str(more);
            }
            (Line::Assistant(more), Open::Assistant { text, blanks, .. }) => {
                text.push_str(blanks);
                blanks.clear();
                text.push('\n');
                text.push_str(more);
            }
            (Line::Blank(blank), Open::Assistant { blanks, .. }) => {
                blanks.push('\n');
                blanks.push_str(blank);
            }
            (Line::User(first), _) => {
                self.finish(out);
                self.open = Open::User {
                    seq,
                    text: first.to_string(),
                };
            }
            (Line::Assistant(first), _) => {
                self.finish(out);
                self.open = Open::Assistant {
                    seq,
                    text: first.to_string(),
                    blanks: String::new(),
                };
            }
            (Line::Blank(_), _) => self.finish(out),
            (Line::Tool | Line::Header(_), _) => {
                self.finish(out);
                out(Piece::Other { seq });
            }
        }
    }

    /// Hands on the message being gathered, if any (the run ended).
    pub fn finish(&mut self, out: &mut dyn FnMut(Piece)) {
        let (seq, role, text) = match std::mem::take(&mut self.open) {
            Open::None => return,
            Open::User { seq, text } => (seq, Role::User, text),
            Open::Assistant { seq, text, .. } => (seq, Role::Assistant, text),
        };
        let trimmed = text.trim();
        if trimmed.is_empty() || (role == Role::User && trimmed == BLANK_INPUT) {
            out(Piece::Other { seq });
            return;
        }
        let text = if trimmed.len() == text.len() {
            text
        } else {
            trimmed.to_string()
        };
        out(Piece::Message { seq, role, text });
    }

    /// Whether a message is being gathered.
    pub fn is_open(&self) -> bool {
        self.open != Open::None
    }
}
