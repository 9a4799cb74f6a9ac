//! Hand-written expectations of Continue's hardest cases (issue 27), each
//! from agent-logs-files-3.md "Continue" (rule named per test), not pasted
//! from the reader's output.

use std::path::Path;

use serde_json::{json, Value};

use super::Continue;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;

/// `sessions/<id>.json` below `root` with the list `sessions.json`.
fn session(root: &Path, id: &str, doc: &Value, list: &Value) -> MemoryLog {
    let dir = root.join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sessions.json"), list.to_string()).unwrap();
    let bytes = serde_json::to_vec_pretty(doc).unwrap();
    let path = dir.join(format!("{id}.json"));
    std::fs::write(&path, &bytes).unwrap();
    MemoryLog {
        name: format!("{id}.json"),
        ..MemoryLog::new(bytes).modified(7).at(path)
    }
}

fn item(role: &str, content: Value) -> Value {
    json!({"message": {"role": role, "content": content}, "contextItems": []})
}

/// "Compaction: the last entry with a non-empty `conversationSummary` is
/// a compact checkpoint …, shadowing itself and every earlier entry".
/// "Messages": parts of type `text` joined with "\n"; `thinking`,
/// `system`, `tool` never. "Title: `title` … unless … `New Session`; else
/// the first user message cut to 80" (a shadowed one counts, addendum
/// "Titles"). "createdAt: the list entry's `dateCreated` when all decimal
/// digits". "cwd: … a `file://` URI becomes its percent-decoded path". An
/// entry without an object `message` is skipped.
#[test]
fn the_last_summary_shadows_and_a_new_session_title_falls_to_the_prompt() {
    let tmp = tempfile::tempdir().unwrap();
    let mut summarised = item("assistant", json!("Reply two"));
    summarised["conversationSummary"] = json!("They fixed the build");
    let mut earlier = item("assistant", json!("Reply one"));
    earlier["conversationSummary"] = json!("Older summary");
    let doc = json!({"sessionId": "c-1", "title": "New Session",
    "workspaceDirectory": "file:///home/me/My%20App",
    "history": [
        item("system", json!("You are helpful")),
        item("user", json!("Fix   the\nbuild")),
        earlier,
        {"contextItems": []},
        item("user", json!("And the tests")),
        summarised,
        item("thinking", json!("hm")),
        item("user", json!([{"type": "text", "text": "Now"}, {"type": "imageUrl", "imageUrl": {}},
            {"type": "text", "text": "docs"}])),
        item("tool", json!("ran")),
        item("assistant", json!("  ")),
    ]});
    let list = json!([{"sessionId": "c-1", "title": "New Session", "dateCreated": "1767225600250",
        "workspaceDirectory": "file:///home/me/My%20App"}]);
    let log = session(tmp.path(), "c-1", &doc, &list);
    assert_eq!(
        read_surface(&Continue, &log),
        expect(
            "c-1",
            1_767_225_600_250,
            Some("/home/me/My App"),
            Some("Fix the build"),
            None,
            &[
                ("checkpoint", "They fixed the build"),
                ("user", "Now\ndocs")
            ],
        )
    );
}

/// "Title: `title`, trimmed, used as written"; "cwd: … a Windows `/c:/…`
/// keeps its leading `/` dropped"; "createdAt: … else when an RFC 3339
/// string".
#[test]
fn a_named_windows_session_keeps_its_title_and_drive() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = json!({"sessionId": "c-2", "title": "  Port to   Windows ",
        "workspaceDirectory": "file:///c%3A/Users/me/app",
        "history": [item("user", json!("Port it")), item("assistant", json!("Ported"))]});
    let list = json!([{"sessionId": "c-2", "title": "x", "dateCreated": "2026-01-01T00:00:01Z"}]);
    let log = session(tmp.path(), "c-2", &doc, &list);
    assert_eq!(
        read_surface(&Continue, &log),
        expect(
            "c-2",
            1_767_225_601_000,
            Some("c:/Users/me/app"),
            Some("Port to   Windows"),
            None,
            &[("user", "Port it"), ("assistant", "Ported")],
        )
    );
}
