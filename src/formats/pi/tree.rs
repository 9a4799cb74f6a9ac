//! The entries of one Pi session as a full read keeps them, and the live
//! branch walked through them (agent-logs-files-3.md "Pi", The live
//! branch, Compaction).
//!
//! Memory: Pi finds the live branch through an id → entry map of the
//! whole file, and the branch is known only once the last entry is read
//! (the leaf is the file's last entry), so a read keeps one [`Node`] per
//! entry — its line and index among parsed lines, its id and parent as
//! 64-bit hashes, whether it is a message or a compaction: 32 bytes
//! whatever the entry's size — plus one [`Kept`] per compaction, and the
//! walk's sorted index and visited marks (5 bytes per entry) while it
//! runs. Hashes, not the ids: a Pi id is 8 hex digits or a UUID, and two
//! ids with the same 64-bit hash are as unlikely as in the Claude Code
//! reader. No text is kept: the path's lines are parsed again later.

use std::hash::BuildHasher;

use super::unverified;

/// A 64-bit hash of an id, kept in memory only; never 0 ("none").
pub fn id_hash(id: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(id).max(1)
}

/// What a compaction names as its first kept entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// v2/v3 `firstKeptEntryId`, hashed.
    Id(u64),
    /// v1 `firstKeptEntryIndex`: the index among the file's parsed lines.
    Index(u64),
    None,
}

/// One entry.
#[derive(Debug, Clone, Copy)]
struct Node {
    line: u32,
    /// Its index among the file's parsed lines (the header is 0).
    parsed: u32,
    id: u64,
    parent: u64,
    message: bool,
    /// Its index in `Tree::compactions`, when it is a compaction.
    compaction: u32,
}

const NONE: u32 = u32::MAX;

/// Every entry of the file, in file order.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    nodes: Vec<Node>,
    compactions: Vec<Kept>,
}

/// What a read projects: lines in file order, and the checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The lines of the messages to project, ascending.
    pub lines: Vec<u64>,
    pub checkpoint: Option<Checkpoint>,
}

/// The compaction that decides the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// The compaction entry's line (its summary is read there).
    pub line: u64,
    /// The checkpoint's seq: before every projected line.
    pub seq: u64,
}

impl Tree {
    /// Records an entry. Past 2^32 − 1 lines (a file of many gigabytes)
    /// nothing more is recorded: those lines are never on the surface.
    pub fn record(
        &mut self,
        line: u64,
        parsed: u64,
        id: Option<&str>,
        parent: Option<&str>,
        message: bool,
        kept: Option<Kept>,
    ) {
        let (Ok(line), Ok(parsed)) = (u32::try_from(line), u32::try_from(parsed)) else {
            return;
        };
        if line == NONE || self.compactions.len() >= NONE as usize {
            return;
        }
        let compaction = match kept {
            Some(kept) => {
                self.compactions.push(kept);
                u32::try_from(self.compactions.len() - 1).unwrap_or(NONE)
            }
            None => NONE,
        };
        self.nodes.push(Node {
            line,
            parsed,
            id: id.map_or(0, id_hash),
            parent: parent.map_or(0, id_hash),
            message,
            compaction,
        });
    }

    /// The path from the root to the leaf, as node indices: v1 chains
    /// every entry to the one before it (the whole file is the path); v2
    /// and v3 walk from the file's last entry by `parentId`.
    fn path(&self, tree: bool) -> Vec<u32> {
        let n = u32::try_from(self.nodes.len()).unwrap_or(NONE);
        if !tree {
            return (0..n).collect();
        }
        // Node indices sorted by id, then index: a repeated id resolves to
        // its last line (Pi's `Map.set`).
        let mut order: Vec<u32> = (0..n).collect();
        let id = |i: u32| self.nodes.get(i as usize).map_or(0, |n| n.id);
        order.sort_unstable_by_key(|&i| (id(i), i));
        let find = |hash: u64| -> Option<u32> {
            let end = order.partition_point(|&i| id(i) <= hash);
            end.checked_sub(1)
                .and_then(|at| order.get(at).copied())
                .filter(|&i| id(i) == hash)
        };
        let mut seen = vec![false; self.nodes.len()];
        let mut path = Vec::new();
        let mut cur = n.checked_sub(1);
        while let Some(i) = cur {
            if !unverified::walk_enters(&mut seen, i) {
                break;
            }
            path.push(i);
            cur = self
                .nodes
                .get(i as usize)
                .map(|n| n.parent)
                .filter(|&p| p != 0)
                .and_then(find);
        }
        path.reverse();
        path
    }

