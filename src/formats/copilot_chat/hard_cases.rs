//! Hand-written expectations of Copilot Chat's hardest cases (issue 27),
//! each from agent-logs-more.md "GitHub Copilot Chat in VS Code" (rule
//! named per test), not pasted from the reader's output.

use serde_json::{json, Value};

use super::CopilotChat;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;

fn text(lines: &[Value], torn_tail: &str) -> String {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    text
}

fn request(id: &str, ts: u64, prompt: &str, response: Value) -> Value {
    json!({"requestId": id, "timestamp": ts, "message": {"text": prompt, "parts": []},
        "response": response})
}

/// "Replay": kind 1 sets, kind 2 with `i` cuts the array then appends (an
/// edit of request `n`: the final state is the live branch), kind 3
/// removes; an entry whose path does not resolve is skipped. "Messages":
/// `isHidden` requests skipped; a response is its parts concatenated
/// without separator — kind-less `value`, `markdownContent`'s
/// `content.value`, an `inlineReference` as `` `name` `` (else the last
/// path segment), thinking and tool invocations nothing. "title:
/// `customTitle` … used as written" (trimmed, addendum "Titles").
/// "createdAt: `creationDate`".
#[test]
fn the_replayed_state_is_the_live_branch() {
    let log = MemoryLog::new(text(
        &[
            json!({"kind": 0, "v": {"version": 3, "sessionId": "vs-1",
                "creationDate": 1_767_225_600_500_u64, "requests": []}}),
            json!({"kind": 2, "k": ["requests"], "v": [request("r1", 1, "Explain the cache", json!([
                {"value": "It keeps "},
                {"kind": "thinking", "value": "secret"},
                {"kind": "inlineReference", "inlineReference": {"uri": {"path": "/w/src/cache.rs"}}},
                {"kind": "markdownContent", "content": {"value": " warm"}},
                {"kind": "toolInvocationSerialized", "toolId": "runSubagent",
                 "toolSpecificData": {"kind": "subagent", "agentName": "x"}}
            ]))]}),
            json!({"kind": 2, "k": ["requests"], "v": [request("r2", 2, "Abandoned", json!([{"value": "no"}]))]}),
            // An edit of request 1 drops request 2 and appends its new form.
            json!({"kind": 2, "k": ["requests"], "i": 1,
                "v": [request("r2b", 3, "Edited follow-up", json!([]))]}),
            json!({"kind": 2, "k": ["requests", 1, "response"],
                "v": [{"kind": "inlineReference", "name": "lib.rs", "inlineReference": {}}]}),
            json!({"kind": 2, "k": ["requests"], "v": [{"requestId": "r3", "isHidden": true,
                "message": {"text": "Hidden"}, "response": [{"value": "hidden"}]}]}),
            json!({"kind": 1, "k": ["customTitle"], "v": "  Cache questions "}),
            json!({"kind": 1, "k": ["nope", "deeper"], "v": 1}),
            json!({"kind": 3, "k": ["requests", 0, "result"]}),
        ],
        r#"{"kind":1,"k":["customTitle"],"v":"tor"#,
    ))
    .modified(7);
    assert_eq!(
        read_surface(&CopilotChat, &log),
        expect(
            "vs-1",
            1_767_225_600_500,
            None,
            Some("Cache questions"),
            None,
            &[
                ("user", "Explain the cache"),
                ("assistant", "It keeps `cache.rs` warm"),
                ("user", "Edited follow-up"),
                ("assistant", "`lib.rs`"),
            ],
        )
    );
}

/// "id: `sessionId`, else the file name"; "createdAt: … else the first
/// request's `timestamp`"; "cwd: … key `folder` of
/// `<workspaceId>/workspace.json` when it is a `file:` URI with an empty
/// authority: its path, percent-decoded"; "title: … else the first user
/// message cut to 80". A `.json` document holds the same state.
#[test]
fn a_document_without_ids_titles_by_prompt_and_finds_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = tmp.path().join("workspaceStorage/abc123");
    let sessions = workspace.join("chatSessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        workspace.join("workspace.json"),
        r#"{"folder": "file:///home/me/My%20Project"}"#,
    )
    .unwrap();
    let path = sessions.join("doc-7.json");
    let doc = json!({"version": 3, "requests": [
        request("r1", 1_767_225_601_000, "Why   is the\nbuild slow", json!([{"value": "Linking"}])),
        request("r2", 1_767_225_602_000, "  ", json!([{"value": "   "}])),
    ]});
    // Pretty-printed with no final line feed, as VS Code writes it.
    let doc = serde_json::to_string_pretty(&doc).unwrap();
    std::fs::write(&path, &doc).unwrap();
    let log = MemoryLog {
        name: "workspaceStorage/abc123/chatSessions/doc-7.json".into(),
        ..MemoryLog::new(doc).modified(7).at(&path)
    };
    assert_eq!(
        read_surface(&CopilotChat, &log),
        expect(
            "doc-7",
            1_767_225_601_000,
            Some("/home/me/My Project"),
            Some("Why is the build slow"),
            None,
            &[
                ("user", "Why   is the\nbuild slow"),
                ("assistant", "Linking")
            ],
        )
    );
}

/// "Replay": kind 0 "the state becomes `v`" (VS Code starts over after
/// 1024 entries: what came before is gone); kind 3 on an array index
/// leaves that element `null` (no message). "Messages": a user `message`
/// that is a string is its text; "a cancelled request keeps what it had
/// streamed". `pendingRequests` are not projected. "The first user
/// message", for a title, "is the first one in the file …, wherever it
/// is" (agent-logs-more.md addendum, "Titles"): the request the reset
/// dropped still titles the session.
#[test]
fn a_fresh_state_line_starts_over_and_a_deleted_request_is_gone() {
    let log = MemoryLog::new(text(
        &[
            json!({"kind": 0, "v": {"sessionId": "vs-2", "creationDate": 5, "requests": [
                request("r0", 1, "Gone after the reset", json!([{"value": "gone"}]))]}}),
            json!({"kind": 0, "v": {"sessionId": "vs-2", "creationDate": 6, "requests": [
                {"requestId": "r1", "message": "Plain string prompt",
                 "response": [{"value": "Partial ans"}], "isCanceled": true},
                request("r2", 3, "Deleted", json!([{"value": "deleted"}]))],
                "pendingRequests": [{"message": {"text": "Queued"}}]}}),
            json!({"kind": 3, "k": ["requests", 1]}),
        ],
        "",
    ))
    .modified(7);
    assert_eq!(
        read_surface(&CopilotChat, &log),
        expect(
            "vs-2",
            6,
            None,
            Some("Gone after the reset"),
            None,
            &[
                ("user", "Plain string prompt"),
                ("assistant", "Partial ans")
            ],
        )
    );
}
