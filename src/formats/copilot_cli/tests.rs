//! The Copilot CLI format on a fixture written here (every rule of
//! agent-logs-more.md "GitHub Copilot CLI", its expected events in a golden
//! file beside it), on synthetic logs for the corner cases, and on the
//! shared real logs in `../shared/real-logs/copilot-cli`.

use std::path::{Path, PathBuf};

use super::*;
use crate::formats::toolkit::golden::{assert_golden, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::toolkit::test_support::{
    self, detected, first_line, lines, placed, projected, scan_lines, unplaced,
};
use crate::formats::HeaderState;
use crate::formats::LogFormat;
use crate::model::{ReadSummary, Role};

const OWN: &str =
    "tests/fixtures/copilot-cli/session-state/4b7c9e21-0d3a-4f5e-8a61-93c2d7e0f118/events.jsonl";

fn own() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(OWN)
}

/// The projected surface: `(role, checkpoint, text)`.
fn surface(log: &MemoryLog) -> Vec<(Role, bool, String)> {
    projected(&CopilotCli, log)
        .into_iter()
        .map(|m| (m.role, m.checkpoint, m.text))
        .collect()
}

const START: &str = r#"{"type":"session.start","data":{"sessionId":"s1","startTime":"2026-11-30T08:15:00.000Z","context":{"cwd":"/w"}},"timestamp":"2026-11-30T08:15:01.000Z"}"#;
const USER: &str = r#"{"type":"user.message","data":{"content":"hello there"}}"#;
const ASSISTANT: &str = r#"{"type":"assistant.message","data":{"content":"hi"}}"#;

#[test]
fn the_own_fixture_reads_as_its_golden_file_says() {
    let log = placed(&own());
    assert_golden(&own(), &read_as_json(&CopilotCli, &log));
    // The surface: the compaction shadows what precedes it.
    assert_eq!(
        surface(&log),
        [
            (
                Role::User,
                true,
                "Ana asked to round tax per line; `tax::total` now rounds each line.".into()
            ),
            (Role::User, false, "Now add a regression test".into()),
            (
                Role::Assistant,
                false,
                "Added `tests/tax_rounding.rs`.".into()
            ),
        ]
    );
}

#[test]
fn the_scanner_agrees_with_the_read() {
    let log = placed(&own());
    let summary = CopilotCli.read(&log, &|| false, &mut |_| {}).unwrap();
    let scanner = scan_lines(&CopilotCli, &log);
    assert_eq!(
        scanner.header(),
        HeaderState::Session(summary.header.clone())
    );
    let meta = scanner.meta();
    assert_eq!(meta.title, summary.title);
    assert_eq!(meta.capacity, summary.capacity);
    assert_eq!(meta.skipped_lines, summary.skipped_lines);
    assert_eq!(summary.skipped_lines, 1);
    assert_eq!(summary.capacity, Some(200_000));
}

#[test]
fn detection_follows_rule_three() {
    assert_eq!(detected(START.as_bytes()), Some("copilot-cli"));
    // A Claude Code line with a `sessionId` is not one.
    let claude = br#"{"type":"user","sessionId":"s","message":{"role":"user","content":"x"}}"#;
    assert_ne!(detected(claude), Some("copilot-cli"));
}

