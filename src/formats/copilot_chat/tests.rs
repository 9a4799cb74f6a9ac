//! The Copilot Chat format on fixtures written here (every rule of
//! agent-logs-more.md "GitHub Copilot Chat in VS Code", their expected
//! events in golden files beside them), on synthetic logs for the corner
//! cases, and on the shared real logs in `../shared/real-logs/vscode-copilot-chat`.

use std::path::{Path, PathBuf};

use super::*;
use crate::formats::toolkit::golden::{assert_golden, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::toolkit::test_support::{
    self, detected, first_line, in_clone, lines, placed, scan_lines, surface,
};
use crate::formats::{HeaderState, LogFormat};
use crate::model::{ReadSummary, Role};

const WORKSPACE: &str =
    "tests/fixtures/copilot-chat/User/workspaceStorage/9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const LOG: &str = "chatSessions/c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b.jsonl";
const DOCUMENT: &str = "chatSessions/d2b3c4d5-e6f7-4a80-9b1c-2d3e4f5a6b7c.json";
const EMPTY_WINDOW: &str = "tests/fixtures/copilot-chat/User/globalStorage/emptyWindowChatSessions/e3c4d5e6-f7a8-4b90-8c2d-3e4f5a6b7c8d.jsonl";

fn own() -> [PathBuf; 3] {
    [
        in_clone(format!("{WORKSPACE}/{LOG}")),
        in_clone(format!("{WORKSPACE}/{DOCUMENT}")),
        in_clone(EMPTY_WINDOW),
    ]
}

/// The scanner and the read say the same of `log`.
fn assert_agree(log: &MemoryLog) -> ReadSummary {
    let name = log.path.as_deref().map(Path::display);
    let summary = CopilotChat
        .read(log, &|| false, &mut |_| {})
        .unwrap_or_else(|e| panic!("{name:?}: {e}"));
    let scanner = scan_lines(&CopilotChat, log);
    assert_eq!(
        scanner.header(),
        HeaderState::Session(summary.header.clone()),
        "{name:?}"
    );
    let meta = scanner.meta();
    assert_eq!(meta.title, summary.title, "{name:?}");
    assert_eq!(meta.capacity, summary.capacity, "{name:?}");
    assert_eq!(meta.skipped_lines, summary.skipped_lines, "{name:?}");
    summary
}

#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    for path in own() {
        assert_golden(&path, &read_as_json(&CopilotChat, &placed(&path)));
        assert_agree(&placed(&path));
    }
}

#[test]
fn the_log_replays_to_its_live_branch() {
    let [log, _, _] = own();
    let log = placed(&log);
    let summary = assert_agree(&log);
    assert_eq!(summary.header.id, "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b");
    assert_eq!(summary.header.created_at, 1_796_026_500_000);
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/ana/shop front"));
    // The first request counts for the title though an edit replaced it.
    assert_eq!(summary.title.as_deref(), Some("Round the tax per cart"));
    assert_eq!(summary.capacity, Some(200_000));
    // 13 complete lines; a line that is no JSON and a path out of range
    // are skipped; the blank line is neither.
    assert_eq!(summary.captured_through_seq, Some(13));
    assert_eq!(summary.skipped_lines, 2);
    assert_eq!(
        surface(&CopilotChat, &log),
        [
            (Role::User, "Round the tax per line, not per cart".into()),
            (
                Role::Assistant,
                "Each line is rounded now, in `tax::line_total`.".into()
            ),
            (Role::User, "Now add a regression test".into()),
            (Role::Assistant, "Added `tests/tax_rounding.rs`.".into()),
        ]
    );
}

#[test]
fn the_document_and_the_empty_window_session() {
    let [_, document, empty] = own();
    let document = placed(&document);
    let summary = assert_agree(&document);
    assert_eq!(summary.header.id, "d2b3c4d5-e6f7-4a80-9b1c-2d3e4f5a6b7c");
    assert_eq!(summary.header.created_at, 1_790_000_000_000);
    // A blank `customTitle` is none: the first request, white space
    // collapsed.
    assert_eq!(summary.title.as_deref(), Some("What does checkout.rs do?"));
    assert_eq!(summary.captured_through_seq, Some(2));
    assert_eq!(
        surface(&CopilotChat, &document)[1],
        (
            Role::Assistant,
            "It totals the cart, then charges the card.".into()
        )
    );
    let empty = placed(&empty);
    let summary = assert_agree(&empty);
    // No `sessionId`, no `creationDate`: the file name, the first request.
    assert_eq!(summary.header.id, "e3c4d5e6-f7a8-4b90-8c2d-3e4f5a6b7c8d");
    assert_eq!(summary.header.created_at, 1_796_100_001_000);
    assert_eq!(summary.header.cwd, None);
    assert_eq!(
        surface(&CopilotChat, &empty)[1],
        (Role::Assistant, "Bash, going by `.bashrc`".into())
    );
}

