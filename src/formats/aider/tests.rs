//! Aider's history read to agent-logs-files-3.md "Aider": the shared real
//! files, a fixture of our own with its golden file, hand-written
//! expectations of the hardest cases, and properties (any cut, appends).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::formats::lines::{self, Flow};
use crate::formats::toolkit::golden::{assert_golden, events_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::model::{Entry, Event, ReadSummary, Role};

const REL: &str = ".aider.chat.history.md";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/aider/project/.aider.chat.history.md")
}

/// The runs of `bytes`, scanned in one go.
fn scan(bytes: &[u8]) -> HistoryScan {
    let mut scan = HistoryScan::default();
    feed(&mut scan, bytes);
    scan
}

/// Feeds the complete lines of `bytes` (as the store does after an
/// append); the bytes consumed.
fn feed(scan: &mut HistoryScan, bytes: &[u8]) -> u64 {
    let mut reader = bytes;
    let consumed =
        lines::for_each_line::<()>(&mut reader, bytes.len() as u64, &|| false, &mut |l| {
            scan.line(l);
            Ok(Flow::Continue)
        })
        .unwrap();
    scan.settle();
    consumed
}

fn log(bytes: &[u8]) -> MemoryLog {
    MemoryLog::new(bytes.to_vec()).at("/work/project/.aider.chat.history.md")
}

/// A full read of the run `id`: its summary and its messages.
fn read(bytes: &[u8], id: &str) -> (ReadSummary, Vec<(u64, Role, String)>) {
    let mut messages = Vec::new();
    let summary = read_run(&log(bytes), REL, id, None, &|| false, &mut |e: Entry<
        '_,
    >| {
        if let Event::Message { role, text } = e.event {
            messages.push((e.seq, role, text.into_owned()));
        }
    })
    .unwrap();
    (summary, messages)
}

fn ids(scan: &HistoryScan) -> Vec<String> {
    scan.runs().iter().map(|r| r.id(REL)).collect()
}

/// Every run of a file read in full, as JSON (the golden file's shape).
fn all_runs_as_json(bytes: &[u8]) -> Value {
    let scanned = scan(bytes);
    let runs: Vec<Value> = scanned
        .runs()
        .iter()
        .map(|run| {
            let id = run.id(REL);
            json!({
                "id": id,
                "session": run.has_message,
                "read": events_as_json(|sink| read_run(&log(bytes), REL, &id, None, &|| false, sink)),
            })
        })
        .collect();
    json!(runs)
}

#[test]
fn the_fixture_reads_as_its_golden_file() {
    let bytes = std::fs::read(fixture()).unwrap();
    assert_golden(&fixture(), &all_runs_as_json(&bytes));
}

