//! Hand-written expectations of Gemini CLI's hardest cases (issue 27),
//! each from agent-logs-more.md "Gemini CLI" (rule named per test), not
//! pasted from the reader's output. 2026-01-01T00:00:00Z is
//! 1_767_225_600_000 ms.

use serde_json::{json, Value};

use super::GeminiCli;
use crate::formats::toolkit::hard_case::{expect, read_surface, Expected};
use crate::formats::toolkit::memory_log::MemoryLog;

const T0: u64 = 1_767_225_600_000;

fn text(lines: &[Value], torn_tail: &str) -> String {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    text
}

fn log(lines: &[Value], torn_tail: &str) -> MemoryLog {
    MemoryLog::new(text(lines, torn_tail)).modified(7)
}

fn meta(id: &str) -> Value {
    json!({"sessionId": id, "projectHash": "h", "startTime": "2026-01-01T00:00:02.500Z",
        "lastUpdated": "2026-01-01T09:00:00.000Z", "kind": "main"})
}

fn user(id: &str, s: u32, content: Value) -> Value {
    json!({"id": id, "timestamp": format!("2026-01-01T00:00:{s:02}.000Z"), "type": "user",
        "content": content})
}

fn gemini(id: &str, content: Value) -> Value {
    json!({"id": id, "timestamp": "2026-01-01T00:00:30.000Z", "type": "gemini", "content": content})
}

/// "message … a known id is replaced in place, keeping its position";
/// "rewind … the message with that id and every later one are removed".
/// Text: `displayContent` over `content`; parts concatenated without
/// separator, `thought: true` parts left out; tool calls, `info` and
/// `error` never. "title: … the first user message … every record read
/// counts, replaced and rewound ones too" — and not one starting with `/`.
/// "createdAt: line 1's `startTime`". No `.project_root`: no cwd.
#[test]
fn replacement_keeps_the_position_and_a_rewind_cuts_the_tail() {
    let mut shown = user(
        "u1",
        5,
        json!([{"text": "Explain @src/a.rs with its 300 lines"}]),
    );
    shown["displayContent"] = json!("Explain @src/a.rs");
    let mut tooled = gemini(
        "g1",
        json!([{"text": "Thinking it over", "thought": true}, {"text": "It parses "}, {"text": "args"}]),
    );
    tooled["toolCalls"] =
        json!([{"id": "t1", "name": "read_file", "args": {}, "status": "success"}]);
    let log = log(
        &[
            meta("s1"),
            user("u0", 4, json!("/stats")),
            shown,
            gemini("g1", json!("draft")),
            tooled,
            json!({"id": "i1", "type": "info", "content": "Model switched"}),
            user("u2", 6, json!("Rewound away")),
            gemini("g2", json!("Gone too")),
            json!({"$rewindTo": "u2"}),
            json!({"id": "e1", "type": "error", "content": "quota"}),
            user("u3", 7, json!("What else?")),
        ],
        r#"{"id":"g3","type":"gemini","content":"tor"#,
    );
    assert_eq!(
        read_surface(&GeminiCli, &log),
        S1.surface(
            T0 + 2_500,
            "Explain @src/a.rs",
            &[
                ("user", "/stats"),
                ("user", "Explain @src/a.rs"),
                ("assistant", "It parses args"),
                ("user", "What else?"),
            ],
        )
    );
}

