//! The bounded pre-selection of a store's sessions, for the faces that
//! rank straight from a store (the CLI, the MCP server): only the
//! sessions that can make the list are built and kept, then ranked by
//! [`super::table`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::candidates::{check_limit, Target};
use super::table::{key_matches, order_key, SessionTable};
use super::ReferenceError;
use crate::model::{Session, SessionKey, SessionSink};

/// The sessions the rule would list first, kept while a store offers its
/// sessions one at a time: ranking the table of [`Preselect::finish`]
/// gives exactly what ranking every session offered gives (the cut is the
/// same, and one more session tells whether the list is incomplete),
/// without a large store being held whole. The order and the match are
/// the table's own ([`order_key`], [`key_matches`]).
pub struct Preselect<'a> {
    target: Target<'a>,
    needle: String,
    wanted: usize,
    /// The best `wanted` so far; the worst on top.
    kept: BinaryHeap<Ranked<'a>>,
}

/// A session with the target cwd it is ranked for: greater is listed
/// later.
struct Ranked<'a>(Session, Option<&'a str>);

impl Ranked<'_> {
    fn key(&self) -> (u8, Reverse<u64>, &[u8]) {
        order_key(&self.0.key(), self.1)
    }
}

impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Ranked<'_> {}

impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked<'_> {
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
        if Some(key.id) == self.target.session_id || !key_matches(&key, &self.needle) {
            return false;
        }
        if self.kept.len() < self.wanted {
            return true;
        }
        self.kept
            .peek()
            .is_some_and(|worst| order_key(&key, self.target.cwd) < worst.key())
    }

    /// Keeps a session [`Self::wants`], dropping the worst when full.
    fn keep(&mut self, session: Session) {
        let ranked = Ranked(session, self.target.cwd);
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

    /// The kept sessions, to rank.
    pub fn finish(self) -> SessionTable {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Locator, SessionHeader};
    use crate::reference::table::candidates;

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
                stamp: 0,
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
                        pre.finish().candidates(target, query, limit).unwrap(),
                        candidates(&sessions, target, query, limit).unwrap(),
                        "{query:?} {cwd:?} {limit}"
                    );
                }
            }
        }
    }
}