/// The hardest cases of the fixture, by hand: several runs, a stamp
/// repeated three times, a command before the title, `<blank>`, tool lines
/// splitting a reply, a heading inside a reply, an unfinished last line.
#[test]
fn the_fixture_by_hand() {
    let bytes = std::fs::read(fixture()).unwrap();
    let scanned = scan(&bytes);
    assert_eq!(
        ids(&scanned),
        [
            "aider:.aider.chat.history.md#2025-01-02T10:00:00",
            "aider:.aider.chat.history.md#2025-01-02T10:00:00~2",
            "aider:.aider.chat.history.md#2025-01-02T10:00:00~3",
            "aider:.aider.chat.history.md#2025-01-03T08:30:00",
        ]
    );
    let sessions: Vec<bool> = scanned.runs().iter().map(|r| r.has_message).collect();
    assert_eq!(
        sessions,
        [true, true, false, true],
        "a run of tool lines only is no session"
    );
    let titles: Vec<Option<&str>> = scanned.runs().iter().map(|r| r.title.as_deref()).collect();
    assert_eq!(
        titles,
        [
            Some("Fix the bug in main and add a test"),
            Some("second run, same stamp"),
            None,
            Some("what now?"),
        ]
    );
    // Lines of each run, its header included; the unfinished last line
    // is not one.
    let lines: Vec<u64> = scanned.runs().iter().map(|r| r.lines).collect();
    assert_eq!(lines, [27, 6, 5, 8]);

    let (summary, messages) = read(&bytes, "aider:.aider.chat.history.md#2025-01-02T10:00:00");
    assert_eq!(summary.header.created_at, 1_735_812_000_000, "read as UTC");
    assert_eq!(summary.header.cwd.as_deref(), Some("/work/project"));
    assert_eq!(summary.captured_through_seq, Some(27));
    assert_eq!(summary.skipped_lines, 0);
    assert_eq!(
        summary.title.as_deref(),
        Some("Fix the bug in main and add a test")
    );
    let reply = "I found the bug.\n\n# Plan\n1. Fix it\n\n```rust\nfn main() {}\n```";
    assert_eq!(
        messages,
        [
            (6, Role::User, "/add src/main.rs".to_string()),
            (
                10,
                Role::User,
                "Fix the bug in main\nand add a test".to_string()
            ),
            (13, Role::Assistant, reply.to_string()),
            (
                24,
                Role::Assistant,
                "More text after the tokens line.".to_string()
            ),
        ],
        "`<blank>` is no message; a `> ` line splits a reply"
    );
    let (summary, messages) = read(&bytes, "aider:.aider.chat.history.md#2025-01-02T10:00:00~2");
    assert_eq!(summary.captured_through_seq, Some(6));
    assert_eq!(messages.len(), 2);
    let (_, messages) = read(&bytes, "aider:.aider.chat.history.md#2025-01-03T08:30:00");
    let texts: Vec<&str> = messages.iter().map(|m| m.2.as_str()).collect();
    assert_eq!(
        texts,
        ["/help", "Help text.", "what now?"],
        "an empty user line ends nothing"
    );
}

#[test]
fn crlf_reads_as_lf() {
    let bytes = std::fs::read(fixture()).unwrap();
    let crlf: Vec<u8> = String::from_utf8(bytes.clone())
        .unwrap()
        .replace('\n', "\r\n")
        .into_bytes();
    assert_eq!(all_runs_as_json(&crlf), all_runs_as_json(&bytes));
}

#[test]
fn a_file_without_a_header_has_no_run_and_a_missing_run_fails_the_read() {
    let bytes = b"#### hello\n\nSome reply.\n";
    assert!(scan(bytes).runs().is_empty());
    let err = read_run(&log(bytes), REL, "aider:x#y", None, &|| false, &mut |_| {});
    assert!(err.is_err());
}

#[test]
fn invalid_utf8_fails_the_files_sessions() {
    let bytes = b"# aider chat started at 2025-01-02 10:00:00\n#### hi\n\xff\xfe\n";
    let scanned = scan(bytes);
    assert_eq!(scanned.failure(), Some("line 3: invalid UTF-8"));
    let id = scanned.runs()[0].id(REL);
    let err = read_run(&log(bytes), REL, &id, None, &|| false, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains(":3: invalid UTF-8"), "{err}");
}

#[test]
fn a_stamp_that_is_no_date_dates_the_run_by_the_file() {
    let bytes = b"# aider chat started at 2025-13-45 10:00:00\n#### hi\n";
    let log = log(bytes).modified(42);
    let id = "aider:.aider.chat.history.md#2025-13-45T10:00:00";
    let summary = read_run(&log, REL, id, None, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.header.created_at, 42);
}

/// A run being written: its last message is open when the scan stops,
/// and the lines appended later go on with it, not into a new message.
#[test]
fn an_append_resumes_the_open_message() {
    let head = b"# aider chat started at 2025-01-02 10:00:00\n\n#### first line  \n";
    let tail = b"#### second line  \n\nReply.\n";
    let mut resumed = scan(head);
    assert_eq!(resumed.runs()[0].title.as_deref(), Some("first line"));
    feed(&mut resumed, tail);
    let whole = scan(&[&head[..], &tail[..]].concat());
    assert_eq!(resumed.runs(), whole.runs());
    assert_eq!(
        whole.runs()[0].title.as_deref(),
        Some("first line second line")
    );
}

