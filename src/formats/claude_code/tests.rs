//! The format on the real transcripts (../shared/real-logs/claude-code) and
//! on synthetic transcripts for the corner cases.

use std::path::{Path, PathBuf};

use super::ClaudeCode;
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::{HeaderState, LogFormat, Scanner};
use crate::model::{Entry, Event, ReadError, ReadSummary};

pub(crate) const MAIN_2_0: &str = "-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl";
pub(crate) const WARMUP: &str = "-tmp-private/agent-36541525.jsonl";
pub(crate) const MAIN_2_1: &str =
    "-Users-User-repo-codemie-ai-codemie-code/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl";
pub(crate) const SUB_2_1: &str = "-Users-User-repo-codemie-ai-codemie-code/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl";
pub(crate) const SPOTTER: &str =
    "-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl";
pub(crate) const COMPACT_WORKER: &str = "-home-marco-projects-spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl";

/// The shared real transcripts (`None`, said, when absent).
pub(crate) fn fixtures() -> Option<PathBuf> {
    real_logs("claude-code")
}

/// One surface event, simplified: (seq, "user"/"assistant"/"checkpoint<N>", text).
pub(crate) type Item = (u64, String, String);

pub(crate) fn read_bytes(bytes: &[u8]) -> Result<(ReadSummary, Vec<Item>), ReadError> {
    let log = MemoryLog::new(bytes).modified(42);
    let mut items = Vec::new();
    let summary = ClaudeCode.read(&log, &|| false, &mut |e: Entry<'_>| {
        let item = match e.event {
            Event::Message { role, text } => (e.seq, role.as_str().to_string(), text.into_owned()),
            Event::Checkpoint { through_seq, text } => {
                (e.seq, format!("checkpoint{through_seq}"), text.into_owned())
            }
            other => (e.seq, format!("{other:?}"), String::new()),
        };
        items.push(item);
    })?;
    Ok((summary, items))
}

pub(crate) fn read_fixture(rel: &str) -> Option<(ReadSummary, Vec<Item>)> {
    let bytes = std::fs::read(fixtures()?.join(rel)).unwrap();
    Some(read_bytes(&bytes).unwrap())
}

pub(crate) fn scan(bytes: &[u8]) -> Box<dyn Scanner> {
    let mut scanner = ClaudeCode.scanner();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if let Some(line) = line.strip_suffix(b"\n") {
            scanner.line(line);
        }
    }
    scanner
}

pub(crate) fn roles(items: &[Item]) -> Vec<(u64, &str)> {
    items.iter().map(|(s, r, _)| (*s, r.as_str())).collect()
}

pub(crate) const SID: &str = "s1";

/// A user line with a string prompt.
pub(crate) fn user(uuid: &str, parent: Option<&str>, text: &str) -> String {
    serde_json::json!({
        "parentUuid": parent, "isSidechain": false, "sessionId": SID, "type": "user",
        "message": {"role": "user", "content": text}, "uuid": uuid,
        "timestamp": "2026-01-01T00:00:01.000Z", "cwd": "/w"
    })
    .to_string()
        + "\n"
}

/// An assistant line with one text block.
pub(crate) fn assistant(uuid: &str, parent: Option<&str>, msg: &str, text: &str) -> String {
    serde_json::json!({
        "parentUuid": parent, "isSidechain": false, "sessionId": SID,
        "message": {"id": msg, "role": "assistant", "content": [{"type": "text", "text": text}]},
        "type": "assistant", "uuid": uuid, "timestamp": "2026-01-01T00:00:02.000Z"
    })
    .to_string()
        + "\n"
}

pub(crate) fn texts(items: &[Item]) -> Vec<(&str, &str)> {
    items
        .iter()
        .map(|(_, r, t)| (r.as_str(), t.as_str()))
        .collect()
}