    /// What a read projects (`tree`: whether the file is v2/v3).
    pub fn plan(&self, tree: bool) -> Plan {
        let path = self.path(tree);
        let node = |i: u32| self.nodes.get(i as usize).copied();
        let k = path
            .iter()
            .rposition(|&i| node(i).is_some_and(|n| n.compaction != NONE));
        let Some(k) = k else {
            return Plan {
                lines: ascending(
                    path.iter()
                        .filter_map(|&i| node(i))
                        .filter(|n| n.message)
                        .map(|n| u64::from(n.line))
                        .collect(),
                ),
                checkpoint: None,
            };
        };
        let compaction = path.get(k).and_then(|&i| node(i));
        let kept = compaction
            .and_then(|c| self.compactions.get(c.compaction as usize))
            .copied()
            .unwrap_or(Kept::None);
        let before = path.get(..k).unwrap_or_default();
        let first_kept = before.iter().position(|&i| {
            node(i).is_some_and(|n| match kept {
                Kept::Id(id) => n.id == id,
                Kept::Index(index) => u64::from(n.parsed) == index,
                Kept::None => false,
            })
        });
        let kept_part = first_kept.map_or(&[][..], |at| before.get(at..).unwrap_or_default());
        let after = path.get(k + 1..).unwrap_or_default();
        let lines = ascending(
            kept_part
                .iter()
                .chain(after)
                .filter_map(|&i| node(i))
                .filter(|n| n.message)
                .map(|n| u64::from(n.line))
                .collect(),
        );
        let line = compaction.map_or(0, |c| u64::from(c.line));
        // The summary comes first (Pi's order): before the kept tail, which
        // is earlier in the file than the compaction. Its seq is the line
        // before the tail's first message, which is never a projected one
        // (every path message before the tail is shadowed, not projected).
        let seq = match lines.first() {
            Some(&first) if first < line => first - 1,
            _ => line,
        };
        Plan {
            lines,
            checkpoint: Some(Checkpoint { line, seq }),
        }
    }
}

/// `lines` in file order. The read takes the planned lines in one pass
/// over the file, so they must ascend: a path is not always in file order
/// (a repeated id resolves to its later line, which can sit on the path
/// before earlier lines), and a line out of order was silently dropped
/// with every later one (issue 27's hard cases found it).
fn ascending(mut lines: Vec<u64>) -> Vec<u64> {
    lines.sort_unstable();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A v3 tree from `(id, parent, message, kept)` rows, line 2 on.
    fn tree(rows: &[(&str, Option<&str>, bool, Option<Kept>)]) -> Tree {
        let mut t = Tree::default();
        for (i, (id, parent, message, kept)) in rows.iter().enumerate() {
            let line = i as u64 + 2;
            t.record(line, line - 1, Some(id), *parent, *message, *kept);
        }
        t
    }

    #[test]
    fn the_live_branch_hangs_from_the_last_entry() {
        // a ← b ← c (abandoned), a ← d ← e (the last line).
        let t = tree(&[
            ("a", None, true, None),
            ("b", Some("a"), true, None),
            ("c", Some("b"), true, None),
            ("d", Some("a"), true, None),
            ("e", Some("d"), false, None),
        ]);
        assert_eq!(t.plan(true).lines, [2, 5]);
        // v1: every entry is on the path.
        assert_eq!(t.plan(false).lines, [2, 3, 4, 5]);
    }

    #[test]
    fn a_repeated_id_is_its_last_line_and_a_cycle_ends_the_walk() {
        let t = tree(&[
            ("a", None, true, None),
            ("a", None, true, None),
            ("b", Some("a"), true, None),
        ]);
        assert_eq!(t.plan(true).lines, [3, 4]);
        let cycle = tree(&[("a", Some("b"), true, None), ("b", Some("a"), true, None)]);
        assert_eq!(cycle.plan(true).lines, [2, 3]);
        // An unknown parent ends the walk.
        let dangling = tree(&[("a", None, true, None), ("b", Some("zz"), true, None)]);
        assert_eq!(dangling.plan(true).lines, [3]);
    }

    #[test]
    fn a_compaction_keeps_its_tail_after_the_summary() {
        let k = Some(Kept::Id(id_hash("c")));
        let t = tree(&[
            ("a", None, true, None),
            ("b", Some("a"), true, None),
            ("c", Some("b"), true, None),
            ("d", Some("c"), true, None),
            ("k", Some("d"), false, k),
            ("e", Some("k"), true, None),
        ]);
        assert_eq!(
            t.plan(true),
            Plan {
                lines: vec![4, 5, 7],
                checkpoint: Some(Checkpoint { line: 6, seq: 3 }),
            }
        );
        // A first kept entry that is not on the path keeps nothing.
        let gone = tree(&[
            ("a", None, true, None),
            ("x", None, true, None),
            ("b", Some("a"), true, None),
            ("k", Some("b"), false, Some(Kept::Id(id_hash("x")))),
            ("e", Some("k"), true, None),
        ]);
        assert_eq!(
            gone.plan(true),
            Plan {
                lines: vec![6],
                checkpoint: Some(Checkpoint { line: 5, seq: 5 }),
            }
        );
        // v1: the index counts parsed lines, the header as 0.
        let mut v1 = Tree::default();
        for (line, kept) in [
            (2, None),
            (3, None),
            (4, None),
            (5, Some(Kept::Index(2))),
            (6, None),
        ] {
            v1.record(line, line - 1, None, None, kept.is_none(), kept);
        }
        assert_eq!(
            v1.plan(false),
            Plan {
                lines: vec![3, 4, 6],
                checkpoint: Some(Checkpoint { line: 5, seq: 2 }),
            }
        );
    }
}