/// "Compaction: the last `user` message whose text contains
/// `<state_snapshot>` is a compact checkpoint …, shadowing every message
/// before it; a `gemini` message right after it whose text is exactly
/// `Got it. Thanks for the additional context!` is not projected."
/// "update … `$set.messages` … the list is cleared and rebuilt"; "title:
/// the last non-empty `summary` (metadata, `$set` or document), used as
/// written".
#[test]
fn a_state_snapshot_is_the_checkpoint_and_the_last_summary_titles() {
    let snapshot = "<state_snapshot>\n<goal>port it</goal>\n</state_snapshot>";
    let log = log(
        &[
            meta("s1"),
            user("u1", 5, json!("Port the tool")),
            gemini("g1", json!("Porting")),
            json!({"$set": {"summary": "Porting the tool", "messages": [
                user("u9", 8, json!(snapshot)),
                gemini("g9", json!("Got it. Thanks for the additional context!")),
            ]}}),
            user("u10", 9, json!("Continue")),
            gemini("g10", json!("Continued")),
            json!({"$set": {"summary": "  Tool port  "}}),
            json!({"$set": {"summary": ""}}),
        ],
        "",
    );
    assert_eq!(
        read_surface(&GeminiCli, &log),
        S1.surface(
            T0 + 2_500,
            "Tool port",
            &[
                ("checkpoint", snapshot),
                ("user", "Continue"),
                ("assistant", "Continued"),
            ],
        )
    );
}

/// "A `.jsonl` in a directory `<dir>` directly below a `chats` directory
/// is a sub-agent's: id `<dir>/<sessionId>`"; "cwd: the trimmed contents
/// of `.project_root` in the directory holding that `chats` directory".
/// "Messages": a `user` record of only `functionResponse` parts has no
/// text, and one starting with `<session_context>` is not projected —
/// nor a title, so the title is the next user message.
#[test]
fn a_sub_agent_below_chats_is_named_by_its_parent_and_reads_the_project_root() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("myproj");
    let chats = project.join("chats").join("parent-1");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(project.join(".project_root"), "  /home/me/myproj\n").unwrap();
    let path = chats.join("agent-7.jsonl");
    let bytes = text(
        &[
            meta("agent-7"),
            user(
                "u1",
                5,
                json!("<session_context>OS: linux</session_context>"),
            ),
            user("u2", 6, json!("Find the config loader")),
            user(
                "u3",
                7,
                json!([{"functionResponse": {"name": "ls", "response": {}}}]),
            ),
            gemini("g1", json!("In config.ts")),
        ],
        "",
    );
    std::fs::write(&path, &bytes).unwrap();
    let log = MemoryLog::new(bytes).modified(7).at(&path);
    assert_eq!(
        read_surface(&GeminiCli, &log),
        expect(
            "parent-1/agent-7",
            T0 + 2_500,
            Some("/home/me/myproj"),
            Some("Find the config loader"),
            None,
            &[
                ("user", "Find the config loader"),
                ("assistant", "In config.ts")
            ],
        )
    );
}

/// "Legacy JSON: one pretty-printed object … its `messages` are the list
/// as they stand (an entry that is not an object with a string `id` is
/// skipped)". "title: … the first user message whose text … does not
/// start with `/`, `?` … and holds no `<state_snapshot>`". No `startTime`:
/// "else the earliest message `timestamp` of any record".
#[test]
fn a_legacy_document_skips_help_prompts_for_its_title() {
    let doc = json!({"sessionId": "s-old", "projectHash": "h", "messages": [
        user("u1", 9, json!("?help")),
        {"type": "user", "content": "no id"},
        user("u2", 8, json!("Summarise the diff")),
        gemini("g1", json!([{"text": "Two files changed"}])),
    ]});
    let bytes = serde_json::to_vec_pretty(&doc).unwrap();
    let log = MemoryLog {
        name: "session-2026-01-01T00-00-s-old.json".into(),
        ..MemoryLog::new(bytes).modified(7)
    };
    assert_eq!(
        read_surface(&GeminiCli, &log),
        expect(
            "s-old",
            T0 + 8_000,
            None,
            Some("Summarise the diff"),
            None,
            &[
                ("user", "?help"),
                ("user", "Summarise the diff"),
                ("assistant", "Two files changed"),
            ],
        )
    );
}

/// The session of [`meta`]`("s1")`.
const S1: Expected = Expected::new("s1", None);