#[test]
fn main_transcript_2_0() {
    let Some((summary, items)) = read_fixture(MAIN_2_0) else {
        return;
    };
    // Line 1 is a file-history-snapshot without sessionId.
    assert_eq!(summary.header.id, "4c2ddfdc-b619-4525-8d03-1950fb1b0257");
    assert_eq!(summary.header.version, 0);
    assert_eq!(summary.header.created_at, 1_765_395_465_343);
    assert_eq!(summary.header.cwd.as_deref(), Some("/tmp/private"));
    assert_eq!(summary.title.as_deref(), Some("create hello.py, md and js"));
    assert_eq!(summary.captured_through_seq, Some(25));
    assert_eq!(summary.skipped_lines, 0);
    assert_eq!(summary.capacity, None);
    assert_eq!(
        roles(&items),
        [
            (2, "user"),
            (3, "assistant"),
            (13, "assistant"),
            (15, "user"),
            (20, "assistant"),
            (22, "user"),
            (25, "assistant"),
        ]
    );
    // Lines 3–6 share one message.id: one message at line 3 (its tool_use
    // parts add no text). Lines with no text (tool calls alone, tool
    // results) give nothing.
    assert_eq!(
        items[1].2,
        "I'll create three simple files: hello.py, hello.md, and hello.js."
    );
    assert_eq!(items[5].2, "delete js");
    assert_eq!(items[6].2, "Done! I've deleted hello.js.");
}

#[test]
fn split_messages_merge_at_their_first_line() {
    // 2.1.7: lines 4–6 are thinking, text, tool_use of one message.
    let Some((summary, items)) = read_fixture(MAIN_2_1) else {
        return;
    };
    assert_eq!(summary.header.id, "e9fb405b-169f-40eb-9396-7e75076f045d");
    assert_eq!(summary.header.created_at, 1_768_418_403_207);
    // Line 1 is a summary naming another session: never the title.
    assert_eq!(
        summary.title.as_deref(),
        Some("@\"solution-architect (agent)\" analyze existing CLI command and create")
    );
    let seqs: Vec<u64> = items.iter().map(|i| i.0).collect();
    // Thinking/tool_use-only split messages stay, empty, at their first
    // line (projection drops them).
    assert_eq!(seqs, [3, 4, 8, 12, 15, 18, 21, 24, 27, 35, 42, 47]);
    assert_eq!(items[1].1, "assistant");
    assert!(items[1]
        .2
        .starts_with("I'll use the solution-architect agent to analyze"));
    assert!(!items
        .iter()
        .any(|(_, _, t)| t.contains("<system-reminder>")));
    // spotter: a text line and a tool_use line share message.id b8gyo9kz.
    let Some((_, items)) = read_fixture(SPOTTER) else {
        return;
    };
    assert!(items.contains(&(
        12,
        "assistant".into(),
        "Phoenix server is starting in the background.\n\nLet me check the MCP servers status."
            .into()
    )));
}

#[test]
fn wrappers_meta_and_tool_results_are_not_messages() {
    let Some((summary, items)) = read_fixture(SPOTTER) else {
        return;
    };
    assert_eq!(summary.header.id, "d6e0bada-1959-4eec-a9d2-0bfade768d8f");
    assert_eq!(
        summary.header.cwd.as_deref(),
        Some("/home/marco/projects/spotter")
    );
    // The earliest timestamp (line 2, a progress line), not the first user's.
    assert_eq!(summary.header.created_at, 1_770_764_271_291);
    assert_eq!(
        summary.title.as_deref(),
        Some("start phoenix in background")
    );
    // Line 20 is isMeta, 21 only command wrappers (separated by newline and
    // spaces), 22 only local-command-stdout; tool results never show.
    assert_eq!(
        texts(&items)
            .into_iter()
            .filter(|(r, _)| *r == "user")
            .collect::<Vec<_>>(),
        [
            ("user", "start phoenix in background"),
            ("user", "[Request interrupted by user]"),
            (
                "user",
                "scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions"
            ),
            ("user", "[Request interrupted by user]"),
        ]
    );
}

#[test]
fn sub_agent_transcripts_read_as_sessions() {
    let Some((summary, items)) = read_fixture(SUB_2_1) else {
        return;
    };
    assert_eq!(
        summary.header.id,
        "e9fb405b-169f-40eb-9396-7e75076f045d/a485154"
    );
    assert_eq!(summary.header.created_at, 1_768_418_413_501);
    assert_eq!(
        summary.title.as_deref(),
        Some("Analyze the existing CLI command structure in this CodeMie CLI project and")
    );
    // Every line is isSidechain: in a sub-agent transcript that is normal.
    assert_eq!(
        roles(&items),
        [
            (1, "user"),
            (2, "assistant"),
            (11, "assistant"),
            (21, "assistant"),
            (30, "assistant")
        ]
    );
    let Some((summary, items)) = read_fixture(WARMUP) else {
        return;
    };
    assert_eq!(
        summary.header.id,
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257/36541525"
    );
    assert_eq!(summary.title.as_deref(), Some("Warmup"));
    assert_eq!(roles(&items), [(1, "user"), (2, "assistant")]);
}

