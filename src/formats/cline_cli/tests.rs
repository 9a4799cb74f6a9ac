//! The `cline-cli` format on the fixtures written here from the shape of
//! Cline CLI 3.0.65's files (three session folders, expected events in
//! golden files under `expected/`, never beside them), and on
//! hand-written documents for the corner cases.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::formats::toolkit::golden::read_as_json;
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::test_support::{assert_blessed, scan_document, surface};
use crate::formats::LogFormat;
use crate::formats::{HeaderState, ScanMeta};
use crate::model::Role;

const A: &str = "1796700000000_k3v9q";
const B: &str = "1796700500000_z0p4m";
const C: &str = "1796700900000_e7e7e";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cline-cli")
}

fn session(id: &str) -> MemoryLog {
    let path = fixtures()
        .join("sessions")
        .join(id)
        .join(format!("{id}.messages.json"));
    MemoryLog::new(std::fs::read(&path).unwrap())
        .modified(7)
        .at(path)
}

/// `document` as the conversation of a session `s` with no metadata.
fn doc(document: serde_json::Value) -> MemoryLog {
    MemoryLog::new(serde_json::to_vec_pretty(&document).unwrap())
        .modified(7)
        .at("/nowhere/sessions/s/s.messages.json")
}

#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    for id in [A, B] {
        let read = read_as_json(&ClineCli, &session(id));
        let golden = fixtures()
            .join("expected")
            .join(format!("{id}.expected.json"));
        assert_blessed(&golden, &read);
    }
}

#[test]
fn ids_times_cwds_and_titles() {
    // From `<id>.json`: `started_at`, `cwd` before `workspace_root`, the
    // title trimmed.
    let a = ClineCli.read(&session(A), &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (
            a.header.id.as_str(),
            a.header.created_at,
            a.header.cwd.as_deref(),
            a.title.as_deref()
        ),
        (
            A,
            1_796_714_400_000,
            Some("/home/ana/shop"),
            Some("Why is the cart total off by a cent?")
        )
    );
    assert_eq!((a.captured_through_seq, a.skipped_lines), (Some(6), 0));
    // No `<id>.json`: the earliest `ts`, no cwd, the first prompt as title.
    let b = ClineCli.read(&session(B), &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (b.header.created_at, b.header.cwd, b.title.as_deref()),
        (
            1_796_700_500_100,
            None,
            Some("Rename the helper add_line to append_line")
        )
    );
    // No `ts` either: the file's time.
    let c = ClineCli
        .read(
            &doc(json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]})),
            &|| false,
            &mut |_| {},
        )
        .unwrap();
    assert_eq!((c.header.id.as_str(), c.header.created_at), ("s", 7));
}

#[test]
fn messages_unwrapped_joined_and_tool_traffic_hidden() {
    assert_eq!(
        surface(&ClineCli, &session(A)),
        [
            (
                Role::User,
                "Why is the cart total off by a cent?".to_string()
            ),
            (
                Role::Assistant,
                "Each line is rounded before the sum.\nRound the sum once instead.".to_string()
            ),
            (Role::User, "And the tax?".to_string()),
            (
                Role::Assistant,
                "The tax is rounded once, at the end.".to_string()
            ),
        ]
    );
}

#[test]
fn what_is_no_session_says_why() {
    // Only a tool call and its result (the fixture C), whatever its
    // metadata says.
    let c = session(C);
    let err = ClineCli
        .read(&c, &|| false, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("no user or assistant message"), "{err}");
    assert!(matches!(
        scan_document(&ClineCli, &c).header(),
        HeaderState::NotASession(_)
    ));
    let cases = [
        json!([]),
        json!({"messages": {"0": 1}}),
        json!({"messages": []}),
        json!({"messages": [{"role": "system", "content": "x"}]}),
    ];
    for case in cases {
        let log = doc(case.clone());
        assert!(
            ClineCli.read(&log, &|| false, &mut |_| {}).is_err(),
            "{case}"
        );
        assert!(
            !matches!(
                scan_document(&ClineCli, &log).header(),
                HeaderState::Session(_)
            ),
            "{case}"
        );
    }
    // Not `<id>.messages.json` in its folder `<id>`: no id.
    let stray = MemoryLog::new(b"{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}".to_vec())
        .at("/x/sessions/s/t.messages.json");
    let err = ClineCli
        .read(&stray, &|| false, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a Cline CLI session"), "{err}");
    // Cut inside `messages` while the CLI rewrites it: no session yet.
    let whole = session(A);
    let text = String::from_utf8(whole.bytes.clone()).unwrap();
    let cut_at = text.find("And the tax").unwrap();
    let cut = MemoryLog {
        bytes: text.as_bytes()[..cut_at].to_vec(),
        ..whole.clone()
    };
    assert!(ClineCli.read(&cut, &|| false, &mut |_| {}).is_err());
    // Cut after it: a session.
    let cut_at = text.find("\"system_prompt\"").unwrap();
    let cut = MemoryLog {
        bytes: text.as_bytes()[..cut_at].to_vec(),
        ..whole
    };
    assert_eq!(
        ClineCli
            .read(&cut, &|| false, &mut |_| {})
            .unwrap()
            .header
            .id,
        A
    );
}

#[test]
fn names_and_auto() {
    assert!(ClineCli.is_log_name(format!("{A}/{A}.messages.json").as_bytes()));
    assert!(!ClineCli.is_log_name(format!("{A}/{A}.json").as_bytes()));
    assert!(ClineCli.claims_name(b"/h/.cline/data/sessions/7_x/7_x.messages.json"));
    assert!(!ClineCli.claims_name(b"/h/7_x/7_x.messages.json"));
    // The metadata beside a conversation is no session of any format.
    let meta = format!("/h/.cline/data/sessions/{A}/{A}.json");
    assert!(crate::formats::all()
        .iter()
        .all(|f| !f.claims_name(meta.as_bytes())));
    assert_eq!(
        ClineCli.side_scope(format!("{A}/{A}.json").as_bytes()),
        Some(format!("{A}/").into_bytes())
    );
    // A change to the metadata changes the side facts' fingerprint.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("s");
    std::fs::create_dir_all(&folder).unwrap();
    let log = folder.join("s.messages.json");
    let before = ClineCli.side_facts(&log);
    std::fs::write(folder.join("s.json"), r#"{"metadata":{"title":"t"}}"#).unwrap();
    assert_ne!(ClineCli.side_facts(&log), before);
}

proptest::proptest! {
    /// Any cut of a conversation file never panics, and scan and read agree.
    #[test]
    fn any_cut_reads_and_the_scanner_agrees(cut in 0usize..4000, which in 0usize..3) {
        let mut log = session([A, B, C][which]);
        let cut = cut.min(log.bytes.len());
        log.bytes.truncate(cut);
        let scanner = scan_document(&ClineCli, &log);
        let read = ClineCli.read(&log, &|| false, &mut |_| {});
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
