//! Hand-written expectations of the Cline CLI's hardest cases (issue 27).
//! The shared contract does not cover this store (agent-logs-files-3.md:
//! "Cline's newer SDK store … is not read"); its rules are the project's,
//! docs/agent-logs.md "Cline CLI: format `cline-cli`", cited per test.

use std::path::Path;

use serde_json::{json, Value};

use super::ClineCli;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;

const ID: &str = "1767225600000_ab3cd";

/// `sessions/<id>/<id>.messages.json` with `<id>.json` beside it when
/// given.
fn session(root: &Path, messages: &[Value], facts: Option<Value>) -> MemoryLog {
    let dir = root.join("sessions").join(ID);
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(facts) = facts {
        std::fs::write(dir.join(format!("{ID}.json")), facts.to_string()).unwrap();
    }
    let doc =
        serde_json::to_vec_pretty(&json!({"messages": messages, "system_prompt": "p"})).unwrap();
    let path = dir.join(format!("{ID}.messages.json"));
    std::fs::write(&path, &doc).unwrap();
    MemoryLog {
        name: format!("{ID}/{ID}.messages.json"),
        ..MemoryLog::new(doc).modified(7).at(path)
    }
}

fn msg(role: &str, ts: u64, content: Value) -> Value {
    json!({"role": role, "ts": ts, "content": content})
}

/// "Header": id the folder's name; createdAt `started_at`; cwd `cwd`;
/// title `metadata.title` trimmed. "Messages": `<user_input>` unwrapped;
/// tool results (a user message of `tool_result` only) and `tool_use` not
/// projected; an assistant's text blocks joined with "\n".
#[test]
fn the_side_file_heads_and_tools_are_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let log = session(
        tmp.path(),
        &[
            msg(
                "user",
                1_767_225_601_000,
                json!([{"type": "text",
                "text": "<user_input mode=\"act\">List the files</user_input>"}]),
            ),
            msg(
                "assistant",
                1_767_225_602_000,
                json!([{"type": "tool_use", "id": "t1",
                "name": "list_files", "input": {}}]),
            ),
            msg(
                "user",
                1_767_225_603_000,
                json!([{"type": "tool_result", "tool_use_id": "t1",
                "content": "a.rs"}]),
            ),
            msg(
                "assistant",
                1_767_225_604_000,
                json!([{"type": "text", "text": "One file:"},
                {"type": "text", "text": "a.rs"}]),
            ),
        ],
        Some(
            json!({"started_at": "2026-01-01T00:00:00.500Z", "cwd": "/w/cline",
            "workspace_root": "/w", "status": "completed",
            "metadata": {"title": "  List the files  "}}),
        ),
    );
    assert_eq!(
        read_surface(&ClineCli, &log),
        expect(
            ID,
            1_767_225_600_500,
            Some("/w/cline"),
            Some("List the files"),
            None,
            &[("user", "List the files"), ("assistant", "One file:\na.rs")],
        )
    );
}

/// "[U] … the fallbacks when `<id>.json` lacks a field (title → the
/// first person's message cut to 80, cwd → `workspace_root`, createdAt →
/// the earliest message `ts`)".
#[test]
fn without_side_facts_the_fallbacks_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let log = session(
        tmp.path(),
        &[
            msg(
                "user",
                1_767_225_609_000,
                json!([{"type": "text",
                "text": "<user_input mode=\"plan\">Sketch   the\nrelease plan</user_input>"}]),
            ),
            msg(
                "assistant",
                1_767_225_605_000,
                json!([{"type": "text", "text": "Sketched"}]),
            ),
        ],
        Some(json!({"workspace_root": "/w/root"})),
    );
    assert_eq!(
        read_surface(&ClineCli, &log),
        expect(
            ID,
            1_767_225_605_000,
            Some("/w/root"),
            Some("Sketch the release plan"),
            None,
            &[
                ("user", "Sketch   the\nrelease plan"),
                ("assistant", "Sketched")
            ],
        )
    );
}
