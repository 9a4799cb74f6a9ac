//! Hand-written expectations of Codex's hardest cases (issue 27), each
//! from agent-logs.md "Codex" (rule named per test), not pasted from the
//! reader's output. 2026-01-01T00:00:00Z is 1_767_225_600_000 ms.

use serde_json::{json, Value};

use super::Codex;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;

const T0: u64 = 1_767_225_600_000;

fn log(lines: &[Value], torn_tail: &str) -> MemoryLog {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    MemoryLog::new(text).modified(7)
}

/// A line at second `s` (the line's own timestamp, never createdAt).
fn at(s: u32, kind: &str, payload: Value) -> Value {
    json!({"timestamp": format!("2026-01-01T00:01:{s:02}.000Z"), "type": kind, "payload": payload})
}

fn meta(source: Value) -> Value {
    at(
        0,
        "session_meta",
        json!({"id": "th-1", "timestamp": "2026-01-01T00:00:03.250Z", "cwd": "/w/app",
            "originator": "codex_cli_rs", "cli_version": "0.50.0", "source": source}),
    )
}

fn msg(s: u32, role: &str, blocks: &[&str]) -> Value {
    let kind = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    let content: Vec<Value> = blocks
        .iter()
        .map(|t| json!({"type": kind, "text": t}))
        .collect();
    at(
        s,
        "response_item",
        json!({"type": "message", "role": role, "content": content}),
    )
}

fn event(s: u32, kind: &str, message: &str) -> Value {
    at(s, "event_msg", json!({"type": kind, "message": message}))
}

/// "Messages": injected-context blocks are judged alone and skipped (a
/// message left empty is not projected); developer messages, reasoning,
/// tool calls and their outputs never show; `event_msg` duplicates are not
/// projected. "title: the last `thread_name_updated` with a non-empty
/// name". "createdAt: its (session_meta's) timestamp"; "cwd: its cwd".
/// "An unfinished last line is ignored."
#[test]
fn injected_context_tools_and_duplicates_are_dropped_and_the_named_title_wins() {
    let log = log(
        &[
            meta(json!("cli")),
            msg(
                1,
                "developer",
                &["<permissions instructions>sandboxed</permissions instructions>"],
            ),
            msg(
                2,
                "user",
                &[
                    "# AGENTS.md instructions for /w/app\n\n<INSTRUCTIONS>be terse</INSTRUCTIONS>",
                    "<environment_context>\n  <cwd>/w/app</cwd>\n</environment_context>",
                ],
            ),
            msg(
                3,
                "user",
                &[
                    "<user_instructions>x</user_instructions>",
                    "Fix the flaky test",
                ],
            ),
            event(3, "user_message", "Fix the flaky test"),
            at(
                4,
                "response_item",
                json!({"type": "reasoning", "summary": [], "encrypted_content": "e"}),
            ),
            at(
                5,
                "response_item",
                json!({"type": "function_call", "name": "shell",
                "arguments": "{\"cmd\":\"cargo test\"}", "call_id": "c1"}),
            ),
            at(
                6,
                "response_item",
                json!({"type": "function_call_output", "call_id": "c1",
                "output": "ok"}),
            ),
            msg(7, "assistant", &["It was a race;", "fixed."]),
            event(7, "agent_message", "It was a race; fixed."),
            at(
                8,
                "event_msg",
                json!({"type": "thread_name_updated", "thread_name": "  Flaky test  "}),
            ),
            at(
                9,
                "event_msg",
                json!({"type": "thread_name_updated", "thread_name": ""}),
            ),
        ],
        r#"{"timestamp":"2026-01-01T00:01:10.000Z","type":"response_item","payload":{"type":"mess"#,
    );
    assert_eq!(
        read_surface(&Codex, &log),
        expect(
            "th-1",
            T0 + 3_250,
            Some("/w/app"),
            Some("Flaky test"),
            None,
            &[
                ("user", "Fix the flaky test"),
                ("assistant", "It was a race;\nfixed."),
            ],
        )
    );
}

