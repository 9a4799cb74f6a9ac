//! The `cline` format on the fixtures written here (Roo Code, Kilo Code
//! legacy and Cline layouts with their index files, expected events in
//! golden files beside them), on hand-written documents for the corner
//! cases, and on the shared real Cline task in `../shared/real-logs/cline`.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::formats::toolkit::golden::{assert_golden, assert_golden_file, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::toolkit::test_support::{in_clone, placed, scan_document, surface};
use crate::formats::LogFormat;
use crate::formats::{HeaderState, ScanMeta};
use crate::model::Role;
use crate::reference::projection::Projector;

const ROO: &str = "rooveterinaryinc.roo-cline/tasks";
const ROO_PARENT: &str = "3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c";
const ROO_CHILD: &str = "8e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0";
const KILO: &str = "kilocode.kilo-code/tasks/c4b3a291-0f8e-4d7c-a6b5-948372615a0b";
const CLINE: &str = "saoudrizwan.claude-dev/tasks/1796600000000";

fn fixture(dir: &str) -> PathBuf {
    in_clone(format!("tests/fixtures/cline/{dir}/{}", place::UI_MESSAGES))
}

/// `elements` as the task `id`'s compact document, in a folder with no index.
fn doc(id: &str, elements: serde_json::Value) -> MemoryLog {
    MemoryLog::new(serde_json::to_vec(&elements).unwrap())
        .modified(7)
        .at(format!("/nowhere/tasks/{id}/ui_messages.json"))
}

/// The created time a full read of `log` finds.
fn created_at(log: &MemoryLog) -> u64 {
    Cline
        .read(log, &|| false, &mut |_| {})
        .unwrap()
        .header
        .created_at
}

fn user(text: &str) -> (Role, String) {
    (Role::User, text.into())
}

fn assistant(text: &str) -> (Role, String) {
    (Role::Assistant, text.into())
}

/// Asserts the golden file, or writes it with `BLESS` set.
fn golden(path: &Path, golden: &Path, read: &serde_json::Value) {
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(golden, serde_json::to_string_pretty(read).unwrap() + "\n").unwrap();
    }
    let _ = path;
    assert_golden_file(golden, read);
}

#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    for dir in [
        format!("{ROO}/{ROO_PARENT}"),
        format!("{ROO}/{ROO_CHILD}"),
        KILO.to_string(),
        CLINE.to_string(),
    ] {
        let path = fixture(&dir);
        let read = read_as_json(&Cline, &placed(&path));
        let mut name = path.as_os_str().to_owned();
        name.push(".expected.json");
        golden(&path, Path::new(&name), &read);
        assert_golden(&path, &read);
    }
}

#[test]
fn roo_code_a_followup_a_condensed_context_and_a_sub_task() {
    let parent = placed(&fixture(&format!("{ROO}/{ROO_PARENT}")));
    let summary = Cline.read(&parent, &|| false, &mut |_| {}).unwrap();
    // The task's own history_item.json wins over the index's copy.
    assert_eq!(
        (summary.title.as_deref(), summary.header.cwd.as_deref()),
        (
            Some("Add a --dry-run flag to the deploy script"),
            Some("/home/ana/infra")
        )
    );
    assert_eq!(summary.header.id, ROO_PARENT);
    assert_eq!(summary.header.created_at, 1_796_400_000_000);
    assert_eq!(
        (summary.captured_through_seq, summary.skipped_lines),
        (Some(14), 2)
    );
    // The condensed context shadows every element before it: its summary
    // stands first.
    let mut projector = Projector::new(None, usize::MAX);
    Cline
        .read(&parent, &|| false, &mut |e| projector.push(e))
        .unwrap();
    let projected = projector.finish();
    assert_eq!(
        projected
            .messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect::<Vec<_>>(),
        [
            (
                Role::User,
                "The user wants --dry-run in deploy.sh; it must skip the migration."
            ),
            (
                Role::Assistant,
                "I will add the flag now and delegate the tests."
            ),
            (
                Role::Assistant,
                "`deploy.sh --dry-run` prints each step and skips the migration."
            ),
        ]
    );
    // The sub-task: facts from tasks/_index.json, its own id, no label.
    let child = placed(&fixture(&format!("{ROO}/{ROO_CHILD}")));
    let summary = Cline.read(&child, &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (
            summary.header.id.as_str(),
            summary.header.label.as_deref(),
            summary.title.as_deref()
        ),
        (ROO_CHILD, None, Some("Write tests for deploy.sh --dry-run"))
    );
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/ana/infra"));
}

#[test]
fn cline_plan_mode_the_task_element_and_its_task_history() {
    let log = placed(&fixture(CLINE));
    assert_eq!(
        surface(&Cline, &log),
        [
            user("Plan a migration of the config loader to TOML"),
            assistant("1. Parse with the toml crate.\n2. Keep the JSON loader as a fallback."),
            user("Go ahead, act on it"),
            assistant("not json: kept as written"),
            assistant("Plan done."),
            assistant("The loader reads TOML; JSON still works."),
        ]
    );
    let summary = Cline.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/ana/config"));
}

