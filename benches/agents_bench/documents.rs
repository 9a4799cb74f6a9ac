//! Documents rewritten whole (Cline's `ui_messages.json`, Continue's
//! session files) and Aider's Markdown history, where one file holds many
//! runs and each run is a session.

use serde_json::{json, Value};

use crate::common::{Words, CWDS};
use crate::support;

/// Cline's task ids are `Date.now()` digits: distinct per session.
fn cline_task_id(i: usize) -> String {
    (1_780_000_000_000u64 + i as u64 * 1_000).to_string()
}

/// One Cline task's `ui_messages.json` of about `bytes` (its
/// `tasks/<taskId>/` folder): the task as typed, then per turn the
/// request's start, a tool message with a large text, the reply, and the
/// person's feedback. Returns the folder's path and the array.
pub fn cline_task(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let task = cline_task_id(i);
    let start = 1_780_000_000_000u64 + i as u64 * 1_000;
    let mut items = vec![json!({"ts": start, "type": "say", "say": "text",
        "text": format!("Fix the {} of cline task {i}", rng.words(10))})];
    let mut size = 0;
    let mut j = 0u64;
    while size < bytes {
        j += 1;
        let turn = [
            json!({"ts": start + j * 10, "type": "say", "say": "api_req_started",
                "text": json!({"request": rng.words(20), "tokensIn": 1200, "tokensOut": 300}).to_string()}),
            json!({"ts": start + j * 10 + 1, "type": "say", "say": "tool",
                "text": json!({"tool": "readFile", "path": "src/lib.rs", "content": rng.words(900)}).to_string()}),
            json!({"ts": start + j * 10 + 2, "type": "say", "say": "text", "text": rng.words(60)}),
            json!({"ts": start + j * 10 + 3, "type": "say", "say": "user_feedback",
                "text": format!("Now the {}", rng.words(8))}),
        ];
        for item in turn {
            size += item.to_string().len();
            items.push(item);
        }
    }
    (
        format!("tasks/{task}/ui_messages.json"),
        Value::Array(items).to_string(),
    )
}

/// Cline's task index (`state/taskHistory.json`) for `logs` tasks: each
/// task's first prompt and its cwd.
pub fn cline_history(logs: usize) -> String {
    let items: Vec<Value> = (0..logs)
        .map(|i| {
            json!({"id": cline_task_id(i), "ts": 1_780_000_000_000u64 + i as u64 * 1_000 + 500,
                "task": format!("Cline task {i}"), "tokensIn": 1200, "tokensOut": 300,
                "totalCost": 0.01, "cwdOnTaskInitialization": format!("/home/u/proj{}", i % CWDS)})
        })
        .collect();
    Value::Array(items).to_string()
}

fn continue_id(i: usize) -> String {
    crate::common::uuid(16, i, 0)
}

/// One Continue session file of about `bytes` (`sessions/<id>.json`,
/// pretty-printed as Continue writes it): prompts with their context
/// items, replies; every other session keeps `New Session` (so its
/// title is its first prompt's).
pub fn continue_session(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = continue_id(i);
    let mut history = Vec::new();
    let mut size = 0;
    while size < bytes {
        let turn = [
            json!({"message": {"role": "user", "content": format!("Fix the {} of continue run {i}", rng.words(10))},
                "contextItems": [{"name": "lib.rs", "description": "src/lib.rs", "content": rng.words(900)}]}),
            json!({"message": {"role": "assistant", "content": rng.words(60)}, "contextItems": []}),
        ];
        for item in turn {
            size += item.to_string().len();
            history.push(item);
        }
    }
    let title = if i.is_multiple_of(2) {
        "New Session".to_string()
    } else {
        format!("Continue run {i}: {}", rng.words(4))
    };
    let doc = json!({"sessionId": session, "title": title,
        "workspaceDirectory": format!("file:///home/u/proj{}", i % CWDS),
        "history": history, "mode": "agent"});
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    (format!("{session}.json"), text)
}

/// Continue's `sessions/sessions.json` list for `logs` sessions.
pub fn continue_list(logs: usize) -> String {
    let items: Vec<Value> = (0..logs)
        .map(|i| {
            json!({"sessionId": continue_id(i), "title": format!("Continue run {i}"),
                "dateCreated": (1_780_000_000_000u64 + i as u64 * 3_600_000).to_string(),
                "workspaceDirectory": format!("file:///home/u/proj{}", i % CWDS)})
        })
        .collect();
    Value::Array(items).to_string()
}

/// Runs per Aider history file: `logs` sessions in `logs / RUNS` files.
pub const AIDER_RUNS: usize = 5;

/// One Aider run of about `bytes`, as Aider appends it: its header, then
/// per turn the person's input (`#### ` lines), tool output (`> ` lines)
/// and the reply. Run `k` of file `f` starts at a minute of its own.
pub fn aider_run(rng: &mut support::Lcg, file: usize, k: usize, bytes: usize) -> String {
    let minutes = file * AIDER_RUNS + k;
    let mut out = format!(
        "\n# aider chat started at 2026-11-{:02} {:02}:{:02}:00\n\n",
        1 + (minutes / 1440) % 28,
        (minutes / 60) % 24,
        minutes % 60
    );
    while out.len() < bytes {
        out.push_str(&format!(
            "#### Fix the {} of aider run {file}.{k}  \n\n",
            rng.words(10)
        ));
        out.push_str(&format!(
            "> Added src/lib.rs to the chat: {}  \n",
            rng.words(40)
        ));
        out.push_str(&format!("{}\n\n", rng.words(900)));
        out.push_str("> Tokens: 1.2k sent, 300 received.  \n");
    }
    out
}
