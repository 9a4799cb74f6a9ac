//! Mention candidates (reference.md §7).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::error::{ErrorCode, ReferenceError};
use super::mention;
use crate::model::MAX_SAFE_INTEGER;
use crate::model::{Session, SessionKey, SessionSink};

/// One session offered for a mention.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Lists, filters and ranks the sessions. Message bodies are never searched.
pub fn candidates(
    sessions: &[Session],
    target: Target<'_>,
    query: &str,
    limit: u64,
) -> Result<Candidates, ReferenceError> {
    let limit = check_limit(limit)?;
    let needle = query.to_lowercase();
    let mut picked: Vec<&Session> = sessions
        .iter()
        .filter(|s| Some(s.header.id.as_str()) != target.session_id)
        .filter(|s| matches(s, &needle))
        .collect();
    picked.sort_by(|a, b| {
        b.header
            .created_at
            .cmp(&a.header.created_at)
            .then_with(|| a.header.id.as_bytes().cmp(b.header.id.as_bytes()))
    });
    // Stable: the creation order stays within each rank.
    picked.sort_by_key(|s| rank(s.header.cwd.as_deref(), target.cwd));
    let incomplete = picked.len() > limit;
    let items = picked
        .into_iter()
        .take(limit)
        .map(|s| {
            let display = s.header.label.clone();
            Candidate {
                session_id: s.header.id.clone(),
                label: s.label().to_string(),
                mention: canonical_mention(s),
                display_title: display,
                cwd: s.header.cwd.clone(),
                same_workspace: rank(s.header.cwd.as_deref(), target.cwd) == 0,
                created_at: s.header.created_at,
            }
        })
        .collect();
    Ok(Candidates { items, incomplete })
}

/// The mention a candidate offers: `format(id, displayTitle ?? label)`.
pub fn canonical_mention(s: &Session) -> String {
    mention::format(
        &s.header.id,
        Some(s.header.label.as_deref().unwrap_or(s.label())),
    )
}

/// Whether the query (lower-cased) matches the id, cwd, label or display
/// title of `s`. Message bodies are never searched.
fn matches(s: &Session, needle: &str) -> bool {
    key_matches(s.key(), needle)
}

fn key_matches(k: SessionKey<'_>, needle: &str) -> bool {
    needle.is_empty()
        || contains_lowercased(k.id, needle)
        || k.cwd.is_some_and(|cwd| contains_lowercased(cwd, needle))
        || contains_lowercased(k.candidate_label(), needle)
        || k.label.is_some_and(|l| contains_lowercased(l, needle))
}

/// The sessions [`candidates`] would list first, kept while sessions are
/// offered one at a time: [`candidates`] on [`Preselect::finish`] gives
/// exactly what it gives on every session offered (the cut is the same,
/// and one more session tells whether the list is incomplete), without a
/// large store being held or sorted whole.
pub struct Preselect<'a> {
    target: Target<'a>,
    needle: String,
    wanted: usize,
    /// The best `wanted` so far; the worst on top.
    kept: BinaryHeap<Ranked>,
}

/// A session with its rank order: greater is listed later.
struct Ranked(Session, u8);

