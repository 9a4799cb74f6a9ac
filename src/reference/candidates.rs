//! Mention candidates (reference.md §7).

use serde::Serialize;

use super::error::{ErrorCode, ReferenceError};
use super::mention;
use crate::model::Session;
use crate::model::MAX_SAFE_INTEGER;

/// One session offered for a mention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub session_id: String,
    /// The latest title, else the id.
    pub label: String,
    /// The header's durable creation label (subagents).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    pub same_workspace: bool,
    pub created_at: u64,
    /// `format(id, displayTitle ?? label)`.
    pub mention: String,
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
    let matches = |s: &Session| {
        needle.is_empty()
            || contains_lowercased(&s.header.id, &needle)
            || s.header
                .cwd
                .as_deref()
                .is_some_and(|cwd| contains_lowercased(cwd, &needle))
            || contains_lowercased(s.label(), &needle)
            || s.header
                .label
                .as_deref()
                .is_some_and(|l| contains_lowercased(l, &needle))
    };
    let mut picked: Vec<&Session> = sessions
        .iter()
        .filter(|s| Some(s.header.id.as_str()) != target.session_id)
        .filter(|s| matches(s))
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
                mention: mention::format(
                    &s.header.id,
                    Some(display.as_deref().unwrap_or(s.label())),
                ),
                display_title: display,
                cwd: s.header.cwd.clone(),
                same_workspace: rank(s.header.cwd.as_deref(), target.cwd) == 0,
                created_at: s.header.created_at,
            }
        })
        .collect();
    Ok(Candidates { items, incomplete })
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
    use super::contains_lowercased;

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