#[test]
fn the_header_comes_from_line_one() {
    let summary = CopilotCli
        .read(&lines(&[START, USER]), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(summary.header.id, "s1");
    assert_eq!(summary.header.created_at, 1_796_026_500_000);
    assert_eq!(summary.header.cwd.as_deref(), Some("/w"));
    assert_eq!(summary.title.as_deref(), Some("hello there"));
    assert_eq!(summary.captured_through_seq, Some(2));
    // No startTime: the line's timestamp; neither: the file's time.
    let no_start = r#"{"type":"session.start","data":{"sessionId":"s1"},"timestamp":"2026-11-30T08:15:01.000Z"}"#;
    let s = CopilotCli
        .read(&lines(&[no_start, USER]), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(s.header.created_at, 1_796_026_501_000);
    let bare = r#"{"type":"session.start","data":{"sessionId":"s1"}}"#;
    let s = CopilotCli
        .read(&lines(&[bare, USER]), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!((s.header.created_at, s.header.cwd), (7, None));
}

#[test]
fn what_is_no_session_says_why() {
    for (log, why) in [
        (lines(&[USER, START]), "line 1 is no session.start event"),
        (lines(&[START]), "no user or assistant message"),
        (
            lines(&[START, r#"{"type":"user.message","data":{"content":"  "}}"#]),
            "no user or assistant message",
        ),
    ] {
        let err = CopilotCli.read(&log, &|| false, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
        assert!(!matches!(
            scan_lines(&CopilotCli, &log).header(),
            HeaderState::Session(_)
        ));
    }
    let mut bytes = format!("{START}\n{USER}\n").into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"user.message\",\"data\":{\"content\":\"\xff\"}}\n");
    let err = CopilotCli
        .read(&MemoryLog::new(bytes), &|| false, &mut |_| {})
        .unwrap_err();
    assert!(err.to_string().contains(":3: invalid UTF-8"), "{err}");
}

#[test]
fn a_compaction_without_summary_or_success_and_a_cleared_context() {
    let done =
        r#"{"type":"session.compaction_complete","data":{"success":true,"summaryContent":" "}}"#;
    let failed =
        r#"{"type":"session.compaction_complete","data":{"success":false,"summaryContent":"no"}}"#;
    assert_eq!(
        surface(&lines(&[START, USER, done, ASSISTANT])),
        [
            (Role::User, true, track::NO_SUMMARY.into()),
            (Role::Assistant, false, "hi".into()),
        ]
    );
    assert_eq!(
        surface(&lines(&[START, USER, failed, ASSISTANT])),
        [
            (Role::User, false, "hello there".into()),
            (Role::Assistant, false, "hi".into()),
        ]
    );
    let cleared = r#"{"type":"session.context_cleared","data":{}}"#;
    assert_eq!(
        surface(&lines(&[START, USER, cleared, ASSISTANT])),
        [(Role::Assistant, false, "hi".into())]
    );
}

/// A full read of `events` once its session folder's `workspace.yaml`
/// holds `yaml`.
fn read_with_workspace(events: &Path, yaml: &str) -> ReadSummary {
    let folder = events.parent().unwrap();
    std::fs::write(folder.join("workspace.yaml"), yaml).unwrap();
    CopilotCli
        .read(&placed(events), &|| false, &mut |_| {})
        .unwrap()
}

#[test]
fn workspace_yaml_names_the_session_and_gives_a_missing_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s1");
    std::fs::create_dir(&session).unwrap();
    let bare = r#"{"type":"session.start","data":{"sessionId":"s1"}}"#;
    let events = session.join("events.jsonl");
    std::fs::write(&events, format!("{bare}\n{USER}\n")).unwrap();
    let long = "a name the CLI took from a first prompt that goes on well past eighty characters";
    let s = read_with_workspace(
        &events,
        &format!("cwd: /from/yaml\nuser_named: false\nname: {long}\n"),
    );
    assert_eq!(s.header.cwd.as_deref(), Some("/from/yaml"));
    assert_eq!(s.title, crate::formats::text::cut_title(long));
    let s = read_with_workspace(&events, &format!("user_named: true\nname: '  {long}  '\n"));
    assert_eq!(s.title.as_deref(), Some(long));
    // The older `<id>.jsonl` beside `<id>/events.jsonl` is not read.
    let older = dir.path().join("s1.jsonl");
    std::fs::write(&older, format!("{START}\n{USER}\n")).unwrap();
    let err = CopilotCli
        .read(&placed(&older), &|| false, &mut |_| {})
        .unwrap_err();
    assert!(err.to_string().contains("not read"), "{err}");
    assert!(matches!(
        scan_lines(&CopilotCli, &placed(&older)).header(),
        HeaderState::NotASession(_)
    ));
}

proptest::proptest! {
    /// Reading in one go equals reading in appended pieces: the scanner fed
    /// the first lines, then the rest, ends where one fed all ends; and a
    /// full read of the first lines agrees with the scanner at that point.
    #[test]
    fn one_go_equals_appended_pieces(cut in 0usize..16) {
        test_support::one_go_equals_appended_pieces(&CopilotCli, &unplaced(&own()), cut, false)?;
    }
}

#[test]
fn every_real_log_reads_and_the_scanner_agrees() {
    let Some(dir) = real_logs("copilot-cli") else {
        return;
    };
    let files = test_support::files_below(&dir, test_support::is_jsonl);
    assert_eq!(files.len(), 6, "{files:?}");
    for path in &files {
        let log = placed(path);
        let first = first_line(&log);
        assert!(CopilotCli.recognizes(first), "{}", path.display());
        let mut seqs = Vec::new();
        let summary = CopilotCli
            .read(&log, &|| false, &mut |e| seqs.push(e.seq))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{}", path.display());
        let scanner = scan_lines(&CopilotCli, &log);
        assert_eq!(
            scanner.header(),
            HeaderState::Session(summary.header.clone())
        );
        assert_eq!(scanner.meta().title, summary.title, "{}", path.display());
        assert_eq!(scanner.meta().skipped_lines, summary.skipped_lines);
    }
    // The README's expectations of the source-following session.
    let synthetic =
        dir.join("synthetic-session-state/f0e1d2c3-b4a5-4968-8776-655443322110/events.jsonl");
    let log = placed(&synthetic);
    let summary = CopilotCli.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.header.id, "f0e1d2c3-b4a5-4968-8776-655443322110");
    assert_eq!(summary.header.created_at, 1_787_227_200_000);
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/user/api"));
    assert_eq!(summary.title.as_deref(), Some("add a /health endpoint"));
    let texts: Vec<(Role, bool, String)> = surface(&log);
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(
        texts[0].1
            && texts[0]
                .2
                .starts_with("The user asked for a /health endpoint;")
    );
    assert_eq!(
        texts[1..],
        [
            (Role::User, false, "write a test for it".into()),
            (Role::Assistant, false, "Added tests/health.rs.".into()),
        ]
    );
    // The real 1.0.49 session is titled by its workspace.yaml.
    let real =
        dir.join("excerpt-qiaolei-1.0.49-1/66957610-db49-4dea-972d-c079e1898044/events.jsonl");
    let summary = CopilotCli
        .read(&placed(&real), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(summary.title.as_deref(), Some("list available models"));
    assert_eq!(summary.header.cwd.as_deref(), Some("/Users/testuser"));
}
