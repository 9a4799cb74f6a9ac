//! The `continue` format on the fixtures written here (three sessions and
//! their list, expected events in golden files under `expected/`, never
//! beside them: a `.json` in `sessions/` is a session), and on hand-written
//! documents for the corner cases.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::formats::toolkit::golden::read_as_json;
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::test_support::{assert_blessed, scan_document, surface};
use crate::formats::LogFormat;
use crate::formats::{HeaderState, ScanMeta};
use crate::model::Role;

const A: &str = "5b0e6d1a-2c3f-4e8b-9a7d-6f5e4d3c2b1a";
const B: &str = "9c8b7a6f-5e4d-4c3b-8a2f-1e0d9c8b7a6f";
const C: &str = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/continue")
}

fn session(id: &str) -> MemoryLog {
    let path = fixtures().join("sessions").join(format!("{id}.json"));
    MemoryLog::new(std::fs::read(&path).unwrap())
        .modified(7)
        .at(path)
}

/// `document` as a session file in a folder with no list.
fn doc(document: serde_json::Value) -> MemoryLog {
    MemoryLog::new(serde_json::to_vec_pretty(&document).unwrap())
        .modified(7)
        .at("/nowhere/sessions/s.json")
}

#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    for id in [A, B, C] {
        let read = read_as_json(&Continue, &session(id));
        let golden = fixtures()
            .join("expected")
            .join(format!("{id}.expected.json"));
        assert_blessed(&golden, &read);
    }
}

#[test]
fn ids_times_cwds_and_titles() {
    let a = Continue.read(&session(A), &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (
            a.header.id.as_str(),
            a.header.created_at,
            a.header.cwd.as_deref(),
            a.title.as_deref()
        ),
        (
            A,
            1_796_700_000_000,
            Some("/home/ana/my lib"),
            Some("Rename the add helper")
        )
    );
    assert_eq!((a.captured_through_seq, a.skipped_lines), (Some(8), 2));
    // `New Session` is no title; an RFC 3339 `dateCreated`; a Windows URI.
    let b = Continue.read(&session(B), &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (
            b.header.created_at,
            b.header.cwd.as_deref(),
            b.title.as_deref()
        ),
        (
            1_796_119_200_000,
            Some("c:/Users/ana/api"),
            Some("Why does the login test time out?")
        )
    );
    // Not in the list: the file's time; an empty title and cwd are none.
    let c = Continue.read(&session(C), &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (c.header.created_at, c.header.cwd, c.title.as_deref()),
        (7, None, Some("Explain this regex"))
    );
}

#[test]
fn messages_and_the_last_summary() {
    assert_eq!(
        surface(&Continue, &session(A)),
        [
            (Role::User, "Rename `add` to `sum` everywhere".to_string()),
            (
                Role::Assistant,
                "Renamed in 3 files.\nRun `cargo test` to check.".to_string()
            ),
        ]
    );
    // The summary shadows its own entry and every earlier one.
    assert_eq!(
        surface(&Continue, &session(B)),
        [
            (Role::User, "The login test timed out because the mock server ignored /token; the mock now answers it.".to_string()),
            (Role::User, "Now the logout test".to_string()),
            (Role::Assistant, "Logout passes too.".to_string()),
        ]
    );
}

#[test]
fn what_is_no_session_says_why() {
    let cases = [
        json!([]),
        json!({"history": [{"message": {"role": "user", "content": "hi"}}]}),
        json!({"sessionId": 5, "history": [{"message": {"role": "user", "content": "hi"}}]}),
        json!({"sessionId": "s", "history": {"0": 1}}),
        json!({"sessionId": "s", "history": [{"message": {"role": "tool", "content": "x"}}]}),
        json!({"sessionId": "s", "history": []}),
    ];
    for case in cases {
        let log = doc(case.clone());
        assert!(
            Continue.read(&log, &|| false, &mut |_| {}).is_err(),
            "{case}"
        );
        assert!(
            !matches!(
                scan_document(&Continue, &log).header(),
                HeaderState::Session(_)
            ),
            "{case}"
        );
    }
    // Cut inside `history` while Continue rewrites it: no session yet.
    let whole = doc(
        json!({"sessionId": "s", "history": [{"message": {"role": "user", "content": "hi"}}, {"message": {"role": "assistant", "content": "yo"}}], "title": "t"}),
    );
    let text = String::from_utf8(whole.bytes.clone()).unwrap();
    let cut_at = text.find("yo").unwrap();
    let cut = MemoryLog {
        bytes: text.as_bytes()[..cut_at].to_vec(),
        ..whole.clone()
    };
    let err = Continue
        .read(&cut, &|| false, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a Continue session"), "{err}");
    // Cut after it: a session, without what came later.
    let cut_at = text.find("\"title\"").unwrap();
    let cut = MemoryLog {
        bytes: text.as_bytes()[..cut_at].to_vec(),
        ..whole
    };
    let read = Continue.read(&cut, &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (read.header.id.as_str(), read.title.as_deref()),
        ("s", Some("hi"))
    );
}

#[test]
fn names_and_auto() {
    assert!(Continue.is_log_name(b"sessions/abc.json"));
    assert!(!Continue.is_log_name(b"sessions/sessions.json"));
    assert!(Continue.claims_name(b"/h/.continue/sessions/abc.json"));
    // Gemini CLI's name rule comes first.
    assert!(!Continue.claims_name(b"/h/sessions/session-2026-01-01.json"));
    let choice = crate::formats::FormatChoice::Fixed(&Continue);
    assert!(choice.is_log_name_in(Path::new("/h/.continue/sessions"), b"abc.json"));
    assert!(!choice.is_log_name_in(Path::new("/h/.continue/other"), b"abc.json"));
}

proptest::proptest! {
    /// Any cut of a session file never panics, and scan and read agree.
    #[test]
    fn any_cut_reads_and_the_scanner_agrees(cut in 0usize..5000, which in 0usize..3) {
        let mut log = session([A, B, C][which]);
        let cut = cut.min(log.bytes.len());
        log.bytes.truncate(cut);
        let scanner = scan_document(&Continue, &log);
        let read = Continue.read(&log, &|| false, &mut |_| {});
        match (read, scanner.header()) {
            (Ok(s), HeaderState::Session(h)) => {
                proptest::prop_assert_eq!(&s.header, &h);
                proptest::prop_assert_eq!(scanner.meta(), ScanMeta { title: s.title.clone(), capacity: None, skipped_lines: s.skipped_lines, failure: None });
            }
            (Err(_), HeaderState::NotASession(_) | HeaderState::Pending) => {}
            (read, header) => return Err(proptest::test_runner::TestCaseError::fail(format!("read {read:?}, scanner {header:?}"))),
        }
    }
}
