//! A walk's logs scanned in batches (`Catalog::begin_walk`,
//! `Catalog::scan_batch`) end as one pass does, and each batch shows more
//! of the same sessions.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use super::catalog::Catalog;
use super::file_state::Found;
use super::release::KEEP_SCANNER_FOR;
use crate::formats::FormatChoice;
use crate::model::Session;

fn header(id: &str, created_at: u64) -> String {
    format!("{{\"type\":\"session\",\"id\":\"{id}\",\"createdAt\":{created_at}}}\n")
}

/// Brings `catalog` to a walk of its root in batches, the first of
/// `first` logs; the sessions after each batch but the last.
fn scan_in_batches(catalog: &mut Catalog, first: usize) -> Vec<Vec<Session>> {
    scan_releasing(catalog, first, None)
}

/// As [`scan_in_batches`], letting go of old logs' scanners as of
/// `release` (a long-lived face's first scan).
fn scan_releasing(
    catalog: &mut Catalog,
    first: usize,
    release: Option<SystemTime>,
) -> Vec<Vec<Session>> {
    let walked = catalog.walker().walk();
    let mut batches = catalog.begin_walk(walked).with_first_batch(first);
    let mut shown = Vec::new();
    while catalog.scan_batch(&mut batches, release) {
        shown.push(catalog.sessions());
    }
    shown
}

/// The ids with their winning logs' names, in name order.
fn winners(catalog: &Catalog) -> Vec<(String, Vec<u8>)> {
    catalog
        .ids()
        .map(|(id, rel)| (id.into_owned(), rel.to_vec()))
        .collect()
}

fn assert_same(batched: &Catalog, whole: &Catalog, what: &str) {
    assert_eq!(batched.sessions(), whole.sessions(), "{what}");
    assert_eq!(winners(batched), winners(whole), "{what}");
    assert_eq!(batched.notes(), whole.notes(), "{what}");
    assert_eq!(batched.len(), whole.len(), "{what}");
}

/// A Gemini CLI chat document (`X.json`) of the session `doc-1`.
const GEMINI_DOCUMENT: &str = r#"{"sessionId":"doc-1","projectHash":"h","startTime":"2026-01-10T02:08:00.000Z","lastUpdated":"2026-01-10T02:09:00.000Z","messages":[{"id":"a","timestamp":"2026-01-10T02:08:01.000Z","type":"user","content":"hello"}]}"#;
/// The same session as a Gemini CLI log (`X.jsonl`), which wins over it.
const GEMINI_LOG: &str = concat!(
    r#"{"sessionId":"doc-1","projectHash":"h","startTime":"2026-01-10T02:08:00.000Z","summary":"From the log"}"#,
    "\n",
    r#"{"id":"a","timestamp":"2026-01-10T02:08:01.000Z","type":"user","content":[{"text":"hello"}]}"#,
    "\n"
);

/// Hydra logs over several folders, every fifth id twice (the first name
/// wins); a sub-agent whose parent sorts after it (its label comes from
/// a later batch); a Gemini chat document.
fn store(root: &Path) {
    for d in 0..4 {
        fs::create_dir(root.join(format!("d{d}"))).unwrap();
    }
    for i in 0..40u64 {
        let id = format!("id{}", if i % 5 == 0 { i / 5 } else { i });
        fs::write(
            root.join(format!("d{}/s{i:02}.jsonl", i % 4)),
            header(&id, i),
        )
        .unwrap();
    }
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sessions/2026/11");
    fs::copy(
        demo.join("test-writer.jsonl"),
        root.join("a-test-writer.jsonl"),
    )
    .unwrap();
    fs::copy(
        demo.join("checkout-tax.jsonl"),
        root.join("z-checkout-tax.jsonl"),
    )
    .unwrap();
    let chats = root.join("proj/chats");
    fs::create_dir_all(&chats).unwrap();
    fs::write(
        chats.join("session-2026-01-10T02-08-doc1.json"),
        GEMINI_DOCUMENT,
    )
    .unwrap();
}

