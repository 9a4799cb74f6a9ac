//! The Cursor format on fixtures written here (every rule of
//! agent-logs-more.md "Cursor", their expected events in golden files
//! beside them), on synthetic logs for the corner cases, and on the shared
//! logs in `../shared/real-logs/cursor`.

use std::path::{Path, PathBuf};

use super::*;
use crate::formats::lines::{for_each_line, Flow};
use crate::formats::toolkit::golden::{assert_golden, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::toolkit::test_support::{self, detected, first_line, placed, surface};
use crate::formats::LogFormat;
use crate::formats::{HeaderState, Scanner};
use crate::model::Role;

const PROJECTS: &str = "tests/fixtures/cursor/projects";
const MAIN: &str = "home-ana-shop/agent-transcripts/7c1f2e3d-4b5a-4c6d-9e8f-0a1b2c3d4e5f/7c1f2e3d-4b5a-4c6d-9e8f-0a1b2c3d4e5f.jsonl";
const CHILD: &str = "home-ana-shop/agent-transcripts/7c1f2e3d-4b5a-4c6d-9e8f-0a1b2c3d4e5f/subagents/8d2a3b4c-5e6f-4a7b-8c9d-1e2f3a4b5c6d.jsonl";
const OLDER: &str = "home-ana-api/agent-transcripts/0f9e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c.jsonl";

fn own(rel: &str) -> PathBuf {
    test_support::in_clone(PROJECTS).join(rel)
}

/// `lines` as the transcript at `path`.
fn lines_at(path: &Path, lines: &[&str]) -> MemoryLog {
    MemoryLog::new(lines.iter().map(|l| format!("{l}\n")).collect::<String>())
        .modified(7)
        .at(path)
}

/// `lines` as a transcript with no place, named `s1.jsonl`.
fn lines(lines: &[&str]) -> MemoryLog {
    MemoryLog {
        name: "s1.jsonl".into(),
        ..MemoryLog::new(lines.iter().map(|l| format!("{l}\n")).collect::<String>()).modified(7)
    }
}

/// The scanner after every complete line of `bytes`, placed at `path`.
fn scan_bytes(bytes: &[u8], path: &Path) -> Box<dyn Scanner> {
    let mut scanner = Cursor.scanner();
    scanner.file_modified(7);
    scanner.file_path(path);
    for_each_line::<()>(&mut &bytes[..], bytes.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    })
    .unwrap();
    scanner
}

fn scan(log: &MemoryLog) -> Box<dyn Scanner> {
    let path = log.path.clone().unwrap_or_else(|| PathBuf::from(&log.name));
    scan_bytes(&log.bytes, &path)
}

fn user(text: &str) -> String {
    serde_json::json!({"role": "user", "message": {"content": [{"type": "text", "text": text}]}})
        .to_string()
}

fn assistant(text: &str) -> String {
    serde_json::json!({"role": "assistant", "message": {"content": [{"type": "text", "text": text}]}})
        .to_string()
}

const TURN_ENDED: &str = r#"{"type":"turn_ended","status":"success"}"#;

#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    for rel in [MAIN, CHILD, OLDER] {
        assert_golden(&own(rel), &read_as_json(&Cursor, &placed(&own(rel))));
    }
    assert_eq!(
        surface(&Cursor, &placed(&own(MAIN))),
        [
            (
                Role::User,
                "Why does the cart total drift by a cent?".into()
            ),
            (
                Role::Assistant,
                "`cart.rs` rounds once, after summing.\nRounding each line first keeps the cents."
                    .into()
            ),
            (Role::User, "Fix it\nand add a test".into()),
            (
                Role::Assistant,
                "Done: `cart::total` rounds per line; `tests/cart.rs` checks it.".into()
            ),
        ]
    );
}

