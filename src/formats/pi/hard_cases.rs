//! Hand-written expectations of Pi's hardest cases (issue 27), each from
//! agent-logs-files-3.md "Pi" (rule named per test), not pasted from the
//! reader's output. 2026-01-01T00:00:00Z is 1_767_225_600_000 ms.

use serde_json::{json, Value};

use super::Pi;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;

const T0: u64 = 1_767_225_600_000;

fn log(lines: &[Value], torn_tail: &str) -> MemoryLog {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    MemoryLog::new(text).modified(7)
}

fn header(version: u32, cwd: &str) -> Value {
    json!({"type": "session", "version": version, "id": "pi-1",
        "timestamp": "2026-01-01T00:00:04.125Z", "cwd": cwd})
}

fn entry(id: &str, parent: Option<&str>, message: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-01-01T00:00:09.000Z", "message": message})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn assistant(texts: &[&str]) -> Value {
    let content: Vec<Value> = texts
        .iter()
        .map(|t| json!({"type": "text", "text": t}))
        .collect();
    json!({"role": "assistant", "content": content, "model": "m", "stopReason": "stop"})
}

/// "The live branch": the leaf is the last entry in the file that has an
/// id; a `/tree` branch stays off the path but "count[s] for the title"
/// (the first user message in the file). "Messages": `thinking` and
/// `toolCall` blocks, `toolResult`, `bashExecution`, `custom_message` and
/// `branch_summary` never; text blocks joined with "\n". "An unfinished
/// last line is ignored."
#[test]
fn the_last_entry_is_the_leaf_and_an_abandoned_branch_still_titles() {
    let log = log(
        &[
            header(3, "/w/pi"),
            entry("e1", None, user("Abandoned first idea")),
            entry("e2", Some("e1"), assistant(&["Abandoned reply"])),
            entry("e3", None, user("Second idea")),
            entry(
                "e4",
                Some("e3"),
                json!({"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm"},
                    {"type": "text", "text": "Running it"},
                    {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}},
                    {"type": "text", "text": "now"}]}),
            ),
            entry(
                "e5",
                Some("e4"),
                json!({"role": "toolResult", "toolCallId": "c1",
                "content": [{"type": "text", "text": "ok"}]}),
            ),
            entry(
                "e6",
                Some("e5"),
                json!({"role": "bashExecution", "command": "ls",
                "output": "a b"}),
            ),
            json!({"type": "branch_summary", "id": "e7", "parentId": "e6", "fromId": "e2",
                "summary": "Tried the first idea"}),
            json!({"type": "custom_message", "id": "e8", "parentId": "e7",
                "customType": "x", "content": "injected", "display": true}),
            entry("e9", Some("e8"), assistant(&["Done"])),
        ],
        r#"{"type":"message","id":"e10","parentId":"e9","message":{"role":"user","content":"tor"#,
    );
    assert_eq!(
        read_surface(&Pi, &log),
        expect(
            "pi-1",
            T0 + 4_125,
            Some("/w/pi"),
            Some("Abandoned first idea"),
            None,
            &[
                ("user", "Second idea"),
                ("assistant", "Running it\nnow"),
                ("assistant", "Done"),
            ],
        )
    );
}