#[test]
fn the_real_files_read_to_the_contract() {
    let Some(dir) = real_logs("aider") else {
        return;
    };
    let calculator = std::fs::read(dir.join("Simple-Calulator").join(REL)).unwrap();
    let scanned = scan(&calculator);
    assert_eq!(
        ids(&scanned),
        ["aider:.aider.chat.history.md#2025-05-04T17:02:36"]
    );
    let run = &scanned.runs()[0];
    assert!(run.has_message);
    assert_eq!(
        run.title.as_deref(),
        Some("give me a quick summarized overview of this repo")
    );
    let total = calculator.iter().filter(|&&b| b == b'\n').count() as u64;
    // Line 1 (empty) is before the header.
    assert_eq!(run.lines, total - 1);
    let (summary, messages) = read(&calculator, &run.id(REL));
    assert_eq!(summary.captured_through_seq, Some(total - 1));
    assert_eq!(summary.header.created_at, 1_746_378_156_000);
    assert_eq!(summary.title, run.title);
    assert!(messages.iter().any(|m| m.1 == Role::Assistant));
    // `/code …` is logged, then the same text again as a plain message.
    let users: Vec<&str> = messages
        .iter()
        .filter(|m| m.1 == Role::User)
        .map(|m| m.2.as_str())
        .collect();
    assert!(users.iter().any(|u| u.starts_with("/code ")), "{users:?}");
    assert!(
        messages.iter().all(|m| !m.2.starts_with("> ")),
        "tool lines are not projected"
    );
    // Seqs strictly increase.
    assert!(messages.windows(2).all(|w| w[0].0 < w[1].0));

    let note_app = std::fs::read(dir.join("note_app").join(REL)).unwrap();
    let scanned = scan(&note_app);
    assert_eq!(
        ids(&scanned),
        ["aider:.aider.chat.history.md#2026-06-21T02:24:48"]
    );
    assert!(
        !scanned.runs()[0].has_message,
        "only `> ` lines: no session"
    );
    assert_eq!(scanned.runs()[0].title, None);
}

/// A fixture-like file from pieces, so that cuts fall anywhere.
fn pieces() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just("# aider chat started at 2025-01-02 10:00:00\n".to_string()),
        Just("# aider chat started at 2025-01-03 11:00:00\r\n".to_string()),
        Just("#### /add x.py  \n".to_string()),
        Just("#### hello there  \n".to_string()),
        Just("#### <blank>\n".to_string()),
        Just("> Tokens: 1k  \n".to_string()),
        Just("\n".to_string()),
        Just("   \n".to_string()),
        Just("# A heading\n".to_string()),
        Just("reply text\n".to_string()),
        "[ -~]{0,12}\n?",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat().into_bytes())
}

proptest! {
    /// Any cut of any file: scanning and reading never panic, and every
    /// run the scan lists is read with the scan's facts.
    #[test]
    fn any_cut_never_panics(bytes in pieces(), cut in any::<prop::sample::Index>()) {
        let cut = &bytes[..cut.index(bytes.len() + 1)];
        let scanned = scan(cut);
        for run in scanned.runs() {
            let id = run.id(REL);
            let mut messages = 0;
            let summary = read_run(&log(cut), REL, &id, None, &|| false, &mut |e| {
                messages += usize::from(matches!(e.event, Event::Message { .. }));
            }).unwrap();
            prop_assert_eq!(summary.captured_through_seq, Some(run.lines));
            prop_assert_eq!(&summary.title, &run.title);
            prop_assert_eq!(messages > 0, run.has_message);
        }
    }

    /// A run's id is stable when more is appended, and a scan resumed
    /// after the append equals a scan of the whole.
    #[test]
    fn ids_are_stable_on_append(bytes in pieces(), cut in any::<prop::sample::Index>()) {
        let at = cut.index(bytes.len() + 1);
        let mut resumed = HistoryScan::default();
        let consumed = feed(&mut resumed, &bytes[..at]) as usize;
        let before = ids(&resumed);
        feed(&mut resumed, &bytes[consumed..]);
        let whole = scan(&bytes);
        prop_assert_eq!(resumed.runs(), whole.runs());
        let after = ids(&whole);
        prop_assert!(after.len() >= before.len());
        prop_assert_eq!(&after[..before.len()], &before[..]);
    }
}
