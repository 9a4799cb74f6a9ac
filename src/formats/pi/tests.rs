//! The Pi format on fixtures written here (their expected events in golden
//! files beside them), hand-written expectations of the hardest cases
//! (branches off the live path, compaction with `firstKeptEntryId`, v1
//! `firstKeptEntryIndex`, a title from `session_info`), generated logs,
//! and the shared real files in `../shared/real-logs/pi`.

use std::path::{Path, PathBuf};

use super::*;
use crate::formats::toolkit::golden::{assert_golden, assert_golden_file, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::toolkit::test_support::{lines, marked_surface, owned, scan_lines, unplaced};
use crate::formats::{HeaderState, LogFormat};

const SHOP: &str = "tests/fixtures/pi/sessions/--home-ana-shop--";
const V3: &str = "2026-03-04T10-00-00-000Z_5f0c2a1e-8b3d-4c7a-9e21-3d4b5c6d7e8f.jsonl";
const V1: &str = "2025-11-01T08-00-00-000Z_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl";
const HEADER_ONLY: &str = "2026-03-05T09-00-00-000Z_9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b.jsonl";

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(SHOP).join(name)
}

#[test]
fn the_fixtures_read_as_their_golden_files_say() {
    for name in [V3, V1, HEADER_ONLY] {
        let path = own(name);
        assert_golden(&path, &read_as_json(&Pi, &unplaced(&path)));
    }
}

#[test]
fn branches_off_the_live_path_and_a_compaction_with_its_kept_tail() {
    let log = unplaced(&own(V3));
    // The abandoned branch (u3, a4 and its session_info) is off the path;
    // the compaction keeps u7 on, after its summary; tool results, the
    // `!command`, the branch summary and the injected message are never
    // shown.
    assert_eq!(
        marked_surface(&Pi, &log),
        owned(&[
            (
                "checkpoint",
                "The cart total drifted; lines are now rounded first."
            ),
            ("user", "Round per line\nand keep the cents"),
            ("assistant", "Rounding each line first."),
            ("assistant", "Done: `cart::total` rounds per line."),
            ("user", "Now add a test"),
            ("assistant", "Added `tests/cart.rs`."),
        ])
    );
    let summary = Pi.read(&log, &|| false, &mut |_| {}).unwrap();
    // The last named session_info in the file, trimmed.
    assert_eq!(summary.title.as_deref(), Some("Cart rounding"));
    assert_eq!(summary.header.id, "5f0c2a1e-8b3d-4c7a-9e21-3d4b5c6d7e8f");
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/ana/shop"));
    assert_eq!(
        Some(summary.header.created_at),
        crate::formats::text::parse_timestamp("2026-03-04T10:00:00Z")
    );
    // The line that is not JSON, and the label entry without an id.
    assert_eq!(summary.skipped_lines, 2);
    assert_eq!(summary.captured_through_seq, Some(20));
    assert_eq!(summary.capacity, None);
}

#[test]
fn a_v1_compaction_names_its_first_kept_entry_by_index() {
    // Index 3 counts the header as 0 and every line that parses: the line
    // that is not JSON is not counted, so it is the second user message.
    let log = unplaced(&own(V1));
    assert_eq!(
        marked_surface(&Pi, &log),
        owned(&[
            ("checkpoint", "Endpoints listed."),
            ("user", "What does /health return?"),
            ("assistant", "`{\"ok\":true}`."),
            ("user", "And /cart?"),
            ("assistant", "The cart as JSON."),
        ])
    );
    let summary = Pi.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.title.as_deref(), Some("List the endpoints."));
    assert_eq!(summary.skipped_lines, 1);
}

#[test]
fn a_header_only_file_is_no_session() {
    let log = unplaced(&own(HEADER_ONLY));
    let err = Pi.read(&log, &|| false, &mut |_| {}).unwrap_err();
    assert!(
        err.to_string().contains("no user or assistant message"),
        "{err}"
    );
    assert_eq!(scan_lines(&Pi, &log).header(), HeaderState::Pending);
}

const H3: &str =
    r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}"#;

