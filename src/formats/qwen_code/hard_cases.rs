//! Hand-written expectations of Qwen Code's hardest cases (issue 27), each
//! from agent-logs-files-3.md "Qwen Code" (rule named per test), not
//! pasted from the reader's output. 2026-01-01T00:00:00Z is
//! 1_767_225_600_000 ms.

use serde_json::{json, Value};

use super::QwenCode;
use crate::formats::toolkit::hard_case::{read_surface, Expected};
use crate::formats::toolkit::memory_log::MemoryLog;

const T0: u64 = 1_767_225_600_000;

fn log(lines: &[Value], torn_tail: &str) -> MemoryLog {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    MemoryLog::new(text).modified(7)
}

fn record(uuid: &str, parent: Option<&str>, kind: &str, s: u32, parts: Value) -> Value {
    let role = if kind == "assistant" { "model" } else { "user" };
    json!({"uuid": uuid, "parentUuid": parent, "sessionId": "qw-1", "type": kind,
        "timestamp": format!("2026-01-01T00:00:{s:02}.000Z"), "cwd": "/w/qwen",
        "version": "0.1", "message": {"role": role, "parts": parts}})
}

fn said(text: &str) -> Value {
    json!([{"text": text}])
}

/// "The live branch": the leaf is the uuid of the last record in the file
/// of any type; records sharing a uuid are one message, parts
/// concatenated in file order. "Rewind": the rewound records are a dead
/// branch. "Messages": `thought` parts, `tool_result`, `system`,
/// `isSidechain` and `notification` user records never. "Title: … the
/// first user message in the file" — a rewound one counts. "createdAt:
/// line 1's `timestamp`", even when a later one is earlier. A line with
/// no string `uuid` is skipped; an unfinished last line is ignored.
#[test]
fn the_last_record_is_the_leaf_and_streamed_records_are_one_message() {
    let mut side = record("sc", Some("a1"), "user", 6, said("Sidechain prompt"));
    side["isSidechain"] = json!(true);
    let mut notice = record("n1", Some("a1"), "user", 6, said("Background job done"));
    notice["subtype"] = json!("notification");
    let log = log(
        &[
            record("u1", None, "user", 5, said("Rewound prompt")),
            record("a0", Some("u1"), "assistant", 6, said("Rewound reply")),
            record("u2", None, "user", 1, said("Kept prompt")),
            record(
                "a1",
                Some("u2"),
                "assistant",
                7,
                json!([{"text": "Let me think", "thought": true}, {"text": "Stream"}]),
            ),
            record(
                "a1",
                Some("ignored-later-parent"),
                "assistant",
                8,
                said("ed answer"),
            ),
            json!({"type": "user", "no": "uuid"}),
            side,
            record(
                "t1",
                Some("a1"),
                "tool_result",
                9,
                json!([{"functionResponse": {}}]),
            ),
            json!({"uuid": "r1", "parentUuid": "t1", "sessionId": "qw-1", "type": "system",
                "subtype": "rewind", "timestamp": "2026-01-01T00:00:10.000Z",
                "systemPayload": {"truncatedCount": 2}}),
            notice,
            record("u3", Some("t1"), "user", 11, said("Thanks")),
            json!({"uuid": "s9", "parentUuid": "u3", "sessionId": "qw-1", "type": "system",
                "subtype": "ui_telemetry", "timestamp": "2026-01-01T00:00:12.000Z"}),
        ],
        r#"{"uuid":"u4","parentUuid":"s9","type":"user","message":{"role":"user","parts":[{"text":"tor"#,
    );
    assert_eq!(
        read_surface(&QwenCode, &log),
        QW1.surface(
            T0 + 5_000,
            "Rewound prompt",
            &[
                ("user", "Kept prompt"),
                ("assistant", "Streamed answer"),
                ("user", "Thanks"),
            ],
        )
    );
}