/// "Compaction": a `compacted` line shadows every earlier line; its
/// `replacement_history` messages follow the checkpoint, except a user
/// message repeating the summary; later lines follow. "title: … else the
/// first `event_msg` `user_message` … cut to 80" — a shadowed one counts,
/// since the rule names the first in the rollout.
#[test]
fn compaction_with_a_replacement_history_keeps_it_after_the_checkpoint() {
    let log = log(
        &[
            meta(json!("cli")),
            msg(1, "user", &["Port the module"]),
            event(1, "user_message", "Port the module"),
            msg(2, "assistant", &["Started"]),
            at(
                3,
                "compacted",
                json!({"message": "Summary: porting is half done",
                "replacement_history": [
                    {"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": "Port the module"}]},
                    {"type": "message", "role": "developer",
                     "content": [{"type": "input_text", "text": "policy"}]},
                    {"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": "Summary: porting is half done"}]}
                ]}),
            ),
            event(3, "context_compacted", ""),
            msg(4, "user", &["Finish it"]),
            msg(5, "assistant", &["Finished"]),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Codex, &log),
        expect(
            "th-1",
            T0 + 3_250,
            Some("/w/app"),
            Some("Port the module"),
            None,
            &[
                ("checkpoint", "Summary: porting is half done"),
                ("user", "Port the module"),
                ("user", "Finish it"),
                ("assistant", "Finished"),
            ],
        )
    );
}

/// "Compaction": "when the summary is only an encrypted `compaction`
/// item, the text is `[earlier conversation compacted; its summary is
/// encrypted]`" — read as: `message` empty and the replacement history
/// holding a `compaction` item.
#[test]
fn an_encrypted_summary_is_named_as_such() {
    let log = log(
        &[
            meta(json!("cli")),
            msg(1, "user", &["Old prompt"]),
            at(
                2,
                "compacted",
                json!({"message": "",
                    "replacement_history": [{"type": "compaction", "encrypted_content": "gAAA"}]}),
            ),
            msg(3, "user", &["New prompt"]),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Codex, &log),
        expect(
            "th-1",
            T0 + 3_250,
            Some("/w/app"),
            Some("Old prompt"),
            None,
            &[
                (
                    "checkpoint",
                    "[earlier conversation compacted; its summary is encrypted]"
                ),
                ("user", "New prompt"),
            ],
        )
    );
}

/// "Messages": "in a rollout with no `response_item` message at all …
/// `user_message` (role `user`) and `agent_message` (role `assistant`)
/// events are its messages." "id: … the first `session_meta`; a resumed
/// rollout appends without a new one" — a second `session_meta` changes
/// neither id, time nor cwd.
#[test]
fn an_events_only_rollout_projects_its_events_and_a_resume_keeps_the_first_meta() {
    let resumed = at(
        9,
        "session_meta",
        json!({"id": "th-2", "timestamp": "2026-01-01T05:00:00.000Z", "cwd": "/other"}),
    );
    let log = log(
        &[
            meta(json!("exec")),
            event(1, "user_message", "Summarise the changelog"),
            event(2, "agent_message", "Three fixes, one feature"),
            resumed,
            event(10, "user_message", "And the date?"),
            event(11, "agent_message", "Today"),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Codex, &log),
        expect(
            "th-1",
            T0 + 3_250,
            Some("/w/app"),
            Some("Summarise the changelog"),
            None,
            &[
                ("user", "Summarise the changelog"),
                ("assistant", "Three fixes, one feature"),
                ("user", "And the date?"),
                ("assistant", "Today"),
            ],
        )
    );
}

/// "A sub-agent rollout (`source.subagent` present) has display title
/// `agent_nickname`, else `agent_role` — from `session_meta`, else from
/// `source.subagent.thread_spawn`"; its id stays its own thread id.
#[test]
fn a_spawned_sub_agent_takes_its_nickname_from_the_spawn() {
    let source = json!({"subagent": {"thread_spawn": {"parent_thread_id": "th-0", "depth": 1,
        "agent_nickname": "Scout", "agent_role": "explorer"}}});
    let log = log(
        &[
            meta(source),
            msg(1, "user", &["Map the crate"]),
            msg(2, "assistant", &["Mapped"]),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Codex, &log),
        expect(
            "th-1",
            T0 + 3_250,
            Some("/w/app"),
            Some("Map the crate"),
            Some("Scout"),
            &[("user", "Map the crate"), ("assistant", "Mapped")],
        )
    );
}

/// "title: … else the first `event_msg` `user_message` …, else the first
/// projected user message, cut to 80" — with no `user_message` event, the
/// first projected user message, its injected block skipped (a message of
/// injected context only is no message and no title).
#[test]
fn without_events_the_title_is_the_first_projected_prompt() {
    let log = log(
        &[
            meta(json!("vscode")),
            msg(
                1,
                "user",
                &["<environment_context><cwd>/w</cwd></environment_context>"],
            ),
            msg(
                2,
                "user",
                &["<turn_aborted>x</turn_aborted>", "Rename  every\tmodule"],
            ),
            msg(3, "assistant", &["Renamed"]),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Codex, &log),
        expect(
            "th-1",
            T0 + 3_250,
            Some("/w/app"),
            Some("Rename every module"),
            None,
            &[("user", "Rename  every\tmodule"), ("assistant", "Renamed")],
        )
    );
}