#[test]
fn compaction_corner_cases() {
    // A compaction whose kept entry is not on the path keeps nothing; an
    // empty summary gets the stand-in text; an earlier compaction on the
    // path is never projected.
    let log = lines(&[
        H3,
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"one"}}"#,
        r#"{"type":"compaction","id":"k1","parentId":"a","summary":"first","firstKeptEntryId":"a"}"#,
        r#"{"type":"message","id":"b","parentId":"k1","message":{"role":"user","content":"two"}}"#,
        r#"{"type":"message","id":"z","parentId":null,"message":{"role":"user","content":"elsewhere"}}"#,
        r#"{"type":"compaction","id":"k2","parentId":"b","summary":"  ","firstKeptEntryId":"z"}"#,
        r#"{"type":"message","id":"c","parentId":"k2","message":{"role":"assistant","content":[{"type":"text","text":"three"}]}}"#,
    ]);
    assert_eq!(
        marked_surface(&Pi, &log),
        owned(&[
            ("checkpoint", crate::formats::copilot_cli::track::NO_SUMMARY),
            ("assistant", "three"),
        ])
    );
    // The title is the first user message in the file.
    let summary = Pi.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.title.as_deref(), Some("one"));
}

#[test]
fn the_leaf_is_the_last_entry_with_an_id_and_times_fall_back() {
    // No header time: the earliest entry's; an entry without an id (v3)
    // is skipped, and the leaf is the last entry that has one.
    let log = lines(&[
        r#"{"type":"session","version":3,"id":"s","timestamp":"later","cwd":""}"#,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-02T00:00:00Z","message":{"role":"user","content":"root"}}"#,
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"kept"}]}}"#,
        r#"{"type":"message","id":"c","parentId":"a","message":{"role":"assistant","content":[{"type":"text","text":"side"}]}}"#,
        r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"again b"}}"#,
        r#"{"type":"message","parentId":"c","message":{"role":"user","content":"no id"}}"#,
        "",
        "[1,2]",
    ]);
    assert_eq!(
        marked_surface(&Pi, &log),
        owned(&[("user", "root"), ("user", "again b")])
    );
    let summary = Pi.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        Some(summary.header.created_at),
        crate::formats::text::parse_timestamp("2026-01-01T00:00:00Z")
    );
    assert_eq!(summary.header.cwd, None);
    assert_eq!(summary.skipped_lines, 2);
    let scanner = scan_lines(&Pi, &log);
    assert_eq!(scanner.header(), HeaderState::Session(summary.header));
    // No time anywhere: the file's.
    let undated = lines(&[
        r#"{"type":"session","id":"s","timestamp":"x"}"#,
        r#"{"type":"message","message":{"role":"user","content":"hi"}}"#,
    ]);
    assert_eq!(
        Pi.read(&undated, &|| false, &mut |_| {})
            .unwrap()
            .header
            .created_at,
        7
    );
}

