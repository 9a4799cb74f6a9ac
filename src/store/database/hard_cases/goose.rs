//! Hand-written expectations of Goose's hardest cases (issue 27), each
//! from agent-logs-db-3.md "Goose" (rule named per test), not pasted from
//! the reader's output: a `sessions.db` made here with Goose's DDL (the
//! fixture's), read through the store.

use rusqlite::Connection;
use serde_json::{json, Value};

use crate::formats::toolkit::hard_case::{expect, store_surface};
use crate::formats::toolkit::test_support::in_clone;
use crate::model::SessionStore;
use crate::store::database::{by_name, DatabaseStore};

/// 2026-01-01T00:00:00Z in ms.
const T0: u64 = 1_767_225_600_000;

fn db(dir: &std::path::Path) -> Connection {
    let conn = Connection::open(dir.join("sessions.db")).unwrap();
    let schema = std::fs::read_to_string(in_clone("tests/fixtures/goose/schema.sql")).unwrap();
    conn.execute_batch(&schema).unwrap();
    conn
}

fn row(conn: &Connection, id: &str, name: &str, user_set: bool, kind: &str, created: Value) {
    let created: rusqlite::types::Value = match created {
        Value::String(s) => s.into(),
        other => other.as_i64().unwrap().into(),
    };
    conn.execute(
        "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at)
         VALUES (?1, ?2, ?3, ?4, '/w/goose', ?5)",
        rusqlite::params![id, name, user_set, kind, created],
    )
    .unwrap();
}

fn message(
    conn: &Connection,
    session: &str,
    role: &str,
    at: i64,
    content: Value,
    meta: Option<Value>,
) {
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        rusqlite::params![
            session,
            role,
            content.to_string(),
            at,
            meta.map(|m| m.to_string())
        ],
    )
    .unwrap();
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "text": t}])
}

fn store(dir: &std::path::Path) -> DatabaseStore {
    DatabaseStore::open(dir, 0, "goose", vec![by_name("goose").unwrap()])
}

/// "Compaction": the last user message with `userVisible` false,
/// `agentVisible` true and a text is the checkpoint, shadowing every
/// earlier message; the agent-only continuation is not projected, the
/// fresh visible prompt is. "Messages": `ORDER BY created_timestamp, id`
/// (seconds); text items whose `audience` is absent or holds `user`; tool
/// requests never; a `content_json` that is not an array is skipped.
/// "title: `name` … not a name Goose gives at creation (`CLI Session`)
/// … else the first user message". "createdAt: `created_at` — a TEXT
/// `YYYY-MM-DD HH:MM:SS` … UTC". "cwd: `working_dir`".
#[test]
fn the_summary_shadows_and_a_creation_name_is_no_title() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db(dir.path());
    row(
        &conn,
        "20260101_1",
        "CLI Session",
        false,
        "user",
        json!("2026-01-01 00:00:05"),
    );
    let s = "20260101_1";
    message(&conn, s, "user", 100, text("Start the port"), None);
    message(
        &conn,
        s,
        "assistant",
        101,
        text("Ported half"),
        Some(json!({"userVisible": true, "agentVisible": false})),
    );
    message(
        &conn,
        s,
        "user",
        102,
        text("Summary: half ported"),
        Some(json!({"userVisible": false, "agentVisible": true})),
    );
    message(
        &conn,
        s,
        "assistant",
        102,
        text("Continuing from the summary"),
        Some(json!({"userVisible": false, "agentVisible": true})),
    );
    message(&conn, s, "user", 103, text("Start the port"), None);
    // Written later, timed earlier: it sorts before the prompt above.
    message(&conn, s, "assistant", 102, json!({"not": "an array"}), None);
    message(
        &conn,
        s,
        "assistant",
        104,
        json!([
            {"type": "text", "text": "For the model only", "annotations": {"audience": ["assistant"]}},
            {"type": "toolRequest", "id": "t", "toolCall": {}},
            {"type": "text", "text": "Done", "annotations": {"audience": ["user", "assistant"]}},
            {"type": "text", "text": "twice"}
        ]),
        None,
    );
    assert_eq!(
        store_surface(&store(dir.path()), s),
        expect(
            s,
            T0 + 5_000,
            Some("/w/goose"),
            Some("Start the port"),
            None,
            &[
                ("checkpoint", "Summary: half ported"),
                ("user", "Start the port"),
                ("assistant", "Done\ntwice"),
            ],
        )
    );
}

/// "Which rows": every row except `session_type` `hidden`. "Sub-agents:
/// `session_type` `sub_agent` … Display title = `name` trimmed … as
/// written". "title: `name` … used as written when `user_set_name` is
/// true", even a creation name. "createdAt: … an INTEGER: Goose's
/// threshold" (seconds below 10^10).
#[test]
fn hidden_rows_are_no_sessions_and_sub_agents_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db(dir.path());
    row(
        &conn,
        "20260101_2",
        "  Fan-out [0] read the docs ",
        false,
        "sub_agent",
        json!(1_767_225_605),
    );
    message(
        &conn,
        "20260101_2",
        "user",
        100,
        text("Read the docs"),
        None,
    );
    row(
        &conn,
        "20260101_3",
        " New Chat ",
        true,
        "user",
        json!("2026-01-01T00:00:01.5+00:00"),
    );
    message(&conn, "20260101_3", "user", 100, text("Hello"), None);
    row(
        &conn,
        "20260101_4",
        "internal",
        false,
        "hidden",
        json!("2026-01-01 00:00:00"),
    );
    message(&conn, "20260101_4", "user", 100, text("Secret"), None);
    let store = store(dir.path());
    assert!(store.get("20260101_4").is_none());
    assert_eq!(
        store_surface(&store, "20260101_2"),
        expect(
            "20260101_2",
            T0 + 5_000,
            Some("/w/goose"),
            Some("Fan-out [0] read the docs"),
            Some("Fan-out [0] read the docs"),
            &[("user", "Read the docs")],
        )
    );
    assert_eq!(
        store_surface(&store, "20260101_3"),
        expect(
            "20260101_3",
            T0 + 1_500,
            Some("/w/goose"),
            Some("New Chat"),
            None,
            &[("user", "Hello")],
        )
    );
}