impl Ranked {
    fn key(&self) -> (u8, Reverse<u64>, &[u8]) {
        let h = &self.0.header;
        (self.1, Reverse(h.created_at), h.id.as_bytes())
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl<'a> Preselect<'a> {
    pub fn new(target: Target<'a>, query: &str, limit: u64) -> Result<Self, ReferenceError> {
        let wanted = check_limit(limit)?.saturating_add(1);
        Ok(Preselect {
            target,
            needle: query.to_lowercase(),
            wanted,
            kept: BinaryHeap::with_capacity(wanted.min(4096)),
        })
    }

    pub fn offer(&mut self, session: Session) {
        if self.wants(session.key()) {
            self.keep(session);
        }
    }

    /// Whether a session with this key would be kept now: it is not the
    /// target, it matches, and it ranks before the worst kept so far.
    pub fn wants(&self, key: SessionKey<'_>) -> bool {
        if Some(key.id) == self.target.session_id || !key_matches(key, &self.needle) {
            return false;
        }
        if self.kept.len() < self.wanted {
            return true;
        }
        let rank = rank(key.cwd, self.target.cwd);
        self.kept
            .peek()
            .is_some_and(|worst| (rank, Reverse(key.created_at), key.id.as_bytes()) < worst.key())
    }

    /// Keeps a session [`Self::wants`], dropping the worst when full.
    fn keep(&mut self, session: Session) {
        let rank = rank(session.header.cwd.as_deref(), self.target.cwd);
        let ranked = Ranked(session, rank);
        if self.kept.len() >= self.wanted {
            match self.kept.peek() {
                Some(worst) if ranked < *worst => {
                    self.kept.pop();
                }
                _ => return,
            }
        }
        self.kept.push(ranked);
    }

    /// The kept sessions (in no particular order).
    pub fn finish(self) -> Vec<Session> {
        self.kept.into_iter().map(|r| r.0).collect()
    }
}

impl SessionSink for Preselect<'_> {
    fn wants(&self, key: SessionKey<'_>) -> bool {
        Preselect::wants(self, key)
    }

    fn take(&mut self, session: Session) {
        self.keep(session);
    }
}

/// Whether `haystack.to_lowercase()` contains `needle` (already lower-cased).
/// ASCII haystacks, the common case, are compared without allocating: their
/// lower case is ASCII, so a needle with other characters cannot match.
fn contains_lowercased(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if !haystack.is_ascii() {
        return haystack.to_lowercase().contains(needle);
    }
    if !needle.is_ascii() || needle.len() > haystack.len() {
        return false;
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

/// 0: same cwd as the target (both known); 1: no cwd; 2: another cwd.
fn rank(cwd: Option<&str>, target_cwd: Option<&str>) -> u8 {
    match (cwd, target_cwd) {
        (Some(c), Some(t)) if c == t => 0,
        (None, _) => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Locator, SessionHeader};

    /// Candidates of the pre-selection equal candidates of all sessions.
    #[test]
    fn preselection_changes_nothing() {
        let cwds = [Some("/a"), None, Some("/b")];
        let sessions: Vec<Session> = (0..40u64)
            .map(|i| Session {
                header: SessionHeader {
                    version: 1,
                    id: format!("s{}", (i * 7) % 40),
                    created_at: i % 6,
                    cwd: cwds[(i % 3) as usize].map(String::from),
                    label: None,
                },
                locator: Locator {
                    store: 0,
                    format: "hydra",
                    name: Vec::new().into(),
                },
                title: (i % 4 == 0).then(|| format!("Title {i}")),
                capacity: None,
                unreadable: None,
                skipped_lines: 0,
            })
            .collect();
        for query in ["", "s1", "title", "/b", "zzz"] {
            for cwd in [None, Some("/a"), Some("/b")] {
                for limit in [1u64, 3, 10, 39, 40, 100] {
                    let target = Target {
                        session_id: Some("s7"),
                        cwd,
                    };
                    let mut pre = Preselect::new(target, query, limit).unwrap();
                    for s in &sessions {
                        pre.offer(s.clone());
                    }
                    assert_eq!(
                        candidates(&pre.finish(), target, query, limit).unwrap(),
                        candidates(&sessions, target, query, limit).unwrap(),
                        "{query:?} {cwd:?} {limit}"
                    );
                }
            }
        }
    }

    #[test]
    fn lower_case_matching_is_unicode_aware() {
        assert!(contains_lowercased("Checkout TAX", "tax"));
        assert!(!contains_lowercased("Checkout", "taxes"));
        // U+212A KELVIN SIGN lower-cases to an ASCII `k`.
        assert!(contains_lowercased("\u{212A}elvin", "kel"));
        assert!(contains_lowercased("ÜBER", "über"));
        assert!(!contains_lowercased("uber", "über"));
        assert!(contains_lowercased("anything", ""));
    }
}
