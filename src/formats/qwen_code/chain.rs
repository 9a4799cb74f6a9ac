//! The records of one Qwen Code chat file as a full read keeps them, and
//! the live chain walked through them (agent-logs-files-3.md "Qwen Code",
//! The live branch, Compaction).
//!
//! Memory: the chain hangs from the file's last record and walks by the
//! `parentUuid` of the first record of each uuid, so it is known only once
//! every line is read. A read keeps one [`Rec`] per record — its line, its
//! uuid and parent as 64-bit hashes, its role: about 24 bytes whatever the
//! record's size. No text is kept: pass 2 parses the chain's lines again.

use std::hash::BuildHasher;

use crate::model::Role;

fn id_hash(id: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(id).max(1)
}

#[derive(Debug, Clone, Copy)]
struct Rec {
    line: u32,
    uuid: u64,
    parent: u64,
    role: Option<Role>,
    compression: bool,
}

/// Every record of the file, in file order.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    recs: Vec<Rec>,
}

/// One line a read parses again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planned {
    /// A record of a message on the chain: its text joins the message
    /// that starts at line `node` (the first record of its uuid).
    Part {
        line: u64,
        node: u64,
        role: Role,
        /// Whether it is the message's last record.
        last: bool,
    },
    /// The compression record that decides the surface.
    Compression { line: u64 },
}

impl Planned {
    pub fn line(&self) -> u64 {
        match *self {
            Planned::Part { line, .. } | Planned::Compression { line } => line,
        }
    }
}

impl Chain {
    /// Records a record. Past 2^32 − 1 lines nothing more is recorded.
    pub fn record(
        &mut self,
        line: u64,
        uuid: &str,
        parent: Option<&str>,
        role: Option<Role>,
        compression: bool,
    ) {
        let Ok(line) = u32::try_from(line) else {
            return;
        };
        self.recs.push(Rec {
            line,
            uuid: id_hash(uuid),
            parent: parent.map_or(0, id_hash),
            role,
            compression,
        });
    }

    /// The lines to parse again, in file order.
    pub fn plan(&self) -> Vec<Planned> {
        let n = self.recs.len();
        let uuid = |i: usize| self.recs.get(i).map_or(0, |r| r.uuid);
        // Record indices by uuid, then index: a uuid's first and last
        // records are the ends of its run.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&i| (uuid(i), i));
        let first_of = |hash: u64| -> Option<usize> {
            let at = order.partition_point(|&i| uuid(i) < hash);
            order.get(at).copied().filter(|&i| uuid(i) == hash)
        };
        let last_of = |hash: u64| -> Option<usize> {
            let end = order.partition_point(|&i| uuid(i) <= hash);
            end.checked_sub(1)
                .and_then(|at| order.get(at).copied())
                .filter(|&i| uuid(i) == hash)
        };
        // The walk from the last record's uuid, by each first record's
        // parent; a null or unknown parent, or a uuid seen, ends it.
        let mut seen = vec![false; n];
        let mut on_chain = Vec::new();
        let mut cur = n.checked_sub(1).map(uuid).unwrap_or(0);
        while cur != 0 {
            let Some(first) = first_of(cur) else { break };
            match seen.get_mut(first) {
                Some(s) if !*s => *s = true,
                _ => break,
            }
            on_chain.push(cur);
            cur = self.recs.get(first).map_or(0, |r| r.parent);
        }
        on_chain.sort_unstable();
        let is_on = |hash: u64| on_chain.binary_search(&hash).is_ok();
        let compression = self
            .recs
            .iter()
            .filter(|r| r.compression && is_on(r.uuid))
            .map(|r| r.line)
            .max();
        let mut plan = Vec::new();
        for (i, r) in self.recs.iter().enumerate() {
            if !is_on(r.uuid) {
                continue;
            }
            if Some(r.line) == compression {
                plan.push(Planned::Compression {
                    line: u64::from(r.line),
                });
                continue;
            }
            let Some(head) = first_of(r.uuid).and_then(|f| self.recs.get(f)) else {
                continue;
            };
            // Everything before the compression on the chain is shadowed.
            if compression.is_some_and(|c| head.line <= c) {
                continue;
            }
            let Some(role) = head.role else { continue };
            plan.push(Planned::Part {
                line: u64::from(r.line),
                node: u64::from(head.line),
                role,
                last: last_of(r.uuid) == Some(i),
            });
        }
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: Option<Role> = Some(Role::User);
    const A: Option<Role> = Some(Role::Assistant);

    fn chain(rows: &[(&str, Option<&str>, Option<Role>, bool)]) -> Chain {
        let mut c = Chain::default();
        for (i, (uuid, parent, role, compression)) in rows.iter().enumerate() {
            c.record(i as u64 + 1, uuid, *parent, *role, *compression);
        }
        c
    }

    fn lines(plan: &[Planned]) -> Vec<u64> {
        plan.iter().map(Planned::line).collect()
    }

    #[test]
    fn the_chain_hangs_from_the_last_record_and_joins_a_uuid() {
        // a ← b (streamed over lines 2 and 4) ← t ← c; x is rewound off.
        let c = chain(&[
            ("a", None, U, false),
            ("b", Some("a"), A, false),
            ("t", Some("b"), None, false),
            ("b", Some("zz"), A, false),
            ("x", Some("t"), U, false),
            ("c", Some("t"), U, false),
        ]);
        let plan = c.plan();
        assert_eq!(lines(&plan), [1, 2, 4, 6]);
        assert_eq!(
            plan[1],
            Planned::Part {
                line: 2,
                node: 2,
                role: Role::Assistant,
                last: false
            }
        );
        assert_eq!(
            plan[2],
            Planned::Part {
                line: 4,
                node: 2,
                role: Role::Assistant,
                last: true
            }
        );
    }

    #[test]
    fn a_compression_shadows_the_chain_before_it() {
        let c = chain(&[
            ("a", None, U, false),
            ("k", Some("a"), None, true),
            ("b", Some("k"), U, false),
            ("z", None, None, true),
            ("c", Some("b"), A, false),
        ]);
        assert_eq!(
            c.plan(),
            [
                Planned::Compression { line: 2 },
                Planned::Part {
                    line: 3,
                    node: 3,
                    role: Role::User,
                    last: true
                },
                Planned::Part {
                    line: 5,
                    node: 5,
                    role: Role::Assistant,
                    last: true
                },
            ]
        );
        // A cycle ends the walk.
        let cycle = chain(&[("a", Some("b"), U, false), ("b", Some("a"), U, false)]);
        assert_eq!(lines(&cycle.plan()), [1, 2]);
        assert!(Chain::default().plan().is_empty());
    }
}