#[test]
fn the_scanner_agrees_with_the_read() {
    for rel in [MAIN, CHILD, OLDER] {
        let log = placed(&own(rel));
        let summary = Cursor.read(&log, &|| false, &mut |_| {}).unwrap();
        let scanner = scan(&log);
        assert_eq!(
            scanner.header(),
            HeaderState::Session(summary.header.clone())
        );
        let meta = scanner.meta();
        assert_eq!(meta.title, summary.title);
        assert_eq!(meta.capacity, None);
        assert_eq!(meta.skipped_lines, summary.skipped_lines);
    }
    let main = Cursor
        .read(&placed(&own(MAIN)), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(main.skipped_lines, 2);
    assert_eq!(main.captured_through_seq, Some(15));
}

#[test]
fn detection_follows_rule_six() {
    let first = user("<user_query>hi</user_query>");
    assert_eq!(detected(first.as_bytes()), Some("cursor"));
    // A Claude Code line has a `type`; a Cursor line never does.
    let claude = br#"{"type":"user","sessionId":"s","message":{"role":"user","content":"x"}}"#;
    assert_eq!(detected(claude), Some("claude-code"));
    assert!(!Cursor.recognizes(TURN_ENDED.as_bytes()));
}

#[test]
fn the_session_takes_its_facts_from_the_place_and_the_first_prompt() {
    let root = tempfile::tempdir().unwrap();
    let transcripts = root.path().join("projects/home-x/agent-transcripts");
    let path = transcripts.join("p1/p1.jsonl");
    let stamp = "<timestamp>Thursday, Aug 20, 2026, 9:15 AM (UTC+2)</timestamp>";
    // The first user line that is a message dates the session; a tool
    // result before it does not, nor a later prompt's time.
    let tool_only =
        r#"{"role":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}"#;
    let later =
        "<timestamp>Friday, Aug 21, 2026, 9:15 AM (UTC)</timestamp>\n<user_query>b</user_query>";
    let first = format!("{stamp}\n<user_query>\nfirst\n</user_query>");
    let log = lines_at(&path, &[tool_only, &user(&first), &user(later)]);
    let summary = Cursor.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.header.id, "p1");
    assert_eq!(summary.header.created_at, 1_787_210_100_000);
    assert_eq!(summary.header.label, None);
    assert_eq!(summary.title.as_deref(), Some("first"));
    // A first prompt without a time it can read: the file's time.
    let log = lines_at(
        &path,
        &[
            &user("<timestamp>soon</timestamp>\n<user_query>a</user_query>"),
            &user(&first),
        ],
    );
    let summary = Cursor.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.header.created_at, 7);
    // A sub-agent: under its parent, titled by its first prompt's first
    // line, the title cut to 80.
    let long = format!("  \n{} the rest\nsecond line", "word ".repeat(20));
    let child = transcripts.join("p1/subagents/c1.jsonl");
    let log = lines_at(&child, &[&user(&long), &assistant("ok")]);
    let summary = Cursor.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.header.id, "p1/c1");
    assert_eq!(
        summary.header.label.as_deref(),
        Some(format!("{} the rest", "word ".repeat(20)).as_str())
    );
    assert_eq!(summary.title, crate::formats::text::cut_title(&long));
    assert_eq!(scan(&log).header(), HeaderState::Session(summary.header));
    // No place: the name gives the id, and there is no cwd.
    let summary = Cursor
        .read(&lines(&[&user("hi")]), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(
        (summary.header.id.as_str(), summary.header.cwd),
        ("s1", None)
    );
}