/// "Compaction": with `K` the last `compaction` on the path, a checkpoint
/// of `K.summary`, then the path entries before `K` from
/// `K.firstKeptEntryId` on, then those after `K`; earlier compactions
/// never. "Title: the `name`, trimmed, of the last `session_info` …
/// with a non-empty `name`".
#[test]
fn the_last_compaction_keeps_its_tail_and_the_session_name_titles() {
    let log = log(
        &[
            header(3, "/w/pi"),
            entry("e1", None, user("One")),
            entry("e2", Some("e1"), assistant(&["Two"])),
            json!({"type": "compaction", "id": "k1", "parentId": "e2", "summary": "First summary",
                "firstKeptEntryId": "e2", "tokensBefore": 10}),
            entry("e3", Some("k1"), user("Three")),
            entry("e4", Some("e3"), assistant(&["Four"])),
            json!({"type": "session_info", "id": "n1", "parentId": "e4", "name": "  Counting  "}),
            json!({"type": "compaction", "id": "k2", "parentId": "n1", "summary": "Second summary",
                "firstKeptEntryId": "e3", "tokensBefore": 20}),
            entry("e5", Some("k2"), user("Five")),
            json!({"type": "session_info", "id": "n2", "parentId": "e5", "name": ""}),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Pi, &log),
        expect(
            "pi-1",
            T0 + 4_125,
            Some("/w/pi"),
            Some("Counting"),
            None,
            &[
                ("checkpoint", "Second summary"),
                ("user", "Three"),
                ("assistant", "Four"),
                ("user", "Five"),
            ],
        )
    );
}

/// "Versions": v1 entries have no ids; each one's parent is the entry
/// before it, and `firstKeptEntryIndex` counts the header as 0. A blank
/// summary reads `[earlier conversation compacted; no summary recorded]`.
/// "cwd: the header's `cwd` when a non-empty string" (`""`: none). A line
/// that is not JSON is skipped.
#[test]
fn a_version_1_file_chains_by_order_and_a_blank_summary_is_named() {
    let v1 = |message: Value| {
        json!({"type": "message", "timestamp": "2026-01-01T00:00:09.000Z",
        "message": message})
    };
    let mut text: String = [
        json!({"type": "session", "id": "pi-1", "timestamp": "2026-01-01T00:00:04.125Z", "cwd": ""}),
        v1(user("Alpha")),
        v1(assistant(&["Beta"])),
        v1(user("Gamma")),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect();
    text.push_str("not json at all\n");
    text.push_str(
        &json!({"type": "compaction", "summary": "  ", "firstKeptEntryIndex": 3,
            "tokensBefore": 5})
        .to_string(),
    );
    text.push('\n');
    text.push_str(&v1(assistant(&["Delta"])).to_string());
    text.push('\n');
    let log = MemoryLog::new(text).modified(7);
    assert_eq!(
        read_surface(&Pi, &log),
        expect(
            "pi-1",
            T0 + 4_125,
            None,
            Some("Alpha"),
            None,
            &[
                (
                    "checkpoint",
                    "[earlier conversation compacted; no summary recorded]"
                ),
                ("user", "Gamma"),
                ("assistant", "Delta"),
            ],
        )
    );
}

/// "The live branch": "a repeated id: the later line wins, as Pi's
/// `Map.set`"; "stop at … an entry already visited [U]" — a cycle ends
/// the walk instead of looping. Every message on the path is projected;
/// where the later line of a repeated id puts the path out of file order,
/// the messages come in file order (their seq is their line: the reading
/// taken, as the contract's "the path's messages in order" assumes a path
/// in file order). The reader dropped "Closes the loop" and "Leaf" here.
#[test]
fn a_repeated_id_takes_the_later_line_and_a_cycle_ends_the_walk() {
    let log = log(
        &[
            header(3, "/w/pi"),
            entry("e1", Some("e3"), user("Loops back")),
            entry("e2", Some("e1"), assistant(&["First version"])),
            entry("e3", Some("e2"), user("Closes the loop")),
            entry("e2", Some("e1"), assistant(&["Rewritten version"])),
            entry("e4", Some("e3"), assistant(&["Leaf"])),
        ],
        "",
    );
    assert_eq!(
        read_surface(&Pi, &log),
        expect(
            "pi-1",
            T0 + 4_125,
            Some("/w/pi"),
            Some("Loops back"),
            None,
            &[
                ("user", "Loops back"),
                ("user", "Closes the loop"),
                ("assistant", "Rewritten version"),
                ("assistant", "Leaf"),
            ],
        )
    );
}
