//! Hand-written expectations of the Cline family's hardest cases (issue
//! 27), each from agent-logs-files-3.md "Cline, Roo Code, Kilo Code
//! (legacy)" (rule named per test), not pasted from the reader's output.

use std::path::Path;

use serde_json::{json, Value};

use super::Cline;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;

/// `tasks/<id>/ui_messages.json` below `root`, written there and read.
fn task(root: &Path, id: &str, elements: &Value, history_item: Option<&Value>) -> MemoryLog {
    let dir = root.join("tasks").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(item) = history_item {
        std::fs::write(dir.join("history_item.json"), item.to_string()).unwrap();
    }
    let bytes = serde_json::to_vec(elements).unwrap();
    let path = dir.join("ui_messages.json");
    std::fs::write(&path, &bytes).unwrap();
    MemoryLog::new(bytes).modified(7).at(path)
}

fn say(ts: u64, say: &str, text: &str) -> Value {
    json!({"ts": ts, "type": "say", "say": say, "text": text})
}

fn ask(ts: u64, ask: &str, text: &str) -> Value {
    json!({"ts": ts, "type": "ask", "ask": ask, "text": text})
}

/// "Messages": the first element `say task` is the user's; `say text` and
/// `say completion_result` the assistant's; `user_feedback` the user's;
/// `ask followup` the assistant's `question` from its JSON `text`;
/// `partial: true` ignored; `api_req_started`, `tool`, `reasoning`,
/// `ask completion_result` never. "createdAt: the `ts` of the first
/// element … with an integer `ts`". "cwd: the HistoryItem's
/// `cwdOnTaskInitialization`" from `history_item.json` (its `id` equal to
/// the task's). "Title: the HistoryItem's `task` cut to 80". An element
/// that is not an object with a string `type` is skipped.
#[test]
fn the_ui_list_is_what_the_person_saw() {
    let tmp = tempfile::tempdir().unwrap();
    let mut partial = say(1_767_225_600_006, "text", "Half a repl");
    partial["partial"] = json!(true);
    let elements = json!([
        say(1_767_225_600_001, "task", "Add   a --json flag\nto the CLI"),
        say(1_767_225_600_002, "api_req_started", "{\"request\":\"…\"}"),
        json!({"ts": 3, "type": 7}),
        say(1_767_225_600_003, "reasoning", "Looking at main.rs"),
        say(1_767_225_600_004, "text", "I will add it"),
        ask(
            1_767_225_600_005,
            "followup",
            "{\"question\":\"Which output schema?\",\"options\":[]}"
        ),
        partial,
        say(1_767_225_600_007, "user_feedback", "The one in docs/"),
        say(
            1_767_225_600_008,
            "tool",
            "{\"tool\":\"editedExistingFile\"}"
        ),
        say(1_767_225_600_009, "completion_result", "Added --json"),
        ask(1_767_225_600_010, "completion_result", ""),
    ]);
    let item = json!({"id": "1767225600000", "ts": 1_767_225_600_010_u64,
        "task": "Add   a --json flag\nto the CLI", "cwdOnTaskInitialization": "/w/cli"});
    let log = task(tmp.path(), "1767225600000", &elements, Some(&item));
    assert_eq!(
        read_surface(&Cline, &log),
        expect(
            "1767225600000",
            1_767_225_600_001,
            Some("/w/cli"),
            Some("Add a --json flag to the CLI"),
            None,
            &[
                ("user", "Add   a --json flag\nto the CLI"),
                ("assistant", "I will add it"),
                ("assistant", "Which output schema?"),
                ("user", "The one in docs/"),
                ("assistant", "Added --json"),
            ],
        )
    );
}

/// "Compaction": the last `say condense_context` with a non-empty
/// `contextCondense.summary` (Roo) is a checkpoint shadowing every earlier
/// element. "Its HistoryItem: … else the entry of `tasks/_index.json`";
/// "cwd: … else its `workspace`". `ask plan_mode_respond` is the
/// assistant's `response`; a `followup` whose text is not JSON is kept
/// raw. "Title: … `task` … when not empty after trimming; else the first
/// user message cut to 80."
#[test]
fn a_condensed_roo_task_reads_its_index_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let id = "0b1e6c3a-1111-4aaa-8bbb-222233334444";
    std::fs::create_dir_all(tmp.path().join("tasks")).unwrap();
    std::fs::write(
        tmp.path().join("tasks/_index.json"),
        json!({"version": 1, "entries": [{"id": id, "ts": 9, "task": "  ",
            "workspace": "/w/roo", "number": 1}]})
        .to_string(),
    )
    .unwrap();
    let condense = |ts: u64, summary: &str| {
        json!({"ts": ts, "type": "say", "say": "condense_context",
            "contextCondense": {"summary": summary, "cost": 0}})
    };
    let elements = json!([
        say(1_767_225_600_100, "text", "Plan the migration"),
        say(1_767_225_600_101, "text", "Step one"),
        condense(1_767_225_600_102, "Summary: step one planned"),
        ask(
            1_767_225_600_103,
            "plan_mode_respond",
            "{\"response\":\"Step two next\"}"
        ),
        ask(1_767_225_600_104, "followup", "Proceed?"),
        condense(1_767_225_600_105, ""),
    ]);
    let log = task(tmp.path(), id, &elements, None);
    assert_eq!(
        read_surface(&Cline, &log),
        expect(
            id,
            1_767_225_600_100,
            Some("/w/roo"),
            Some("Plan the migration"),
            None,
            &[
                ("checkpoint", "Summary: step one planned"),
                ("assistant", "Step two next"),
                ("assistant", "Proceed?"),
            ],
        )
    );
}

/// "Messages": only "the **first** element of the array, when it is `say
/// text` or `say task`, is role `user`" — a task whose first element is
/// something else has no typed task, and every `say text` is the
/// assistant's. "Its HistoryItem: … else none": no cwd, and "Title: …
/// else the first user message" — here a `user_feedback`.
#[test]
fn without_a_first_task_element_every_text_is_the_assistants() {
    let tmp = tempfile::tempdir().unwrap();
    let elements = json!([
        say(1_767_225_600_200, "api_req_started", "{}"),
        say(1_767_225_600_201, "text", "Working on it"),
        say(1_767_225_600_202, "user_feedback", "Faster please"),
        say(1_767_225_600_203, "text", "Done"),
    ]);
    let log = task(tmp.path(), "1767225600200", &elements, None);
    assert_eq!(
        read_surface(&Cline, &log),
        expect(
            "1767225600200",
            1_767_225_600_200,
            None,
            Some("Faster please"),
            None,
            &[
                ("assistant", "Working on it"),
                ("user", "Faster please"),
                ("assistant", "Done"),
            ],
        )
    );
}
