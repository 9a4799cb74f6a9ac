//! The table's ranking against the rule of reference.md §7 written out
//! naively (sort everything, then a stable sort by workspace rank), over
//! stores shaped to reach every path of the selection.

use super::*;
use crate::model::{Locator, SessionHeader as Header};

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
        stamp: 0,
    }
}

/// reference.md §7, word for word: every session but the target, newest
/// first (ties by id bytes), filtered, then ranked by a stable sort.
fn spec_candidates(
    sessions: &[Session],
    target: Target<'_>,
    query: &str,
    limit: usize,
) -> Candidates {
    let needle = query.to_lowercase();
    let lower = |s: &str| s.to_lowercase().contains(&needle);
    let mut picked: Vec<&Session> = sessions
        .iter()
        .filter(|s| Some(s.id()) != target.session_id)
        .filter(|s| {
            needle.is_empty()
                || lower(s.id())
                || s.header.cwd.as_deref().is_some_and(lower)
                || lower(s.label())
                || s.header.label.as_deref().is_some_and(lower)
        })
        .collect();
    picked.sort_by(|a, b| {
        b.header
            .created_at
            .cmp(&a.header.created_at)
            .then_with(|| a.id().as_bytes().cmp(b.id().as_bytes()))
    });
    let rank = |s: &Session| match (s.header.cwd.as_deref(), target.cwd) {
        (Some(c), Some(t)) if c == t => 0,
        (None, _) => 1,
        _ => 2,
    };
    picked.sort_by_key(|s| rank(s));
    Candidates {
        incomplete: picked.len() > limit,
        items: picked
            .into_iter()
            .take(limit)
            .map(|s| Candidate {
                session_id: s.id().to_string(),
                label: s.label().to_string(),
                display_title: s.header.label.clone(),
                cwd: s.header.cwd.clone(),
                same_workspace: rank(s) == 0,
                created_at: s.header.created_at,
                mention: crate::reference::mention::format(
                    s.id(),
                    Some(s.header.label.as_deref().unwrap_or(s.label())),
                ),
                format: s.locator.format,
            })
            .collect(),
    }
}

/// A store with a large cwd, small ones, a rare one, sessions without a
/// cwd, titles that hold cwds' text, shared creation times and a NUL.
fn store(count: u64) -> Vec<Session> {
    let titles = [None, Some("Tax Rounding"), Some("ΣΊΣΥΦΟΣ"), Some("cart /b")];
    let mut sessions = Vec::new();
    for i in 0..count {
        let cwd = match i % 10 {
            0..=4 => Some("/a"),
            5 | 6 => Some("/b"),
            7 => None,
            8 => Some("/A"),
            _ if i % 50 == 9 => Some("/rare"),
            _ => Some(["/c1", "/c2", "/c3"][(i % 3) as usize]),
        };
        let label = (i % 5 == 0).then_some("sub-Agent");
        sessions.push(session(
            &format!("s{}-{i}", i % 23),
            i % 7,
            cwd,
            titles[(i % 4) as usize],
            label,
        ));
    }
    sessions.push(session("nul\0id", 3, Some("/b\0c"), Some("x\0y"), None));
    sessions
}

#[test]
fn ranking_follows_the_rule() {
    for count in [0u64, 7, 60, 400] {
        let sessions = store(count);
        let table: SessionTable = sessions.iter().cloned().collect();
        for query in [
            "",
            "s1",
            "TAX",
            "σίσυφος",
            "/a",
            "/",
            "a",
            "agent",
            "zzz",
            "-1",
            "1\0/",
            "\0",
            "x\0y",
            "b\0c",
            "/c",
            "rare",
            "/b",
        ] {
            for cwd in [None, Some("/a"), Some("/A"), Some("/rare"), Some("/zz")] {
                for self_id in [None, Some("s1-1"), Some("s2-2")] {
                    for limit in [1usize, 2, 5, 17, 60, 1000] {
                        let target = Target {
                            session_id: self_id,
                            cwd,
                        };
                        let got = table.candidates(target, query, limit as u64).unwrap();
                        let want = spec_candidates(&sessions, target, query, limit);
                        assert_eq!(got, want, "{count} {query:?} {cwd:?} {self_id:?} {limit}");
                    }
                }
            }
        }
    }
}

/// Sessions sharing an id (a slice, not a store) are all listed, and all
/// left out when they are the target.
#[test]
fn shared_ids_are_each_ranked() {
    let sessions = vec![
        session("a", 1, None, Some("one"), None),
        session("a", 1, None, Some("two"), None),
        session("b", 2, None, None, None),
    ];
    let table: SessionTable = sessions.iter().cloned().collect();
    for self_id in [None, Some("a"), Some("b")] {
        let target = Target {
            session_id: self_id,
            cwd: None,
        };
        assert_eq!(
            table.candidates(target, "", 50).unwrap(),
            spec_candidates(&sessions, target, "", 50)
        );
    }
}

#[test]
fn a_bad_limit_is_refused() {
    let table = SessionTable::default();
    for limit in [0, crate::model::MAX_SAFE_INTEGER + 1] {
        let err = table.candidates(Target::default(), "", limit).unwrap_err();
        assert_eq!(err.code, crate::reference::ErrorCode::InvalidReference);
    }
}

/// A row stays at 88 bytes: 100,000 of them are a table.
#[test]
fn a_row_is_88_bytes() {
    assert_eq!(std::mem::size_of::<Row>(), 88);
}

/// A session comes back from the table as it went in.
#[test]
fn sessions_round_trip() {
    let mut with_all = session("b", 5, Some("/w"), Some("Title"), Some("Label"));
    with_all.capacity = Some(200_000);
    with_all.unreadable = Some("line 3: bad".into());
    with_all.skipped_lines = 4;
    with_all.locator.store = 2;
    with_all.locator.format = "codex";
    // Empty strings and a capacity of 0 are kept apart from none.
    let mut empties = session("e", 2, Some(""), Some(""), Some(""));
    empties.capacity = Some(0);
    empties.unreadable = Some(String::new());
    let sessions = vec![
        session("a", 1, None, None, None),
        with_all,
        session("c", 9, Some("/w"), None, None),
        empties,
    ];
    let table: SessionTable = sessions.iter().cloned().collect();
    assert_eq!(table.len(), 4);
    for s in &sessions {
        assert_eq!(table.get(s.id()).as_ref(), Some(s));
    }
    assert_eq!(table.get("d"), None);
    let (ranked, _) = table.rank(Target::default(), "b", 50).unwrap();
    assert_eq!(ranked.len(), 1);
    assert_eq!(ranked[0].format(), "codex");
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

#[test]
fn a_permutation_is_applied_in_place() {
    let mut rng = 0x9e37_79b9_u64;
    for len in [0usize, 1, 2, 3, 7, 100] {
        // A shuffled order (Fisher–Yates on a small xorshift).
        let mut order: Vec<u32> = (0..len as u32).collect();
        for i in (1..len).rev() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            order.swap(i, (rng % (i as u64 + 1)) as usize);
        }
        let want: Vec<u32> = order.iter().map(|&from| from * 10).collect();
        let mut values: Vec<u32> = (0..len as u32).map(|v| v * 10).collect();
        permute(&mut order, |a, b| values.swap(a, b));
        assert_eq!(values, want, "length {len}");
        assert!(order.iter().enumerate().all(|(i, &o)| o as usize == i));
    }
}