#[test]
fn a_scan_in_batches_ends_as_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    store(root);
    let empty = || Catalog::empty(root, 0, FormatChoice::Auto, true);
    let whole = Catalog::scan(root);
    assert!(whole.sessions().iter().any(|s| s.header.label.is_some()));
    for first in [1, 3, 10, 1000] {
        let mut batched = empty();
        let shown = scan_in_batches(&mut batched, first);
        assert_eq!(shown.is_empty(), first >= 1000, "first batch {first}");
        assert_same(
            &batched,
            &whole,
            &format!("first scan, first batch {first}"),
        );
    }

    // Then, in name order: a log beside the chat document (which it
    // shadows), a duplicate named before its winner, one removed, one
    // grown.
    let mut batched = empty();
    scan_in_batches(&mut batched, 4);
    fs::write(
        root.join("proj/chats/session-2026-01-10T02-08-doc1.jsonl"),
        GEMINI_LOG,
    )
    .unwrap();
    fs::write(root.join("d0/a-first.jsonl"), header("id7", 99)).unwrap();
    fs::remove_file(root.join("d1/s05.jsonl")).unwrap();
    let title = "{\"seq\":1,\"type\":\"session/title\",\"data\":{\"title\":\"Grown\"}}\n";
    let grown = header("id13", 13) + title;
    fs::write(root.join("d1/s13.jsonl"), grown).unwrap();
    scan_in_batches(&mut batched, 2);
    let whole = Catalog::scan(root);
    assert_eq!(
        whole.get("doc-1").and_then(|s| s.title),
        Some("From the log".into())
    );
    assert_same(&batched, &whole, "rescan after changes");
}

/// A first scan's batches are in name order, and so are the sessions: each
/// batch shows the sessions of the last and more, the first of them as
/// the whole scan has them.
#[test]
fn each_batch_of_a_first_scan_shows_a_longer_prefix() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..20u64 {
        fs::write(
            dir.path().join(format!("s{i:02}.jsonl")),
            header(&format!("id{i}"), i),
        )
        .unwrap();
    }
    let mut catalog = Catalog::empty(dir.path(), 0, FormatChoice::Auto, true);
    let shown = scan_in_batches(&mut catalog, 3);
    let all = catalog.sessions();
    // Each batch at least as large as what the catalog holds: 3, 3, 6, 8.
    let lengths: Vec<usize> = shown.iter().map(Vec::len).collect();
    assert_eq!(lengths, [3, 6, 12]);
    for part in &shown {
        assert_eq!(part[..], all[..part.len()]);
    }
    assert_eq!(all.len(), 20);
}

/// A long-lived face's first scan lets go of its old logs' scanners batch
/// by batch: it ends as one pass does, holds every old log as a record,
/// and a record that grows is read again.
#[test]
fn a_scan_that_lets_go_of_old_scanners_ends_as_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    store(root);
    let whole = Catalog::scan(root);
    // Every log is old an hour past the window.
    let later = SystemTime::now() + 2 * KEEP_SCANNER_FOR;
    for first in [1, 3, 10, 1000] {
        let mut batched = Catalog::empty(root, 0, FormatChoice::Auto, true);
        let shown = scan_releasing(&mut batched, first, Some(later));
        let plain = {
            let mut plain = Catalog::empty(root, 0, FormatChoice::Auto, true);
            scan_in_batches(&mut plain, first)
        };
        assert_eq!(shown, plain, "first batch {first}: what each batch shows");
        assert_same(&batched, &whole, &format!("released, first batch {first}"));
        assert!(
            batched
                .files
                .values()
                .all(|s| !matches!(s.found, Found::Scanner(_))),
            "first batch {first}: every session's log held as a record"
        );
        assert!(batched.recorded().1 > 40);
    }
    // Of what was just written, the latest of each part keep their
    // scanners, the others are let go as if old; the scan ends the same.
    let mut fresh = Catalog::empty(root, 0, FormatChoice::Auto, true);
    scan_releasing(&mut fresh, 3, Some(SystemTime::now()));
    let (files, recorded) = fresh.recorded();
    assert!(recorded > 0 && recorded < files, "{recorded} of {files}");
    assert_same(&fresh, &whole, "fresh logs, the latest kept");

    let mut batched = Catalog::empty(root, 0, FormatChoice::Auto, true);
    scan_releasing(&mut batched, 4, Some(later));
    let title = "{\"seq\":1,\"type\":\"session/title\",\"data\":{\"title\":\"Grown\"}}\n";
    fs::write(root.join("d1/s13.jsonl"), header("id13", 13) + title).unwrap();
    scan_in_batches(&mut batched, 2);
    assert_eq!(
        batched.get("id13").and_then(|s| s.title),
        Some("Grown".into())
    );
    assert_same(&batched, &Catalog::scan(root), "a released log grown");
}
