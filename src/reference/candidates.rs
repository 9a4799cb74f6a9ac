//! Mention candidates (reference.md §7): what a candidate is and who asks.
//! The rule, and the only code that ranks, is [`super::table`].

use super::error::{ErrorCode, ReferenceError};
use super::mention;
use crate::model::Session;
use crate::model::MAX_SAFE_INTEGER;

/// One session offered for a mention.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidate {
    pub session_id: String,
    /// The latest title, else the id.
    pub label: String,
    /// The header's durable creation label (subagents).
    pub display_title: Option<String>,
    pub cwd: Option<String>,
    pub same_workspace: bool,
    pub created_at: u64,
    /// `format(id, displayTitle ?? label)`.
    pub mention: String,
    /// The name of the format (or store kind) of its log, the faces' to
    /// show (hover and completion details name the agent); not in the
    /// contract's candidates JSON.
    pub format: &'static str,
}

impl Candidate {
    /// `displayTitle ?? label` under the one-line rule (the id when nothing
    /// is left): what a person sees of this candidate in a list.
    pub fn shown_label(&self) -> String {
        mention::one_line_label(
            &self.session_id,
            self.display_title.as_deref().unwrap_or(&self.label),
        )
    }

    /// The mention the product inserts or prints for this candidate:
    /// `mention` with the one-line rule applied to its label (`mention`
    /// itself stays the contract's canonical text).
    pub fn one_line_mention(&self) -> String {
        mention::format_one_line(
            &self.session_id,
            self.display_title.as_deref().unwrap_or(&self.label),
        )
    }
}

/// The ranked candidates, and whether the limit cut the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    pub items: Vec<Candidate>,
    pub incomplete: bool,
}

/// Who is asking: the message's own session and the cwd to rank by.
#[derive(Debug, Clone, Copy, Default)]
pub struct Target<'a> {
    pub session_id: Option<&'a str>,
    pub cwd: Option<&'a str>,
}

/// Checks a candidate limit: a positive safe integer.
pub fn check_limit(limit: u64) -> Result<usize, ReferenceError> {
    if limit == 0 || limit > MAX_SAFE_INTEGER {
        return Err(ReferenceError::new(
            ErrorCode::InvalidReference,
            "candidate limit must be a positive safe integer",
        ));
    }
    Ok(usize::try_from(limit).unwrap_or(usize::MAX))
}

/// The mention a candidate offers: `format(id, displayTitle ?? label)`.
pub fn canonical_mention(s: &Session) -> String {
    mention_of(&s.header.id, s.header.label.as_deref(), s.label())
}

/// `format(id, displayTitle ?? label)`.
pub fn mention_of(id: &str, display_title: Option<&str>, label: &str) -> String {
    mention::format(id, Some(display_title.unwrap_or(label)))
}
