//! Hand-written expectations of Copilot CLI's hardest cases (issue 27),
//! each from agent-logs-more.md "GitHub Copilot CLI" (rule named per
//! test), not pasted from the reader's output. 2026-01-01T00:00:00Z is
//! 1_767_225_600_000 ms.

use std::path::Path;

use serde_json::{json, Value};

use super::CopilotCli;
use crate::formats::toolkit::hard_case::{expect, read_surface, Expected};
use crate::formats::toolkit::memory_log::MemoryLog;

const T0: u64 = 1_767_225_600_000;

fn text(lines: &[Value], torn_tail: &str) -> String {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    text
}

fn start(context: Value) -> Value {
    json!({"type": "session.start", "id": "ev0", "timestamp": "2026-01-01T00:00:09.000Z",
        "data": {"sessionId": "cp-1", "startTime": "2026-01-01T00:00:06.750Z",
            "context": context}})
}

fn ev(kind: &str, data: Value) -> Value {
    json!({"type": kind, "id": "e", "timestamp": "2026-01-01T00:01:00.000Z", "data": data})
}

/// `events.jsonl` in `<dir>/cp-1/`, with `workspace.yaml` beside it when
/// given.
fn placed(dir: &Path, lines: &[Value], workspace: Option<&str>) -> MemoryLog {
    let session = dir.join("cp-1");
    std::fs::create_dir_all(&session).unwrap();
    if let Some(yaml) = workspace {
        std::fs::write(session.join("workspace.yaml"), yaml).unwrap();
    }
    let path = session.join("events.jsonl");
    let bytes = text(lines, "");
    std::fs::write(&path, &bytes).unwrap();
    MemoryLog::new(bytes).modified(7).at(path)
}

/// "Messages": a `user.message` whose `source` is another non-empty
/// string than `user`, or an autopilot continuation, is not projected; an
/// `assistant.message` with a `parentToolCallId` is sub-agent output; an
/// event with an `agentId` is not read; ephemeral events are ignored.
/// "Compaction": only `success: true` is a checkpoint. "title: … else the
/// first user message cut to 80". "createdAt: its `data.startTime`";
/// "cwd: line 1's `data.context.cwd`". An unfinished last line is ignored.
#[test]
fn sources_sub_agents_and_failed_compactions_are_left_out() {
    let mut sub = ev("user.message", json!({"content": "Sub-agent prompt"}));
    sub["agentId"] = json!("ag-1");
    let log = MemoryLog::new(text(
        &[
            start(json!({"cwd": "/w/cli", "gitRoot": "/w"})),
            ev(
                "user.message",
                json!({"content": "Use the pdf skill", "source": "skill-pdf"}),
            ),
            ev(
                "user.message",
                json!({"content": "Tidy the   README\nheadings", "source": "user"}),
            ),
            ev("session.title_changed", json!({"title": "Ephemeral"})),
            ev(
                "assistant.message",
                json!({"content": "Inner work", "parentToolCallId": "t1"}),
            ),
            sub,
            ev("assistant.message", json!({"content": "Tidied"})),
            ev(
                "session.compaction_complete",
                json!({"success": false,
                "summaryContent": "Failed summary"}),
            ),
            ev(
                "user.message",
                json!({"content": "continue", "isAutopilotContinuation": true}),
            ),
            ev("assistant.message", json!({"content": "   "})),
        ],
        r#"{"type":"user.message","data":{"content":"tor"#,
    ))
    .modified(7);
    assert_eq!(
        read_surface(&CopilotCli, &log),
        CP1.surface(
            T0 + 6_750,
            "Tidy the README headings",
            &[
                ("user", "Tidy the   README\nheadings"),
                ("assistant", "Tidied")
            ],
        )
    );
}

/// "title: `name` of `workspace.yaml` when not empty — as written when
/// `user_named` is `true`"; "cwd: … else `cwd` of `workspace.yaml`".
/// "Compaction": an empty `summaryContent` reads `[earlier conversation
/// compacted; no summary recorded]`; a `session.context_cleared` shadows
/// every earlier line and adds no checkpoint [U] — read as: it also
/// shadows that checkpoint.
#[test]
fn a_user_named_workspace_titles_and_a_cleared_context_shadows_all() {
    let dir = tempfile::tempdir().unwrap();
    let log = placed(
        dir.path(),
        &[
            start(json!({})),
            ev("user.message", json!({"content": "Before the compaction"})),
            ev(
                "session.compaction_complete",
                json!({"success": true, "summaryContent": " "}),
            ),
            ev("user.message", json!({"content": "Between"})),
            ev("session.context_cleared", json!({})),
            ev("user.message", json!({"content": "After the clear"})),
            ev("assistant.message", json!({"content": "Fresh start"})),
        ],
        Some("id: cp-1\ncwd: /w/from-yaml\nuser_named: true\nname: \"  My   rename  \"\n"),
    );
    assert_eq!(
        read_surface(&CopilotCli, &log),
        expect(
            "cp-1",
            T0 + 6_750,
            Some("/w/from-yaml"),
            Some("My   rename"),
            None,
            &[("user", "After the clear"), ("assistant", "Fresh start")],
        )
    );
}

/// "Compaction": a successful `session.compaction_complete` is a
/// checkpoint with its `summaryContent`, shadowing every earlier line.
/// "title: `name` … else cut to 80" when not `user_named`.
#[test]
fn a_generated_workspace_name_is_cut_and_the_compaction_shadows() {
    let dir = tempfile::tempdir().unwrap();
    let name = "Investigate why the nightly deploy job keeps failing on the second \
                stage after the cache";
    let log = placed(
        dir.path(),
        &[
            start(json!({"cwd": "/w/cli"})),
            ev("user.message", json!({"content": "Old ask"})),
            ev("assistant.message", json!({"content": "Old answer"})),
            ev(
                "session.compaction_complete",
                json!({"success": true,
                "summaryContent": "The deploy fails on stage two", "tokenLimit": 128000}),
            ),
            ev("user.message", json!({"content": "Go on"})),
        ],
        Some(&format!("user_named: false\nname: '{name}'\n")),
    );
    assert_eq!(
        read_surface(&CopilotCli, &log),
        CP1.surface(
            T0 + 6_750,
            "Investigate why the nightly deploy job keeps failing on the second stage after",
            &[
                ("checkpoint", "The deploy fails on stage two"),
                ("user", "Go on"),
            ],
        )
    );
}

/// The session of [`start`] in `/w/cli`.
const CP1: Expected = Expected::new("cp-1", Some("/w/cli"));