#[test]
fn the_live_branch_follows_the_last_line_back() {
    // A rewind: u2 was edited into u2b; the old branch (u2, a2) is not live.
    let log = user("u1", None, "first")
        + &assistant("a1", Some("u1"), "m1", "one")
        + &user("u2", Some("a1"), "old question")
        + &assistant("a2", Some("u2"), "m2", "old answer")
        + &user("u2b", Some("a1"), "new question")
        + &assistant("a2b", Some("u2b"), "m3", "new answer");
    let (summary, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        texts(&items),
        [
            ("user", "first"),
            ("assistant", "one"),
            ("user", "new question"),
            ("assistant", "new answer")
        ]
    );
    // The title is the first prompt in the file, on the branch or not.
    assert_eq!(summary.title.as_deref(), Some("first"));
    // A dangling parent ends the chain without an error; sidechain lines of
    // a main transcript are never on its surface, nor its leaf.
    let sidechain = serde_json::json!({"parentUuid": "x2", "isSidechain": true, "sessionId": SID,
        "type": "assistant", "uuid": "side", "message": {"id": "ms", "content": [{"type": "text", "text": "inline agent"}]}});
    let log = user("x1", None, "lost")
        + &user("x2", Some("gone"), "after a resume")
        + &assistant("x3", Some("x2"), "m1", "reply")
        + &sidechain.to_string()
        + "\n";
    let (_, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        texts(&items),
        [("user", "after a resume"), ("assistant", "reply")]
    );
    // Any line with a uuid links the chain, a hook's progress line too.
    let progress = serde_json::json!({"parentUuid": "p1", "sessionId": SID, "type": "progress",
        "uuid": "hook", "data": {"type": "hook_progress"}});
    let log =
        user("p1", None, "one") + &progress.to_string() + "\n" + &user("p2", Some("hook"), "two");
    let (_, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(texts(&items), [("user", "one"), ("user", "two")]);
    // A cycle ends too.
    let log = user("c1", Some("c2"), "one") + &user("c2", Some("c1"), "two");
    let (_, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(texts(&items), [("user", "one"), ("user", "two")]);
}

#[test]
fn a_split_message_on_a_side_branch_is_whole() {
    // Parallel tool calls: the results hang off different parts of one
    // message, and the next turn continues from one of them.
    let tool_use = |uuid: &str, parent: &str, text: Option<&str>| {
        let mut content =
            vec![serde_json::json!({"type": "tool_use", "id": uuid, "name": "Read", "input": {}})];
        if let Some(t) = text {
            content.insert(0, serde_json::json!({"type": "text", "text": t}));
        }
        serde_json::json!({"parentUuid": parent, "sessionId": SID, "type": "assistant", "uuid": uuid,
            "message": {"id": "m1", "content": content}})
        .to_string()
            + "\n"
    };
    let log = user("u1", None, "go")
        + &tool_use("p1", "u1", Some("part one"))
        + &tool_use("p2", "p1", Some("part two"))
        + &user("r2", Some("p2"), "interleaved")
        + &tool_use("p3", "p2", Some("part three"))
        + &assistant("a9", Some("r2"), "m9", "done");
    let (_, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        items,
        [
            (1, "user".into(), "go".into()),
            (
                2,
                "assistant".into(),
                "part one\npart two\npart three".into()
            ),
            (4, "user".into(), "interleaved".into()),
            (6, "assistant".into(), "done".into()),
        ]
    );
}

#[test]
fn held_text_is_bounded() {
    // A split message whose parts are 5 MiB of other messages apart: the
    // first part is emitted when the buffer is full, the second on its own.
    let big = "x".repeat(5 << 20);
    let log = user("u1", None, "go")
        + &assistant("a1", Some("u1"), "m1", "part one")
        + &user("u2", Some("a1"), &big)
        + &assistant("a2", Some("u2"), "m1", "part two");
    let (_, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        roles(&items),
        [(1, "user"), (2, "assistant"), (3, "user"), (4, "assistant")]
    );
    assert_eq!(items[1].2, "part one");
    assert_eq!(items[3].2, "part two");
    // Under the cap they are one message, placed first.
    let log = user("u1", None, "go")
        + &assistant("a1", Some("u1"), "m1", "part one")
        + &user("u2", Some("a1"), "between")
        + &assistant("a2", Some("u2"), "m1", "part two");
    let (_, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        texts(&items),
        [
            ("user", "go"),
            ("assistant", "part one\npart two"),
            ("user", "between")
        ]
    );
}

#[test]
fn compaction_shadows_the_branch_before_it() {
    let boundary = serde_json::json!({"parentUuid": null, "logicalParentUuid": "a1", "sessionId": SID,
        "type": "system", "subtype": "compact_boundary", "uuid": "b1",
        "compactMetadata": {"trigger": "auto", "preTokens": 1000}});
    let summary = serde_json::json!({"parentUuid": "b1", "sessionId": SID, "type": "user",
        "isCompactSummary": true, "isVisibleInTranscriptOnly": true, "uuid": "cs",
        "message": {"role": "user", "content": "This session is being continued. Summary: X"}});
    let log = user("u1", None, "before")
        + &assistant("a1", Some("u1"), "m1", "old")
        + &boundary.to_string()
        + "\n"
        + &summary.to_string()
        + "\n"
        + &user("u2", Some("cs"), "after")
        + &assistant("a2", Some("u2"), "m2", "new");
    let (summary, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        items,
        [
            (1, "user".into(), "before".into()),
            (2, "assistant".into(), "old".into()),
            (
                4,
                "checkpoint3".into(),
                "This session is being continued. Summary: X".into()
            ),
            (5, "user".into(), "after".into()),
            (6, "assistant".into(), "new".into()),
        ]
    );
    assert_eq!(summary.title.as_deref(), Some("before"));
    // Through the projector: the checkpoint and what follows.
    let mut projector = crate::reference::projection::Projector::new(None, usize::MAX);
    let log = MemoryLog::new(log.into_bytes());
    ClaudeCode
        .read(&log, &|| false, &mut |e| projector.push(e))
        .unwrap();
    let projection = projector.finish();
    assert!(projection.compacted);
    let shown: Vec<&str> = projection
        .messages
        .iter()
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(
        shown,
        [
            "This session is being continued. Summary: X",
            "after",
            "new"
        ]
    );
}

#[test]
fn titles_custom_then_ai_then_first_prompt() {
    let custom = |t: &str| {
        serde_json::json!({"type": "custom-title", "customTitle": t, "sessionId": SID}).to_string()
            + "\n"
    };
    let ai = |t: &str| {
        serde_json::json!({"type": "ai-title", "aiTitle": t, "sessionId": SID}).to_string() + "\n"
    };
    let summary_line =
        r#"{"type":"summary","summary":"Someone else's","leafUuid":"zz"}"#.to_string() + "\n";
    let prompt = "  <command-name>/x</command-name>  ";
    let long = "word ".repeat(30);
    let base = summary_line + &user("w", None, prompt) + &user("u", Some("w"), &long);
    let title = |log: &str| scan(log.as_bytes()).meta().title;
    assert_eq!(
        title(&base),
        Some("word ".repeat(16).trim_end().to_string())
    );
    assert_eq!(
        title(&(ai("AI one") + &base + &ai(" AI two ") + &ai("  "))),
        Some("AI two".into())
    );
    assert_eq!(
        title(&(custom("Mine") + &base + &ai("AI") + &custom(""))),
        Some("Mine".into())
    );
}

#[test]
fn lenient_lines_are_skipped_and_counted() {
    let log = "{\"type\":\"summary\",\"summary\":\"s\"}\n".to_string()
        + "not json\n"
        + "[1,2]\n"
        + "\n"
        + &user("u1", None, "hello")
        + "{\"type\":\"user\",\"message\":\n"
        + &assistant("a1", Some("u1"), "m1", "hi")
        + "{\"type\":\"assistant\",\"uuid\":\"a2\",\"parentUuid\":\"a1\",\"sessionId\":\"s1\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"unfinished";
    let (summary, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(summary.skipped_lines, 3);
    // Complete lines only; the unfinished last one is ignored.
    assert_eq!(summary.captured_through_seq, Some(7));
    assert_eq!(texts(&items), [("user", "hello"), ("assistant", "hi")]);
    let scanner = scan(log.as_bytes());
    assert_eq!(scanner.meta().skipped_lines, 3);
    assert_eq!(scanner.meta().failure, None);
}

#[test]
fn invalid_utf8_fails_the_read() {
    let mut log = user("u1", None, "hello").into_bytes();
    log.extend_from_slice(b"{\"type\":\"user\",\"x\":\"\xff\"}\n");
    let err = read_bytes(&log).unwrap_err();
    assert!(
        matches!(&err, ReadError::Log(e) if e.line == Some(2) && e.reason.contains("UTF-8")),
        "{err:?}"
    );
    let scanner = scan(&log);
    assert!(scanner.meta().failure.is_some());
    assert!(scanner.is_done());
    assert_eq!(scanner.meta().title, None);
    // Before any sessionId, it is not a session at all.
    let scanner = scan(b"{\"type\":\"summary\"}\n\xff\n");
    assert!(matches!(scanner.header(), HeaderState::NotASession(_)));
}

#[test]
fn wrong_types_never_panic() {
    let values = [
        "null",
        "1",
        "-1.5",
        "true",
        "\"s\"",
        "[]",
        "{}",
        "[1,{\"type\":\"text\"}]",
        "{\"type\":\"text\",\"text\":5}",
        "{\"id\":[],\"content\":{}}",
    ];
    let fields = [
        "type",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "sessionId",
        "agentId",
        "timestamp",
        "cwd",
        "isSidechain",
        "isMeta",
        "isCompactSummary",
        "customTitle",
        "aiTitle",
        "message",
        "toolUseResult",
        "subtype",
    ];
    let mut log = String::new();
    for field in fields {
        for value in values {
            for kind in ["user", "assistant", "system", "custom-title"] {
                log.push_str(&format!(
                    "{{\"type\":\"{kind}\",\"sessionId\":\"s1\",\"uuid\":\"{field}{value}\",\"{field}\":{value},\"message\":{{\"content\":{value},\"id\":{value}}}}}\n"
                ));
            }
        }
    }
    let (summary, _) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(summary.header.id, "s1");
    let _ = scan(log.as_bytes()).meta();
}

proptest::proptest! {
    /// Transcripts assembled from real-looking pieces, cut anywhere: the
    /// read never fails but on bad UTF-8, never panics, and hands out
    /// strictly increasing `seq`s, each a line number.
    #[test]
    fn any_transcript_reads_in_order(
        picks in proptest::collection::vec((0usize..12, 0usize..6, 0usize..6, 0usize..3), 0..40),
        cut in 0usize..4000,
    ) {
        let ids = ["a", "b", "c", "d", "e", "f"];
        let mut log = String::new();
        for (kind, me, parent, msg) in picks {
            let (me, parent, msg) = (ids[me], ids[parent], ["m1", "m2", "m3"][msg]);
            log.push_str(&match kind {
                0 => user(me, Some(parent), "hello"),
                1 => user(me, None, "<command-name>/x</command-name>"),
                2 => assistant(me, Some(parent), msg, "reply"),
                3 => assistant(me, None, msg, ""),
                4 => format!("{{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"uuid\":\"{me}\",\"logicalParentUuid\":\"{parent}\",\"sessionId\":\"s1\"}}\n"),
                5 => format!("{{\"type\":\"user\",\"isCompactSummary\":true,\"uuid\":\"{me}\",\"parentUuid\":\"{parent}\",\"sessionId\":\"s1\",\"message\":{{\"content\":\"sum\"}}}}\n"),
                6 => format!("{{\"type\":\"assistant\",\"isSidechain\":true,\"uuid\":\"{me}\",\"parentUuid\":\"{parent}\",\"sessionId\":\"s1\",\"message\":{{\"id\":\"{msg}\",\"content\":[{{\"type\":\"text\",\"text\":\"side\"}}]}}}}\n"),
                7 => "{\"type\":\"summary\",\"summary\":\"x\"}\n".to_string(),
                8 => "not json\n".to_string(),
                9 => format!("{{\"type\":\"progress\",\"uuid\":\"{me}\",\"parentUuid\":\"{parent}\"}}\n"),
                10 => "\n".to_string(),
                _ => format!("{{\"type\":\"custom-title\",\"customTitle\":\"{me}\"}}\n"),
            });
        }
        let cut = log.char_indices().map(|(i, _)| i).find(|&i| i >= cut).unwrap_or(log.len());
        let bytes = &log.as_bytes()[..cut];
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        // Cut at a character boundary of pieces that are all UTF-8: the one
        // way the read may fail is a transcript with no session id on any
        // line it can parse (no header); any other failure is a finding.
        // Complete lines only: a last line without its `\n` may still be
        // being written, and is not read.
        let complete = &bytes[..bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)];
        let has_id = complete.split(|&b| b == b'\n').any(|line| {
            serde_json::from_slice::<serde_json::Value>(line)
                .is_ok_and(|v| v["sessionId"].is_string())
        });
        // The pieces that are a person's or the model's text.
        let has_person_text = complete
            .split(|&b| b == b'\n')
            .any(|line| memchr::memmem::find(line, b"\"hello\"").is_some()
                || memchr::memmem::find(line, b"\"reply\"").is_some());
        let (summary, items) = match read_bytes(bytes) {
            Ok(read) => read,
            Err(ReadError::Log(e)) if !has_id && e.reason == "no line has a sessionId" => {
                return Ok(());
            }
            // A transcript of commands and bookkeeping alone is no session.
            Err(ReadError::Log(e))
                if !has_person_text && e.reason == "no user or assistant message" =>
            {
                return Ok(());
            }
            Err(e) => {
                return Err(proptest::test_runner::TestCaseError::fail(format!(
                    "the read failed (a session id on some line: {has_id}): {e}"
                )));
            }
        };
        proptest::prop_assert_eq!(summary.captured_through_seq, Some(lines).filter(|&n| n > 0));
        let seqs: Vec<u64> = items.iter().map(|i| i.0).collect();
        proptest::prop_assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{:?}", seqs);
        proptest::prop_assert!(seqs.iter().all(|&s| s >= 1 && s <= lines));
        let _ = scan(bytes).meta();
    }
}

/// What a prompt the hook blocked leaves (Claude Code 2.1.332): lines that
/// carry the `sessionId` but no user or assistant message.
pub(crate) const BLOCKED: &str = r#"{"type":"mode","mode":"normal","sessionId":"s1"}
{"type":"permission-mode","permissionMode":"auto","sessionId":"s1"}
{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}
"#;

/// `prepare --format text`'s output for one source, then the person's text.
pub(crate) fn rendered_prompt(person: &str) -> String {
    let mut object = String::new();
    crate::reference::render::write_data_object(
        &mut object,
        &crate::reference::render::SourceMeta {
            session_id: "old",
            label: "Old work",
            cwd: None,
            captured_through_seq: Some(4),
        },
        &[crate::reference::render::Turn {
            role: crate::model::Role::User,
            text: "an instruction inside the snapshot".into(),
        }],
    );
    format!(
        "{}\n\n{person}",
        crate::reference::render::render_context([object.as_str()])
    )
}

#[test]
fn a_rendered_context_leaves_the_title_and_the_surface() {
    let person = "Continue the review from @[Review the cart totals](hydra-session:ImEi)";
    let prompt = rendered_prompt(person);
    let log = user("u1", None, &prompt) + &assistant("a1", Some("u1"), "m1", "ok");
    assert_eq!(
        scan(log.as_bytes()).meta().title.as_deref(),
        Some("Continue the review from @Review the cart totals")
    );
    let (summary, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        summary.title.as_deref(),
        Some("Continue the review from @Review the cart totals")
    );
    // The projection keeps the person's text as written, markup included.
    assert_eq!(texts(&items), [("user", person), ("assistant", "ok")]);

    // Text blocks joined: the context is judged on the message's text.
    let blocks = serde_json::json!({
        "parentUuid": null, "sessionId": SID, "type": "user", "uuid": "b1",
        "message": {"role": "user", "content": [{"type": "text", "text": prompt}]}
    })
    .to_string()
        + "\n";
    assert_eq!(
        texts(&read_bytes(blocks.as_bytes()).unwrap().1),
        [("user", person)]
    );

    // Something that merely looks like one stays, whole.
    let similar = prompt.replacen("\n\n", "\n", 1);
    let log = user("u1", None, &similar);
    let (summary, items) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(
        summary.title.as_deref(),
        Some("## Referenced sessions The JSON below is an untrusted, read-only snapshot from")
    );
    assert_eq!(texts(&items), [("user", similar.as_str())]);
}

/// Copies the folder `from` to `to`, for a store of chosen real projects.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Claude Code 2.1.332 writes copies of messages, with role `user` or
/// `system`, in line types of their own. A fixture written here (its type
/// names stand for any such new type): the copies stay ignored, last on
/// the file or not, and the live branch is the person's and the model's.
#[test]
fn copies_of_messages_in_new_line_types_stay_ignored() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code/copies-in-new-line-types.jsonl");
    let bytes = std::fs::read(path).unwrap();
    let (summary, items) = read_bytes(&bytes).unwrap();
    assert_eq!(
        texts(&items),
        [
            ("user", "Why does the nightly export skip empty carts?"),
            (
                "assistant",
                "The exporter filters carts with no lines before it writes."
            ),
        ]
    );
    assert_eq!(
        summary.title.as_deref(),
        Some("Why does the nightly export skip empty carts?")
    );
    assert_eq!(summary.skipped_lines, 0);
    let meta = scan(&bytes).meta();
    assert_eq!((meta.title, meta.skipped_lines), (summary.title, 0));
}

/// The fixtures written here (`tests/fixtures/claude-code/projects/`, small
/// and invented) for the rules the shared real transcripts exercise, so
/// they hold without `../shared`: a 2.1 main transcript (a first line
/// without `sessionId`, a `summary` whose `leafUuid` is elsewhere, one
/// `message.id` over three lines, a Task call and its `toolUseResult`, a
/// `<system-reminder>` inside a tool result, `isMeta` and command
/// wrappers, `queue-operation` and `progress` lines, a `compact_boundary`
/// with its `isCompactSummary`, a custom title, a bad line), its 2.1
/// sub-agent, a 2.0 "Warmup" agent beside it and a compaction worker.
pub(crate) const OWN_PROJECT: &str = "tests/fixtures/claude-code/projects/-home-ana-shop";
pub(crate) const OWN_MAIN: &str = "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b.jsonl";
pub(crate) const OWN_SUB: &str =
    "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b/subagents/agent-b1c2d3.jsonl";
pub(crate) const OWN_WARMUP: &str = "agent-77aa88bb.jsonl";
pub(crate) const OWN_WORKER: &str =
    "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b/subagents/agent-acompact-1a2b3c.jsonl";

/// Another project's transcript: a failed tool whose `toolUseResult` is a
/// string, `[Request interrupted by user]`, `system` lines of a local
/// command, a stop hook and a turn's duration.
pub(crate) const OWN_TOOLS: &str = "../-home-ana-api/9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a.jsonl";

pub(crate) fn own_project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(OWN_PROJECT)
}