#[test]
fn detection_follows_rule_five() {
    let full = br#"{"kind":0,"v":{"requests":[]}}"#;
    assert!(CopilotChat.recognizes(full));
    assert_eq!(detected(full), Some("copilot-chat"));
    for not in [
        &br#"{"kind":1,"v":{}}"#[..],
        br#"{"kind":0,"v":[]}"#,
        br#"{"kind":"0","v":{}}"#,
        br#"{"type":"user","kind":0}"#,
    ] {
        assert!(
            !CopilotChat.recognizes(not),
            "{}",
            String::from_utf8_lossy(not)
        );
    }
    assert!(CopilotChat.recognizes(b"{"));
    assert!(CopilotChat.recognizes(br#"{"requests":[]}"#));
    for (rel, read) in [
        ("ws/abc/chatSessions/s.jsonl", true),
        ("ws/abc/chatSessions/s.json", true),
        ("globalStorage/emptyWindowChatSessions/s.json", true),
        ("ws/abc/chatSessions/deeper/s.json", false),
        ("ws/abc/state.json", false),
        ("globalStorage/transferredChatSessions/s.json", false),
        ("workspaceStorage/no-workspace/chatSessions/s.jsonl", false),
    ] {
        assert_eq!(CopilotChat.is_log_name(rel.as_bytes()), read, "{rel}");
    }
}

#[test]
fn a_log_whose_first_line_is_no_full_state_is_no_session() {
    let log = lines(&[r#"{"kind":2,"k":["requests"],"v":[]}"#]);
    let err = CopilotChat.read(&log, &|| false, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("kind 0"), "{err}");
    assert!(matches!(
        scan_lines(&CopilotChat, &log).header(),
        HeaderState::NotASession(_)
    ));
    let bad = MemoryLog::new(b"{\"kind\":0,\"v\":{\"sessionId\":\"s\"}}\n\xff\n".to_vec());
    let err = CopilotChat.read(&bad, &|| false, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("invalid UTF-8"), "{err}");
    let none = CopilotChat
        .read(
            &MemoryLog::new(b"{\"kind\":0".to_vec()),
            &|| false,
            &mut |_| {},
        )
        .unwrap_err();
    assert!(none.to_string().contains("no complete line"), "{none}");
}

#[test]
fn a_new_full_state_replaces_everything_and_dates_fall_back() {
    let log = lines(&[
        r#"{"kind":0,"v":{"sessionId":"s1","creationDate":-5,"requests":[{"timestamp":9007199254740992,"message":{"text":"old"}}]}}"#,
        r#"{"kind":0,"v":{"sessionId":"s1","customTitle":"  Named  ","requests":[{"timestamp":42,"message":{"text":"new"},"response":["fine"]}]}}"#,
    ]);
    let summary = assert_agree(&log);
    assert_eq!(summary.header.created_at, 42);
    assert_eq!(summary.title.as_deref(), Some("Named"));
    assert_eq!(
        surface(&CopilotChat, &log),
        [(Role::User, "new".into()), (Role::Assistant, "fine".into())]
    );
    // Nothing dates it: the file's modification time.
    let undated = lines(&[r#"{"kind":0,"v":{"sessionId":"s2","requests":[]}}"#]);
    assert_eq!(assert_agree(&undated).header.created_at, 7);
}

#[test]
fn a_json_beside_its_log_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("chatSessions");
    std::fs::create_dir(&sessions).unwrap();
    let json = sessions.join("s.json");
    std::fs::write(&json, "{\"sessionId\":\"s\",\"requests\":[]}\n").unwrap();
    assert!(CopilotChat
        .read(&placed(&json), &|| false, &mut |_| {})
        .is_ok());
    std::fs::write(sessions.join("s.jsonl"), "{\"kind\":0,\"v\":{}}\n").unwrap();
    let err = CopilotChat
        .read(&placed(&json), &|| false, &mut |_| {})
        .unwrap_err();
    assert!(err.to_string().contains("not read"), "{err}");
}

proptest::proptest! {
    /// Reading in one go equals reading in appended pieces: the scanner fed
    /// the first lines, then the rest, ends where one fed all ends; and a
    /// full read of the first lines agrees with the scanner at that point.
    #[test]
    fn one_go_equals_appended_pieces(cut in 0usize..16) {
        let [path, _, _] = own();
        test_support::one_go_equals_appended_pieces(&CopilotChat, &placed(&path), cut, false)?;
    }
}

/// Every file of the format below `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files = test_support::files_below(dir, |path| {
        path.extension()
            .is_some_and(|e| e == "jsonl" || e == "json")
            && path.file_name().is_some_and(|n| n != "workspace.json")
    });
    files.sort();
    files
}

#[test]
fn every_real_log_reads_and_the_scanner_agrees() {
    let Some(dir) = real_logs("vscode-copilot-chat") else {
        return;
    };
    let files = files(&dir);
    assert_eq!(files.len(), 6, "{files:?}");
    for path in &files {
        let shadowed =
            path.extension().is_some_and(|e| e == "json") && path.with_extension("jsonl").is_file();
        if shadowed {
            assert!(matches!(
                scan_lines(&CopilotChat, &placed(path)).header(),
                HeaderState::NotASession(_)
            ));
            continue;
        }
        let log = placed(path);
        let first = first_line(&log);
        assert!(CopilotChat.recognizes(first), "{}", path.display());
        let mut seqs = Vec::new();
        CopilotChat
            .read(&log, &|| false, &mut |e| seqs.push(e.seq))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{}", path.display());
        assert_agree(&log);
    }
    // The README's expectations of the source-following session.
    let synthetic =
        dir.join("synthetic-User/workspaceStorage/5f2c0d9e8b7a6f5e4d3c2b1a09182736/chatSessions");
    let log = placed(&synthetic.join("11111111-2222-4333-8444-555555555555.jsonl"));
    let summary = assert_agree(&log);
    assert_eq!(summary.title.as_deref(), Some("Speed up the build"));
    assert_eq!(summary.header.created_at, 1_787_220_000_000);
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/user/my app"));
    assert_eq!(summary.capacity, Some(127_805));
    assert_eq!(summary.captured_through_seq, Some(10));
    assert_eq!(
        surface(&CopilotChat, &log),
        [
            (Role::User, "Why is the build slow?".into()),
            (
                Role::Assistant,
                "The slow part is `build.rs`: it recompiles protobufs every time.".into()
            ),
            (Role::User, "Cache them, but only in release builds".into()),
            (
                Role::Assistant,
                "Caching is now limited to `--release`.".into()
            ),
        ]
    );
    let flat = assert_agree(&placed(
        &synthetic.join("22222222-3333-4444-8555-666666666666.json"),
    ));
    assert_eq!(flat.title.as_deref(), Some("What does this regex do? ^a+$"));
    let pair = assert_agree(&placed(
        &synthetic.join("33333333-4444-4555-8666-777777777777.jsonl"),
    ));
    assert_eq!(pair.title.as_deref(), Some("Log wins over flat"));
    let empty = assert_agree(&placed(&dir.join(
        "synthetic-User/globalStorage/emptyWindowChatSessions/44444444-5555-4666-8777-888888888888.jsonl",
    )));
    assert_eq!(empty.header.cwd, None);
    // The real Copilot Chat 0.49 session: named, cancelled mid-answer.
    let real = dir.join("derived-qiaolei-0885a5a2/workspaceStorage/0000derived/chatSessions/0885a5a2-5c49-4a15-b22a-15d9ec401050.jsonl");
    let log = placed(&real);
    let summary = assert_agree(&log);
    assert_eq!(summary.title.as_deref(), Some("Migrate to Quarkus"));
    assert_eq!(
        summary.header.cwd.as_deref(),
        Some("/Users/testuser/workspace/strapi")
    );
    assert_eq!(summary.header.created_at, 1_779_626_521_080);
    assert_eq!(summary.capacity, Some(167_790));
    assert_eq!(summary.skipped_lines, 0);
    let texts = surface(&CopilotChat, &log);
    assert_eq!(texts[0], (Role::User, "migrate to quarkus".into()));
    assert!(
        texts[1]
            .1
            .starts_with("This is a structural rewrite request"),
        "{texts:?}"
    );
}

#[test]
fn the_scanner_keeps_the_shape_not_the_answers() {
    let answer = "x".repeat(1 << 20);
    let push = format!(
        r#"{{"kind":2,"k":["requests",0,"response"],"v":[{{"value":"{answer}"}},{{"kind":"thinking","value":"{answer}"}}]}}"#
    );
    let log = lines(&[
        r#"{"kind":0,"v":{"sessionId":"s1","requests":[{"message":{"text":"ask once"},"response":[]}]}}"#,
        &push,
        r#"{"kind":1,"k":["requests",0,"response",1,"value"],"v":"still resolves"}"#,
        r#"{"kind":1,"k":["requests",0,"response",0,"value","x"],"v":"a string is no container"}"#,
    ]);
    let summary = assert_agree(&log);
    assert_eq!(summary.skipped_lines, 1);
    assert_eq!(summary.title.as_deref(), Some("ask once"));
    // The whole state is in the read; the scanner holds a few hundred bytes.
    let kept = format!("{:?}", scan_lines(&CopilotChat, &log)).len();
    assert!(kept < 4096, "the scanner keeps {kept} bytes of text");
    assert_eq!(surface(&CopilotChat, &log)[1].1.len(), 1 << 20);
}
