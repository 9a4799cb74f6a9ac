//! Hand-written expectations of Crush's hardest cases (issue 27), each
//! from agent-logs-db-3.md "Crush" (rule named per test), not pasted from
//! the reader's output: a `crush.db` made here with Crush's DDL (the
//! fixture's), read through the store.

use rusqlite::Connection;
use serde_json::{json, Value};

use crate::formats::toolkit::hard_case::{expect, store_surface};
use crate::formats::toolkit::test_support::in_clone;
use crate::model::SessionStore;
use crate::store::database::{by_name, DatabaseStore};

/// 2026-01-01T00:00:00Z in seconds, as Crush writes times.
const T0_S: i64 = 1_767_225_600;

fn db(dir: &std::path::Path) -> Connection {
    let conn = Connection::open(dir.join("crush.db")).unwrap();
    let schema = std::fs::read_to_string(in_clone("tests/fixtures/crush/schema.sql")).unwrap();
    conn.execute_batch(&schema).unwrap();
    conn
}

fn session(conn: &Connection, id: &str, parent: Option<&str>, title: &str, summary: Option<&str>) {
    conn.execute(
        "INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at, summary_message_id)
         VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
        rusqlite::params![id, parent, title, T0_S + 3, summary],
    )
    .unwrap();
}

fn message(
    conn: &Connection,
    session: &str,
    id: &str,
    role: &str,
    at: i64,
    parts: Value,
    summary: bool,
) {
    conn.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at, is_summary_message)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6)",
        rusqlite::params![id, session, role, parts.to_string(), at, summary],
    )
    .unwrap();
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "data": {"text": t}}, {"type": "finish", "data": {"reason": "end_turn"}}])
}

fn store(dir: &std::path::Path) -> DatabaseStore {
    DatabaseStore::open(dir, 0, "crush", vec![by_name("crush").unwrap()])
}

/// "Compaction": the message `summary_message_id` names is the checkpoint
/// with its text, shadowing every message before it in `created_at`,
/// `rowid` order; another summary message is not projected. "Messages":
/// the first `text` part's text; `tool` and `system` never; reasoning and
/// tool calls never; `parts` that is not an array is skipped. "Times are
/// seconds". "title: … not one of Crush's placeholders `New Session` …;
/// else the first user message cut to 80". No `projects.json`: no cwd.
#[test]
fn the_named_summary_is_the_checkpoint_and_a_placeholder_is_no_title() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db(dir.path());
    session(&conn, "cr-1", None, "New Session", Some("m4"));
    message(
        &conn,
        "cr-1",
        "m1",
        "user",
        T0_S + 10,
        text("Trace   the\npanic"),
        false,
    );
    message(
        &conn,
        "cr-1",
        "m2",
        "assistant",
        T0_S + 11,
        json!([
            {"type": "reasoning", "data": {"thinking": "hm"}},
            {"type": "tool_call", "data": {"id": "c", "name": "grep", "input": "{}"}},
            {"type": "text", "data": {"text": "Found it"}},
            {"type": "text", "data": {"text": "second text part"}}
        ]),
        false,
    );
    message(
        &conn,
        "cr-1",
        "m3",
        "tool",
        T0_S + 12,
        json!([{"type": "tool_result",
        "data": {"tool_call_id": "c", "content": "x"}}]),
        false,
    );
    message(
        &conn,
        "cr-1",
        "m4",
        "assistant",
        T0_S + 13,
        text("Summary: the panic is in parse"),
        true,
    );
    message(
        &conn,
        "cr-1",
        "m5",
        "assistant",
        T0_S + 14,
        text("A failed summary"),
        true,
    );
    message(
        &conn,
        "cr-1",
        "m6",
        "system",
        T0_S + 15,
        text("system note"),
        false,
    );
    message(
        &conn,
        "cr-1",
        "m7",
        "user",
        T0_S + 16,
        json!("not an array"),
        false,
    );
    message(
        &conn,
        "cr-1",
        "m8",
        "user",
        T0_S + 17,
        text("Fix it"),
        false,
    );
    assert_eq!(
        store_surface(&store(dir.path()), "cr-1"),
        expect(
            "cr-1",
            (T0_S as u64 + 3) * 1000,
            None,
            Some("Trace the panic"),
            None,
            &[
                ("checkpoint", "Summary: the panic is in parse"),
                ("user", "Fix it"),
            ],
        )
    );
}

/// "Which rows: all, except a title-generation row — `id` starting
/// `title-` with a non-empty `parent_session_id`". "Sub-agents: … Display
/// title = `title` unless empty or a placeholder (`New Agent Session`);
/// else the first non-empty line, trimmed, of its first user message";
/// ids `<message id>$$<tool call id>` kept as they are.
#[test]
fn a_sub_agent_is_named_by_its_prompt_and_title_rows_are_none() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db(dir.path());
    session(&conn, "cr-1", None, "Parent work", None);
    message(&conn, "cr-1", "m1", "user", T0_S + 10, text("Go"), false);
    let child = "m2$$call_9";
    session(&conn, child, Some("cr-1"), "New Agent Session", None);
    message(
        &conn,
        child,
        "c1",
        "user",
        T0_S + 20,
        text("\n  Find the config\nand report"),
        false,
    );
    message(
        &conn,
        child,
        "c2",
        "assistant",
        T0_S + 21,
        text("In crush.json"),
        false,
    );
    session(&conn, "title-cr-1", Some("cr-1"), "Untitled Session", None);
    message(
        &conn,
        "title-cr-1",
        "t1",
        "user",
        T0_S + 30,
        text("Name this"),
        false,
    );
    let store = store(dir.path());
    assert!(store.get("title-cr-1").is_none());
    assert_eq!(
        store_surface(&store, child),
        expect(
            child,
            (T0_S as u64 + 3) * 1000,
            None,
            Some("Find the config and report"),
            Some("Find the config"),
            &[
                ("user", "\n  Find the config\nand report"),
                ("assistant", "In crush.json")
            ],
        )
    );
}