#[test]
fn files_that_are_not_sessions_and_bad_bytes() {
    for first in [
        "",
        "[1]",
        r#"{"type":"session","id":5}"#,
        r#"{"type":"message"}"#,
    ] {
        let log = lines(&[
            first,
            r#"{"type":"message","message":{"role":"user","content":"hi"}}"#,
        ]);
        assert!(Pi.read(&log, &|| false, &mut |_| {}).is_err(), "{first}");
        assert!(
            matches!(scan_lines(&Pi, &log).header(), HeaderState::NotASession(_)),
            "{first}"
        );
    }
    // A named `pi` store reads a `session` header with a string id even
    // when `auto` would give it to hydra.
    let hydra_like = lines(&[
        r#"{"type":"session","id":"h","createdAt":5}"#,
        r#"{"type":"message","message":{"role":"user","content":"hi"}}"#,
    ]);
    assert!(Pi.read(&hydra_like, &|| false, &mut |_| {}).is_ok());
    assert!(!Pi.recognizes(br#"{"type":"session","id":"h","createdAt":5}"#));
    let mut bytes = format!("{H3}\n").into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"message\",\"id\":\"\xff\"}\n");
    let log = MemoryLog::new(bytes);
    let err = Pi.read(&log, &|| false, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains(":2: invalid UTF-8"), "{err}");
    assert!(scan_lines(&Pi, &log).meta().failure.is_some());
}

#[test]
fn auto_tells_hydra_and_pi_apart() {
    let detect = |line: &str| crate::formats::detect(line.as_bytes()).map(|f| f.name());
    assert_eq!(detect(H3), Some("pi"));
    assert_eq!(crate::formats::display_name("pi"), Some("Pi"));
    assert_eq!(crate::formats::display_name("qwen-code"), Some("Qwen Code"));
    assert_eq!(
        detect(r#"{"type":"session","id":"h","timestamp":"t","createdAt":1}"#),
        Some("hydra")
    );
    assert_eq!(detect(r#"{"type":"session","id":"h"}"#), Some("hydra"));
    assert_eq!(
        detect(r#"{"type":"session","id":1,"timestamp":"t"}"#),
        Some("hydra")
    );
}

#[test]
fn the_shared_real_files_read_as_their_golden_files_say() {
    let Some(dir) = real_logs("pi") else {
        return;
    };
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi-golden");
    let project = dir.join("--Users-badlogic-workspaces-pi-mono--");
    for name in [
        "2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl",
        "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl",
    ] {
        let log = unplaced(&project.join(name));
        let read = read_as_json(&Pi, &log);
        assert_golden_file(&golden.join(format!("{name}.expected.json")), &read);
        // The scan agrees with the read.
        let summary = Pi.read(&log, &|| false, &mut |_| {}).unwrap();
        let scanner = scan_lines(&Pi, &log);
        assert_eq!(scanner.header(), HeaderState::Session(summary.header));
        assert_eq!(scanner.meta().title, summary.title);
        assert_eq!(scanner.meta().skipped_lines, summary.skipped_lines);
    }
}

/// A pool of entry lines for generated logs: messages, branches, a
/// compaction, names, lines that are not entries.
fn pool() -> Vec<String> {
    let ids = ["a", "b", "c", "d"];
    let mut pool = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"{}\"", ids[i - 1])
        };
        pool.push(format!(r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-0{}T00:00:00Z","message":{{"role":"user","content":"u {id}"}}}}"#, i + 1));
        pool.push(format!(r#"{{"type":"message","id":"{id}x","parentId":"{id}","message":{{"role":"assistant","content":[{{"type":"text","text":"a {id}"}}]}}}}"#));
    }
    pool.push(r#"{"type":"compaction","id":"k","parentId":"cx","summary":"sum","firstKeptEntryId":"b","firstKeptEntryIndex":2}"#.into());
    pool.push(
        r#"{"type":"message","id":"e","parentId":"k","message":{"role":"user","content":"after"}}"#
            .into(),
    );
    pool.push(r#"{"type":"session_info","id":"n","parentId":"a","name":"Named"}"#.into());
    pool.push(r#"{"type":"message","id":"t","parentId":"ax","message":{"role":"toolResult","content":[]}}"#.into());
    pool.push(
        r#"{"type":"message","parentId":"a","message":{"role":"user","content":"no id"}}"#.into(),
    );
    pool.push("not json".into());
    pool.push(String::new());
    pool.push("7".into());
    pool
}

proptest::proptest! {
    /// Any generated log, cut anywhere, never panics; a scan and a read
    /// agree on the header, title and skipped lines; seqs increase.
    #[test]
    fn a_scan_and_a_read_agree_on_any_cut_of_any_log(
        v1 in proptest::bool::ANY,
        picks in proptest::collection::vec(0usize..16, 0..30),
        cut in 0usize..4000,
    ) {
        let pool = pool();
        let header = if v1 {
            r#"{"type":"session","id":"g","timestamp":"2026-01-01T00:00:00Z"}"#
        } else {
            H3
        };
        let mut bytes = format!("{header}\n").into_bytes();
        for &p in &picks {
            bytes.extend_from_slice(pool[p].as_bytes());
            bytes.push(b'\n');
        }
        let cut = cut.min(bytes.len());
        let log = MemoryLog::new(bytes[..cut].to_vec()).modified(7);
        let mut seqs = Vec::new();
        let read = Pi.read(&log, &|| false, &mut |e| seqs.push(e.seq));
        proptest::prop_assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{:?}", seqs);
        let scanner = scan_lines(&Pi, &log);
        match read {
            Ok(summary) => {
                proptest::prop_assert_eq!(scanner.header(), HeaderState::Session(summary.header.clone()));
                let meta = scanner.meta();
                proptest::prop_assert_eq!(meta.title, summary.title);
                proptest::prop_assert_eq!(meta.skipped_lines, summary.skipped_lines);
            }
            Err(_) => proptest::prop_assert!(!matches!(scanner.header(), HeaderState::Session(_))),
        }
        // Fed in two parts, as after an append.
        let whole = scan_lines(&Pi, &MemoryLog::new(bytes.clone()));
        let head = &bytes[..cut];
        let complete = head.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut pieces = scan_lines(&Pi, &MemoryLog::new(bytes[..complete].to_vec()));
        let rest = &bytes[complete..];
        if let Some(rest) = rest.strip_suffix(b"\n") {
            for l in rest.split(|&b| b == b'\n') {
                pieces.line(l);
            }
        }
        proptest::prop_assert_eq!(pieces.header(), whole.header());
        proptest::prop_assert_eq!(pieces.meta(), whole.meta());
    }
}