#[test]
fn the_first_element_alone_is_the_typed_task() {
    let log = doc(
        "t",
        json!([
            {"ts": 5, "type": "say", "say": "api_req_started", "text": "{}"},
            {"ts": 6, "type": "say", "say": "text", "text": "  a later text is the agent's  "},
            {"ts": 7, "type": "say", "say": "task", "text": "a later task is nothing"},
            {"type": "say", "say": "user_feedback", "text": "   "},
        ]),
    );
    assert_eq!(
        surface(&Cline, &log),
        [assistant("  a later text is the agent's  ")]
    );
    let summary = Cline.read(&log, &|| false, &mut |_| {}).unwrap();
    // No user message, no index: no title; created at the first `ts`.
    assert_eq!((summary.title, summary.header.created_at), (None, 5));
    // A `ts` that is no integer of the contract is passed over.
    let log = doc(
        "t",
        json!([{"ts": 1.5, "type": "say", "say": "text", "text": "hi"}, {"ts": 9007199254740992u64, "type": "say"}, {"ts": 3, "type": "say"}]),
    );
    assert_eq!(created_at(&log), 3);
    let log = doc("t", json!([{"type": "say", "say": "text", "text": "hi"}]));
    assert_eq!(created_at(&log), 7);
}

#[test]
fn what_is_no_task_says_why() {
    let cases: [(&[u8], &str); 5] = [
        (b"{\"ts\":1}", "no JSON array"),
        (
            b"[{\"ts\":1,\"type\":\"say\",\"say\":\"text\",\"text\":\"a\"},{\"ts\" 2}]",
            "no JSON array",
        ),
        (
            b"[{\"ts\":1,\"type\":\"say\",\"say\":\"api_req_started\"}]",
            "no user or assistant message",
        ),
        (b"[]", "holds no element"),
        (b"", "holds no element"),
    ];
    for (bytes, why) in cases {
        let log = MemoryLog::new(bytes.to_vec()).at("/n/tasks/1/ui_messages.json");
        let err = Cline
            .read(&log, &|| false, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(why),
            "{err} for {:?}",
            String::from_utf8_lossy(bytes)
        );
        let scanner = scan_document(&Cline, &log);
        assert!(
            !matches!(scanner.header(), HeaderState::Session(_)),
            "{why}"
        );
    }
    // Invalid UTF-8 in an element: listed, and its read says why.
    let mut bytes = br#"[{"ts":1,"type":"say","say":"text","text":"a"},{"text":""#.to_vec();
    bytes.extend_from_slice(b"\xff\"}]");
    let log = MemoryLog::new(bytes).at("/n/tasks/1/ui_messages.json");
    let err = Cline
        .read(&log, &|| false, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid UTF-8"), "{err}");
    assert!(scan_document(&Cline, &log).meta().failure.is_some());
}

#[test]
fn names_and_auto() {
    assert!(Cline.is_log_name(b"tasks/1/ui_messages.json"));
    assert!(!Cline.is_log_name(b"tasks/1/history_item.json"));
    assert!(!Cline.is_log_name(b"tasks/_index.json"));
    assert!(Cline.claims_name(b"/s/tasks/1/ui_messages.json"));
    assert!(!Cline.recognizes(b"["));
}

/// Asserts that the scanner and the read tell the same of `log`.
fn agree(log: &MemoryLog) -> Result<(), String> {
    let scanner = scan_document(&Cline, log);
    let read = Cline.read(log, &|| false, &mut |_| {});
    match (read, scanner.header()) {
        (Ok(s), HeaderState::Session(h)) => {
            let meta = scanner.meta();
            let want = ScanMeta {
                title: s.title.clone(),
                capacity: None,
                skipped_lines: s.skipped_lines,
                failure: None,
            };
            if s.header != h || meta != want {
                return Err(format!("read {s:?}, scanner {h:?} {meta:?}"));
            }
        }
        (Err(_), HeaderState::Session(_)) if scanner.meta().failure.is_some() => {}
        (Err(_), HeaderState::NotASession(_) | HeaderState::Pending) => {}
        (read, header) => return Err(format!("read {read:?}, scanner {header:?}")),
    }
    Ok(())
}

proptest::proptest! {
    /// Any cut of a task's document (Cline rewrites it whole, so a reader
    /// may meet one half written) never panics, and scan and read agree.
    #[test]
    fn any_cut_reads_and_the_scanner_agrees(cut in 0usize..4000, which in 0usize..4) {
        let dir = [format!("{ROO}/{ROO_PARENT}"), format!("{ROO}/{ROO_CHILD}"), KILO.into(), CLINE.into()][which].clone();
        let path = fixture(&dir);
        let mut log = placed(&path);
        let cut = cut.min(log.bytes.len());
        log.bytes.truncate(cut);
        agree(&log).map_err(proptest::test_runner::TestCaseError::fail)?;
    }
}

#[test]
fn the_shared_real_task_reads_and_the_scanner_agrees() {
    let Some(dir) = real_logs("cline") else {
        return;
    };
    let path = dir.join("saoudrizwan.claude-dev/tasks/1767644899093/ui_messages.json");
    let log = placed(&path);
    agree(&log).unwrap();
    let read = read_as_json(&Cline, &log);
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cline/real-1767644899093.expected.json");
    golden(&path, &golden_path, &read);
    // By hand: the typed task, the agent's first answer, the feedback.
    let messages = surface(&Cline, &log);
    assert_eq!(
        messages[..3],
        [
            user("yo wassup"),
            assistant("Hey there!"),
            user("look at this project and tell me what is it about")
        ]
    );
    let summary = Cline.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        (
            summary.header.id.as_str(),
            summary.header.created_at,
            summary.header.cwd.as_deref(),
            summary.title.as_deref()
        ),
        ("1767644899093", 1_767_644_899_093, None, Some("yo wassup"))
    );
    assert_eq!(
        (summary.captured_through_seq, summary.skipped_lines),
        (Some(123), 0)
    );
    // The same task compact on one line, as Cline writes it.
    let value: serde_json::Value = serde_json::from_slice(&log.bytes).unwrap();
    let compact = MemoryLog {
        bytes: serde_json::to_vec(&value).unwrap(),
        ..log.clone()
    };
    assert_eq!(read_as_json(&Cline, &compact), read);
}