// A skipped test says so (the core otherwise never prints).
#[allow(clippy::print_stderr)]
#[test]
fn the_cwd_is_the_slug_walked_on_the_file_system() {
    // Under a temporary folder, so that the slug of a folder below it
    // decodes from `/` (the walk on a tree of its own is in `unverified`).
    let root = tempfile::Builder::new()
        .prefix("cursortest")
        .tempdir()
        .unwrap();
    let base = root.path().to_string_lossy().into_owned();
    if base.contains(['-', '.', '_', ' ']) || root.path().to_str().is_none() {
        eprintln!("skipped 1 test: {base} has characters a slug cannot spell back");
        return;
    }
    let cwd = root.path().join("my-app");
    std::fs::create_dir(&cwd).unwrap();
    let slug = format!("{}-my-app", base.trim_start_matches('/').replace('/', "-"));
    let path = root
        .path()
        .join("projects")
        .join(&slug)
        .join("agent-transcripts/s/s.jsonl");
    let summary = Cursor
        .read(&lines_at(&path, &[&user("hi")]), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(summary.header.cwd.as_deref(), cwd.to_str());
    std::fs::remove_dir(&cwd).unwrap();
    let summary = Cursor
        .read(&lines_at(&path, &[&user("hi")]), &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(summary.header.cwd, None);
}

#[test]
fn runs_of_the_model_are_one_message_placed_at_their_first_text() {
    let redacted = assistant("[REDACTED]");
    let log = lines(&[
        &user("a"),
        &redacted,
        &assistant("one"),
        &assistant("two"),
        TURN_ENDED,
        &assistant("three"),
        r#"{"role":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}"#,
        &assistant("four"),
        &user("b"),
    ]);
    let mut seen = Vec::new();
    Cursor
        .read(&log, &|| false, &mut |e| seen.push(e.seq))
        .unwrap();
    assert_eq!(seen, [1, 3, 6, 9]);
    assert_eq!(
        surface(&Cursor, &log),
        [
            (Role::User, "a".into()),
            (Role::Assistant, "one\ntwo".into()),
            // A tool result is no message: the run goes on.
            (Role::Assistant, "three\nfour".into()),
            (Role::User, "b".into()),
        ]
    );
}

#[test]
fn what_is_no_session_says_why() {
    for (log, why) in [
        (lines(&[TURN_ENDED, &user("a")]), "line 1 is no role line"),
        (
            lines(&[&assistant("[REDACTED]")]),
            "no user or assistant message",
        ),
        (lines(&[]), "no complete line"),
    ] {
        let err = Cursor.read(&log, &|| false, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
        assert!(!matches!(scan(&log).header(), HeaderState::Session(_)));
    }
    let mut bytes = format!("{}\n", user("a")).into_bytes();
    bytes.extend_from_slice(b"{\"role\":\"user\",\"message\":{\"content\":\"\xff\"}}\n");
    let log = MemoryLog::new(bytes);
    let err = Cursor.read(&log, &|| false, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains(":2: invalid UTF-8"), "{err}");
    // Still listed: the read says why it fails.
    let scanner = scan(&log);
    assert!(matches!(scanner.header(), HeaderState::Session(_)));
    assert!(scanner.meta().failure.is_some());
    // The older layout beside the newer one is not read.
    let root = tempfile::tempdir().unwrap();
    let transcripts = root.path().join("agent-transcripts");
    std::fs::create_dir_all(transcripts.join("s")).unwrap();
    std::fs::write(transcripts.join("s/s.jsonl"), user("a") + "\n").unwrap();
    let older = lines_at(&transcripts.join("s.jsonl"), &[&user("a")]);
    let err = Cursor.read(&older, &|| false, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("not read"), "{err}");
    assert!(matches!(scan(&older).header(), HeaderState::NotASession(_)));
}

proptest::proptest! {
    /// Reading in one go equals reading in appended pieces: the scanner fed
    /// the first lines, then the rest, ends where one fed all ends; and a
    /// full read of the first lines agrees with the scanner at that point.
    #[test]
    fn one_go_equals_appended_pieces(cut in 0usize..16) {
        test_support::one_go_equals_appended_pieces(&Cursor, &placed(&own(MAIN)), cut, true)?;
    }
}

#[test]
fn every_shared_log_reads_and_the_scanner_agrees() {
    let Some(dir) = real_logs("cursor") else {
        return;
    };
    let files = test_support::files_below(&dir, test_support::is_jsonl);
    assert_eq!(files.len(), 6, "{files:?}");
    for path in &files {
        let log = placed(path);
        let first = first_line(&log);
        assert!(Cursor.recognizes(first), "{}", path.display());
        assert_eq!(detected(first), Some("cursor"));
        let mut seqs = Vec::new();
        let summary = Cursor
            .read(&log, &|| false, &mut |e| seqs.push(e.seq))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{}", path.display());
        assert_eq!(summary.skipped_lines, 0, "{}", path.display());
        let scanner = scan(&log);
        assert_eq!(
            scanner.header(),
            HeaderState::Session(summary.header.clone())
        );
        assert_eq!(scanner.meta().title, summary.title, "{}", path.display());
    }
    // The README's expectations of the source-following tree.
    let tree = dir.join("synthetic-tree/projects/home-user-my-app/agent-transcripts/d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6");
    let main = placed(&tree.join("d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6.jsonl"));
    let summary = Cursor.read(&main, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.header.id, "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6");
    assert_eq!(
        Some(summary.header.created_at),
        crate::formats::text::parse_timestamp("2026-08-20T07:15:00.000Z")
    );
    let expected_cwd = Path::new("/home/user/my-app")
        .is_dir()
        .then(|| "/home/user/my-app".to_string());
    assert_eq!(summary.header.cwd, expected_cwd);
    assert_eq!(
        summary.title.as_deref(),
        Some("Why does `cargo test` fail on CI?")
    );
    assert_eq!(
        surface(&Cursor, &main),
        [
            (Role::User, "Why does `cargo test` fail on CI?".into()),
            (
                Role::Assistant,
                "The CI image has no C linker.\nInstall `build-essential` in the workflow.".into()
            ),
            (Role::User, "Check the other workflows too".into()),
            (Role::Assistant, "release.yml has the same problem.".into()),
        ]
    );
    let child = placed(&tree.join("subagents/e2f3a4b5-c6d7-4e8f-9a01-b2c3d4e5f6a7.jsonl"));
    let summary = Cursor.read(&child, &|| false, &mut |_| {}).unwrap();
    assert_eq!(
        summary.header.id,
        "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6/e2f3a4b5-c6d7-4e8f-9a01-b2c3d4e5f6a7"
    );
    assert_eq!(
        summary.header.label.as_deref(),
        Some("Read every file in .github/workflows and list missing packages.")
    );
    // The curated session: the wrapper is dropped, `[REDACTED]` is not shown.
    let curated = placed(&dir.join("curated-agent-sessions-test-session.jsonl"));
    let texts = surface(&Cursor, &curated);
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert_eq!(texts[0], (Role::User, "run ls command".into()));
    assert_eq!(
        texts[3],
        (
            Role::Assistant,
            "The repository is clean — no uncommitted changes.".into()
        )
    );
}
