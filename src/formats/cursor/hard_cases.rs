//! Hand-written expectations of Cursor's hardest cases (issue 27), each
//! from agent-logs-more.md "Cursor (agent transcripts)" (rule named per
//! test), not pasted from the reader's output.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::Cursor;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;

/// 2026-01-01T00:00:00Z in ms.
const T0: u64 = 1_767_225_600_000;

fn write(path: &Path, lines: &[Value], torn_tail: &str) -> MemoryLog {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    std::fs::write(path, &text).unwrap();
    MemoryLog::new(text).modified(7).at(path)
}

fn user(content: Value) -> Value {
    json!({"role": "user", "message": {"content": content}})
}

fn assistant(content: Value) -> Value {
    json!({"role": "assistant", "message": {"content": content}})
}

/// A project folder `<tmp>/my-proj` and the slug Cursor names it by.
fn project(tmp: &Path) -> (PathBuf, String) {
    let project = tmp.join("my-proj");
    std::fs::create_dir_all(&project).unwrap();
    let slug = project
        .to_str()
        .unwrap()
        .trim_start_matches('/')
        .replace('/', "-");
    (project, slug)
}

/// "Messages": with `<user_query>` present, only its contents (trimmed);
/// the assistant lines of one run are one message joined with "\n",
/// `[REDACTED]`, `thinking`, `tool_use` left out; a user line of only
/// `tool_result` blocks is not a message and "ends no run"; `turn_ended`
/// ends one. "createdAt: the first `<timestamp>` … to the minute in that
/// offset". "cwd: the slug … decoded against the real filesystem". "id:
/// the file name". "title: the first user message cut to 80". A line
/// with another `type` is ignored, another object skipped; an unfinished
/// last line is ignored.
#[test]
fn queries_runs_and_the_timestamp_make_the_surface() {
    let tmp = tempfile::Builder::new().prefix("cur").tempdir().unwrap();
    let (project, slug) = project(tmp.path());
    let path = tmp
        .path()
        .join("projects")
        .join(&slug)
        .join("agent-transcripts/t-1/t-1.jsonl");
    let first = "<timestamp>Thursday, Jan 1, 2026, 9:15 AM (UTC+2)</timestamp>\n\
                 <user_query>\n  Rename the crate  \n</user_query>";
    let log = write(
        &path,
        &[
            user(json!([{"type": "text", "text": first}])),
            assistant(json!([{"type": "text", "text": "[REDACTED]"},
                             {"type": "thinking", "thinking": "hm"},
                             {"type": "text", "text": "Renaming"}])),
            assistant(json!([{"type": "tool_use", "name": "Shell", "input": {}}])),
            user(json!([{"type": "tool_result", "content": "ok"}])),
            assistant(json!("done")),
            json!({"type": "turn_ended", "status": "success"}),
            assistant(json!("Anything else?")),
            json!({"type": "future_line"}),
            json!({"no": "role"}),
            user(json!("<user_query>a</user_query> between <user_query>b")),
        ],
        r#"{"role":"assistant","message":{"content":"tor"#,
    );
    assert_eq!(
        read_surface(&Cursor, &log),
        expect(
            "t-1",
            T0 + 7 * 3_600_000 + 15 * 60_000,
            Some(project.to_str().unwrap()),
            Some("Rename the crate"),
            None,
            &[
                ("user", "Rename the crate"),
                ("assistant", "Renaming\ndone"),
                ("assistant", "Anything else?"),
                ("user", "a\nb"),
            ],
        )
    );
}

/// "id: … in a `subagents` directory, `<parentId>/<childId>`";
/// "Sub-agents: display title = the first non-empty line … of the
/// child's first user message". Without `<user_query>`, blocks entirely of
/// `timestamp`, `user_info`, `system_reminder` wrappers are dropped. No
/// `<timestamp>` in the first message: the file's modification time. No
/// `agent-transcripts` slug that decodes: no cwd.
#[test]
fn a_sub_agent_is_named_by_its_parent_and_its_first_line() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp
        .path()
        .join("projects/no-such-place-anywhere/agent-transcripts/t-1/subagents/c-9.jsonl");
    let log = write(
        &path,
        &[
            user(
                json!([{"type": "text", "text": "<system_reminder>plan mode</system_reminder>"},
                        {"type": "text", "text": "\n  Explore the tests\nthen report back"}]),
            ),
            assistant(json!([{"type": "text", "text": "Found 12"}])),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Cursor, &log),
        expect(
            "t-1/c-9",
            7,
            None,
            Some("Explore the tests then report back"),
            Some("Explore the tests"),
            &[
                ("user", "\n  Explore the tests\nthen report back"),
                ("assistant", "Found 12"),
            ],
        )
    );
}

/// "createdAt: … h 1–12, 12 AM being 0:00 …, to the minute in that
/// offset" (`UTC-3:30`: 3 h 30 min behind UTC, so 00:05 there is 03:35
/// UTC); "a day valid for the month" — `Feb 30` is not, and the first
/// message's stamp is the only one read: the file's modification time.
/// Older builds' `<id>.jsonl` directly in `agent-transcripts` has the
/// file name as id too.
#[test]
fn midnight_offsets_and_impossible_days_in_the_timestamp() {
    let tmp = tempfile::tempdir().unwrap();
    let stamp = |s: &str| {
        user(json!([{"type": "text",
            "text": format!("<timestamp>{s}</timestamp>\n<user_query>Go</user_query>")}]))
    };
    let at = |name: &str, first: &str| {
        let path = tmp
            .path()
            .join(format!("projects/x/agent-transcripts/{name}.jsonl"));
        write(
            &path,
            &[stamp(first), stamp("Friday, Jan 2, 2026, 1:00 PM (UTC)")],
            "",
        )
    };
    let midnight = at("m-1", "Thursday, Jan 1, 2026, 12:05 AM (UTC-3:30)");
    assert_eq!(
        read_surface(&Cursor, &midnight),
        expect(
            "m-1",
            T0 + 3 * 3_600_000 + 35 * 60_000,
            None,
            Some("Go"),
            None,
            &[("user", "Go"), ("user", "Go")],
        )
    );
    let impossible = at("m-2", "Monday, Feb 30, 2026, 9:15 AM (UTC)");
    assert_eq!(
        read_surface(&Cursor, &impossible),
        expect(
            "m-2",
            7,
            None,
            Some("Go"),
            None,
            &[("user", "Go"), ("user", "Go")]
        )
    );
}