#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    use crate::formats::toolkit::golden::{assert_golden, read_as_json};
    for rel in [OWN_MAIN, OWN_SUB, OWN_WARMUP, OWN_WORKER, OWN_TOOLS] {
        let path = own_project().join(rel);
        let log = MemoryLog::new(std::fs::read(&path).unwrap()).modified(42);
        assert_golden(&path, &read_as_json(&ClaudeCode, &log));
    }
    let bytes = std::fs::read(own_project().join(OWN_MAIN)).unwrap();
    let (summary, items) = read_bytes(&bytes).unwrap();
    // The id comes from line 3 (line 1 has none); the summary line is not
    // a title; the compaction shadows what precedes it.
    assert_eq!(summary.header.id, "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b");
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/ana/shop"));
    assert_eq!(summary.title.as_deref(), Some("Cart rounding"));
    assert_eq!(summary.skipped_lines, 1);
    assert!(items
        .iter()
        .any(|(_, kind, text)| kind.starts_with("checkpoint") && text.contains("both callers")));
    assert_eq!(
        texts(&items)
            .into_iter()
            .filter(|(role, _)| !role.starts_with("checkpoint"))
            .collect::<Vec<_>>(),
        [
            ("user", "Why does the cart total drift by a cent?"),
            ("assistant", "I will ask a sub-agent to find the callers."),
            (
                "assistant",
                "Both callers round the cart once, after summing."
            ),
            ("user", "Round per line instead"),
            ("assistant", "Done: `cart::total` rounds each line."),
        ]
    );
    let meta = scan(&bytes).meta();
    assert_eq!((meta.title, meta.skipped_lines), (summary.title, 1));
}

/// Every file below `dir`.
pub(crate) fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().is_dir() {
            out.extend(walk_files(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out
}
