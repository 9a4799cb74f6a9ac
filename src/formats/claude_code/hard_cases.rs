//! Hand-written expectations of Claude Code's hardest cases (issue 27),
//! each from agent-logs.md "Claude Code" (section named per test), not
//! pasted from the reader's output. 2026-01-01T00:00:00Z is
//! 1_767_225_600_000 ms.

use serde_json::{json, Value};

use super::ClaudeCode;
use crate::formats::toolkit::hard_case::{expect, read_surface, Expected};
use crate::formats::toolkit::memory_log::MemoryLog;

const T0: u64 = 1_767_225_600_000;

fn log(lines: &[Value], torn_tail: &str) -> MemoryLog {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    MemoryLog::new(text).modified(7)
}

fn user(uuid: &str, parent: Option<&str>, second: u32, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": format!("2026-01-01T00:00:{second:02}.000Z"), "cwd": "/w/repo",
        "message": {"role": "user", "content": content}})
}

fn assistant(uuid: &str, parent: &str, second: u32, id: &str, content: Value) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": format!("2026-01-01T00:00:{second:02}.000Z"), "cwd": "/elsewhere",
        "message": {"id": id, "role": "assistant", "content": content}})
}

fn said(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

/// "The live branch": a rewind leaves a side branch; only the chain from
/// the last user/assistant line back to the root is the surface. "Lines
/// sharing a `message.id` are one message, placed at the first of them"
/// (their texts joined with "\n", the reading taken where the contract
/// does not say how). "createdAt: the earliest timestamp; cwd: the first
/// cwd" (the assistant lines' other cwd is not the session's).
#[test]
fn a_rewind_keeps_only_the_surviving_branch() {
    let log = log(
        &[
            user("u1", None, 5, json!("Plan the parser")),
            assistant("a1", "u1", 6, "m1", said("Here is a plan")),
            user("u2", Some("a1"), 7, json!("Abandoned question")),
            assistant("a2", "u2", 8, "m2", said("Abandoned answer")),
            user("u3", Some("a1"), 9, json!("Rewound question")),
            assistant("a3", "u3", 10, "m3", said("First part")),
            assistant("a4", "a3", 11, "m3", said("second part")),
            // An older timestamp later in the file still sets createdAt.
            json!({"type": "file-history-snapshot", "messageId": "x",
                "timestamp": "2026-01-01T00:00:01.000Z"}),
        ],
        "",
    );
    assert_eq!(
        read_surface(&ClaudeCode, &log),
        S1.surface(
            T0 + 1_000,
            "Plan the parser",
            &[
                ("user", "Plan the parser"),
                ("assistant", "Here is a plan"),
                ("user", "Rewound question"),
                ("assistant", "First part\nsecond part"),
            ],
        )
    );
}

/// "Compaction": the last `isCompactSummary` user line shadows everything
/// on the branch before it, its `compact_boundary` included, and the chain
/// crosses the boundary to its `logicalParentUuid`. "title: the last
/// `custom-title`, else the last `ai-title`" — used as written, trimmed.
#[test]
fn compaction_shadows_the_branch_and_the_custom_title_wins() {
    let boundary = json!({"type": "system", "subtype": "compact_boundary", "uuid": "b1",
        "parentUuid": null, "logicalParentUuid": "a1", "sessionId": "s1",
        "timestamp": "2026-01-01T00:00:20.000Z", "compactMetadata": {"trigger": "auto"}});
    let mut summary = user(
        "c1",
        Some("b1"),
        21,
        json!("Summary: the parser is planned"),
    );
    summary["isCompactSummary"] = json!(true);
    let log = log(
        &[
            user("u1", None, 5, json!("Plan the parser")),
            assistant("a1", "u1", 6, "m1", said("Here is a plan")),
            json!({"type": "custom-title", "customTitle": "  Old name  ", "sessionId": "s1"}),
            boundary,
            summary,
            json!({"type": "ai-title", "aiTitle": "Parser planning", "sessionId": "s1"}),
            user("u2", Some("c1"), 22, json!("Now write it")),
            assistant("a2", "u2", 23, "m2", said("Written")),
            json!({"type": "custom-title", "customTitle": "  My parser  ", "sessionId": "s1"}),
            json!({"type": "summary", "summary": "Some other session's words"}),
        ],
        "",
    );
    assert_eq!(
        read_surface(&ClaudeCode, &log),
        S1.surface(
            T0 + 5_000,
            "My parser",
            &[
                ("checkpoint", "Summary: the parser is planned"),
                ("user", "Now write it"),
                ("assistant", "Written"),
            ],
        )
    );
}

/// "Messages": `isMeta`, tool-result-only and all-wrapper user lines are
/// not messages; a wrapper *block* is skipped and the rest joined with
/// "\n"; `thinking` and `tool_use` never show. "title: … the first real
/// user prompt … cut to 80" ("Titles cut to 80": the last space within
/// the first 80 scalars, runs of white space collapsed), with mentions
/// read as `@label` (docs/agent-logs.md). "An unfinished last line is
/// ignored" (Stores and formats).
#[test]
fn wrappers_meta_and_tools_are_dropped_and_the_title_is_the_first_real_prompt() {
    let mut meta = user("u0", None, 1, json!("Caveat: injected by the CLI"));
    meta["isMeta"] = json!(true);
    let prompt = "Review   @[cart totals](hydra-session:ImEi) and then\nfix every rounding \
                  bug you find in the checkout module please";
    let log = log(
        &[
            meta,
            user(
                "u1",
                Some("u0"),
                2,
                json!(
                    "<command-name>/clear</command-name>\n<command-message>clear</command-message>"
                ),
            ),
            user(
                "u2",
                Some("u1"),
                3,
                json!([{"type": "text", "text": "<system-reminder>be brief</system-reminder>"},
                       {"type": "text", "text": prompt}]),
            ),
            assistant(
                "a2",
                "u2",
                4,
                "m2",
                json!([{"type": "thinking", "thinking": "hmm"},
                       {"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
                       {"type": "text", "text": "Reading it"}]),
            ),
            user(
                "u3",
                Some("a2"),
                5,
                json!([{"type": "tool_result", "tool_use_id": "t1", "content": "file body"}]),
            ),
            assistant("a3", "u3", 6, "m3", said("Fixed")),
            json!({"type": "some-future-line", "sessionId": "s1"}),
        ],
        r#"{"type":"user","uuid":"u4","parentUuid":"a3","sessionId":"s1","message":{"role":"user","content":"torn"#,
    );
    assert_eq!(
        read_surface(&ClaudeCode, &log),
        S1.surface(
            T0 + 1_000,
            // 80 scalars end inside "module": cut at the space before it.
            "Review @cart totals and then fix every rounding bug you find in the checkout",
            &[
                ("user", prompt),
                ("assistant", "Reading it"),
                ("assistant", "Fixed"),
            ],
        )
    );
}

/// "The live branch": "Lines with `isSidechain: true` in a main
/// transcript are the old inline sub-agents: never on the main surface",
/// even when one is the last line; and "A `parentUuid` that names no line
/// in the file ends the chain there (no error)".
#[test]
fn inline_sidechains_never_show_and_a_missing_parent_ends_the_chain() {
    let mut side = user("s9", Some("a2"), 9, json!("Sidechain task prompt"));
    side["isSidechain"] = json!(true);
    let log = log(
        &[
            user("u1", Some("gone"), 5, json!("Continued from a lost line")),
            assistant("a1", "u1", 6, "m1", said("Sure")),
            user("u2", Some("a1"), 7, json!("Next")),
            assistant("a2", "u2", 8, "m2", said("Done")),
            side,
        ],
        "",
    );
    assert_eq!(
        read_surface(&ClaudeCode, &log),
        S1.surface(
            T0 + 5_000,
            "Continued from a lost line",
            &[
                ("user", "Continued from a lost line"),
                ("assistant", "Sure"),
                ("user", "Next"),
                ("assistant", "Done"),
            ],
        )
    );
}

/// "id: … a sub-agent transcript's id is `<sessionId>/<agentId>`"; read
/// alone (no parent found) it has no display title, and its title is its
/// first prompt.
#[test]
fn a_sub_agent_transcript_is_named_after_its_parent_and_agent() {
    let mut first = user("u1", None, 5, json!("Find the slow query"));
    first["agentId"] = json!("a485154");
    first["isSidechain"] = json!(true);
    let mut reply = assistant("a1", "u1", 6, "m1", said("It is the join"));
    reply["agentId"] = json!("a485154");
    reply["isSidechain"] = json!(true);
    assert_eq!(
        read_surface(&ClaudeCode, &log(&[first, reply], "")),
        expect(
            "s1/a485154",
            T0 + 5_000,
            Some("/w/repo"),
            Some("Find the slow query"),
            None,
            &[
                ("user", "Find the slow query"),
                ("assistant", "It is the join")
            ],
        )
    );
}

/// "The live branch": the chain from the last user/assistant line back
/// to a root by `parentUuid`, wherever each parent is in the file; every
/// line on it is on the surface, a parent written after its child too.
#[test]
fn a_parent_written_after_its_child_is_still_on_the_branch() {
    let log = log(
        &[
            user("u1", Some("a0"), 5, json!("Child first")),
            json!({"type": "assistant", "uuid": "a0", "parentUuid": null, "sessionId": "s1",
                "timestamp": "2026-01-01T00:00:06.000Z",
                "message": {"id": "m0", "role": "assistant", "content": said("Parent later")}}),
            user("u2", Some("u1"), 7, json!("Leaf")),
        ],
        "",
    );
    let surface = read_surface(&ClaudeCode, &log);
    let texts: Vec<&str> = surface.messages.iter().map(|(_, t)| t.as_str()).collect();
    // In file order: a message's seq is its line (the reading taken where
    // the chain and the file disagree, as for Pi).
    assert_eq!(texts, ["Child first", "Parent later", "Leaf"]);
}

/// The session most cases write.
const S1: Expected = Expected::new("s1", Some("/w/repo"));