/// "Compaction": the last `chat_compression` on the chain is a
/// checkpoint with the first non-empty `Content` of `compressedHistory`;
/// the rest follow it (`model` → assistant), except a `model` Content
/// right after the summary that is exactly `Got it. Thanks for the
/// additional context!`; then the chain after the record. "Title: the
/// last `custom_title` with a non-empty `customTitle`, trimmed".
#[test]
fn compression_replaces_the_chain_and_the_last_custom_title_wins() {
    let compression = json!({"uuid": "c1", "parentUuid": "a1", "sessionId": "qw-1",
    "type": "system", "subtype": "chat_compression",
    "timestamp": "2026-01-01T00:00:20.000Z", "cwd": "/w/qwen",
    "systemPayload": {"info": {}, "compressedHistory": [
        {"role": "user", "parts": [{"text": "  "}]},
        {"role": "user", "parts": [{"text": "<state_snapshot>done: a</state_snapshot>"}]},
        {"role": "model", "parts": [{"text": "Got it. Thanks for the additional context!"}]},
        {"role": "user", "parts": [{"text": "Kept ask"}]},
        {"role": "model", "parts": [{"text": "Kept answer"}]}
    ]}});
    let title = |uuid: &str, parent: &str, name: &str| {
        json!({"uuid": uuid, "parentUuid": parent, "sessionId": "qw-1", "type": "system",
            "subtype": "custom_title", "timestamp": "2026-01-01T00:00:30.000Z",
            "systemPayload": {"customTitle": name, "titleSource": "auto"}})
    };
    let log = log(
        &[
            record("u1", None, "user", 5, said("Old ask")),
            record("a1", Some("u1"), "assistant", 6, said("Old answer")),
            compression,
            title("t1", "c1", " Snapshot work "),
            record("u2", Some("t1"), "user", 21, said("Next")),
            title("t2", "u2", ""),
        ],
        "",
    );
    assert_eq!(
        read_surface(&QwenCode, &log),
        QW1.surface(
            T0 + 5_000,
            "Snapshot work",
            &[
                ("checkpoint", "<state_snapshot>done: a</state_snapshot>"),
                ("user", "Kept ask"),
                ("assistant", "Kept answer"),
                ("user", "Next"),
            ],
        )
    );
}

/// "The live branch": "stop at `null`, an unknown uuid or a uuid already
/// visited" (a cycle ends the walk); the walk follows "the `parentUuid`
/// of the first record carrying each uuid". "createdAt: line 1's
/// `timestamp`" and "cwd: the first non-empty string `cwd`" — line 1's is
/// empty here. "Sub-agents: … A session with a `parent_session` record
/// keeps its own id and has no display title".
#[test]
fn a_cycle_ends_the_chain_and_the_first_non_empty_cwd_counts() {
    let mut first = record("u1", Some("a1"), "user", 3, said("Circular start"));
    first["cwd"] = json!("");
    let log = log(
        &[
            first,
            json!({"uuid": "p1", "parentUuid": "u1", "sessionId": "qw-1", "type": "system",
                "subtype": "parent_session", "timestamp": "2026-01-01T00:00:04.000Z",
                "systemPayload": {"parentSessionId": "qw-0"}}),
            record("a1", Some("p1"), "assistant", 5, said("Circular reply")),
        ],
        "",
    );
    assert_eq!(
        read_surface(&QwenCode, &log),
        QW1.surface(
            T0 + 3_000,
            "Circular start",
            &[("user", "Circular start"), ("assistant", "Circular reply")],
        )
    );
}

/// "The live branch": the chain is walked by `parentUuid`, wherever the
/// parent is in the file; every record on it is projected. A parent
/// written after its child (a re-rooted chain) is still on it.
#[test]
fn a_parent_written_after_its_child_is_still_on_the_chain() {
    let log = log(
        &[
            record("u1", Some("a0"), "user", 5, said("Child first")),
            record("a0", None, "assistant", 6, said("Parent later")),
            record("u2", Some("u1"), "user", 7, said("Leaf")),
        ],
        "",
    );
    let surface = read_surface(&QwenCode, &log);
    let texts: Vec<&str> = surface.messages.iter().map(|(_, t)| t.as_str()).collect();
    // In file order: a message's seq is its line (the reading taken where
    // the chain and the file disagree, as for Pi).
    assert_eq!(texts, ["Child first", "Parent later", "Leaf"]);
}

/// The session every case writes.
const QW1: Expected = Expected::new("qw-1", Some("/w/qwen"));
