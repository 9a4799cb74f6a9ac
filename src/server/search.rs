//! A per-view search index, so completion does not lower-case and sort
//! every session of a large store on each keystroke.
//!
//! It only *pre-selects*: the first `limit + 1` matches in rank order,
//! found with the core's own rules (newest first, ties by id bytes; same
//! cwd, then no cwd, then the rest; case-insensitive substring of id, cwd,
//! label or displayTitle). The core's `candidates` then runs on that
//! subset, so the result and `incomplete` are exactly what it would give on
//! the whole store, at a fraction of the cost.

use crate::model::Session;
use crate::reference::candidates::Target;

/// Joins the fields of a key; a query holding it is checked field by field.
const SEPARATOR: &str = "\0";

#[derive(Debug, Default)]
pub struct Search {
    /// Session indices, newest first (ties: id bytes ascending).
    order: Vec<usize>,
    /// Per session: the lower-cased id, cwd, label (`title ?? id`) and
    /// displayTitle, as the core compares them, joined by NUL (one search
    /// per session instead of four).
    keys: Vec<String>,
}

impl Search {
    pub fn new(sessions: &[Session]) -> Self {
        let mut order: Vec<usize> = (0..sessions.len()).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&sessions[a].header, &sessions[b].header);
            b.created_at
                .cmp(&a.created_at)
                .then_with(|| a.id.as_bytes().cmp(b.id.as_bytes()))
        });
        let keys = sessions
            .iter()
            .map(|s| {
                let fields = [
                    Some(s.header.id.as_str()),
                    s.header.cwd.as_deref(),
                    Some(s.label()),
                    s.header.label.as_deref(),
                ];
                fields
                    .iter()
                    .map(|f| f.unwrap_or_default().to_lowercase())
                    .collect::<Vec<_>>()
                    .join(SEPARATOR)
            })
            .collect();
        Search { order, keys }
    }

    /// The first `limit + 1` sessions the core would list for this query,
    /// in rank order.
    pub fn preselect(
        &self,
        sessions: &[Session],
        target: Target<'_>,
        query: &str,
        limit: usize,
    ) -> Vec<Session> {
        let needle = query.to_lowercase();
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let matches = |key: &str| {
            if needle.contains(SEPARATOR) {
                // The joined key could match across fields: test each.
                key.split(SEPARATOR).any(|field| field.contains(&needle))
            } else {
                finder.find(key.as_bytes()).is_some()
            }
        };
        let wanted = limit.saturating_add(1);
        let mut ranks: [Vec<usize>; 3] = Default::default();
        for &i in &self.order {
            let (Some(session), Some(keys)) = (sessions.get(i), self.keys.get(i)) else {
                continue;
            };
            if Some(session.header.id.as_str()) == target.session_id {
                continue;
            }
            if !needle.is_empty() && !matches(keys) {
                continue;
            }
            let rank = match (session.header.cwd.as_deref(), target.cwd) {
                (Some(c), Some(t)) if c == t => 0,
                (None, _) => 1,
                _ => 2,
            };
            // A rank already holding enough matches cannot add to the cut.
            if ranks[rank].len() < wanted {
                ranks[rank].push(i);
            }
            if ranks[0].len() >= wanted {
                break;
            }
        }
        ranks
            .iter()
            .flatten()
            .take(wanted)
            .filter_map(|&i| sessions.get(i).cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Locator, SessionHeader as Header};
    use crate::reference::candidates::candidates;

    fn session(
        id: &str,
        created_at: u64,
        cwd: Option<&str>,
        title: Option<&str>,
        label: Option<&str>,
    ) -> Session {
        Session {
            header: Header {
                version: 1,
                id: id.to_string(),
                created_at,
                cwd: cwd.map(String::from),
                label: label.map(String::from),
            },
            locator: Locator {
                store: 0,
                format: "hydra",
                name: format!("{id}.jsonl").into_bytes().into(),
            },
            title: title.map(String::from),
            capacity: None,
            unreadable: None,
            skipped_lines: 0,
        }
    }

    /// Pre-selection then the core equals the core on every session.
    #[test]
    fn preselection_changes_nothing() {
        let cwds = [Some("/a"), Some("/b"), None, Some("/A")];
        let titles = [None, Some("Tax Rounding"), Some("ΣΊΣΥΦΟΣ"), Some("cart")];
        let mut sessions = Vec::new();
        for i in 0..60u64 {
            let id = format!("s{}", i % 23);
            let label = (i % 5 == 0).then_some("sub-Agent");
            sessions.push(session(
                &format!("{id}-{i}"),
                i % 7,
                cwds[(i % 4) as usize],
                titles[(i % 3) as usize],
                label,
            ));
        }
        let search = Search::new(&sessions);
        for query in [
            "",
            "s1",
            "TAX",
            "σίσυφος",
            "/a",
            "agent",
            "zzz",
            "-1",
            "1\0/",
            "\0",
        ] {
            for cwd in [None, Some("/a"), Some("/A")] {
                for self_id in [None, Some("s1-1")] {
                    for limit in [1usize, 2, 5, 17, 60, 1000] {
                        let target = Target {
                            session_id: self_id,
                            cwd,
                        };
                        let whole = candidates(&sessions, target, query, limit as u64).unwrap();
                        let subset = search.preselect(&sessions, target, query, limit);
                        let fast = candidates(&subset, target, query, limit as u64).unwrap();
                        assert_eq!(fast, whole, "{query:?} {cwd:?} {self_id:?} {limit}");
                    }
                }
            }
        }
    }
}
