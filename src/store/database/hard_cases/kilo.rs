//! Hand-written expectations of Kilo Code's hardest cases (issue 27), from
//! agent-logs-db-3.md "Kilo Code" ("`agent-logs-more.md` 'OpenCode' holds
//! for format `kilo` word for word", with the differences named there),
//! not pasted from the reader's output: a `kilo.db` made here.

use rusqlite::Connection;
use serde_json::{json, Value};

use crate::formats::toolkit::hard_case::{expect, store_surface};
use crate::model::SessionStore;
use crate::store::database::{by_name, DatabaseStore};

const TABLES: &str = "CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL);
    CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, directory text,
        title text, revert text, time_created integer, time_updated integer);
    CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer,
        time_updated integer, data text);
    CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text,
        time_created integer, time_updated integer, data text);
    INSERT INTO project VALUES ('p', '/');";

fn db(path: &std::path::Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(TABLES).unwrap();
    conn
}

fn session(
    conn: &Connection,
    id: &str,
    parent: Option<&str>,
    dir: &str,
    title: &str,
    revert: Option<Value>,
) {
    conn.execute(
        "INSERT INTO session VALUES (?1, 'p', ?2, ?3, ?4, ?5, 1767225600000, 1)",
        rusqlite::params![id, parent, dir, title, revert.map(|r| r.to_string())],
    )
    .unwrap();
}

fn message(conn: &Connection, session: &str, id: &str, role: &str, text: &str) {
    conn.execute(
        "INSERT INTO message VALUES (?1, ?2, 1, 1, ?3)",
        rusqlite::params![id, session, json!({"role": role}).to_string()],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO part VALUES (?1, ?2, ?3, 1, 1, ?4)",
        rusqlite::params![
            format!("prt_{id}"),
            id,
            session,
            json!({"type": "text", "text": text}).to_string()
        ],
    )
    .unwrap();
}

/// OpenCode's "Revert" and "Sub-agents" on `kilo.db`: the reverted
/// message and later ones are not projected; a child keeps its id and is
/// labelled by its title; a default title falls to the first prompt (a
/// reverted one counts). "cwd: `directory` when not empty, else the
/// project's `worktree` unless it is `/`": here none. Kilo's differences:
/// "only `kilo.db`, never `opencode*.db`" — a session there is not Kilo's.
#[test]
fn opencodes_rules_hold_on_kilos_database_only() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db(&dir.path().join("kilo.db"));
    session(
        &conn,
        "ses_1",
        None,
        "",
        "New session - 2026-01-01T00:00:00.000Z",
        Some(json!({"messageID": "msg_2", "partID": "prt_msg_2"})),
    );
    message(&conn, "ses_1", "msg_1", "user", "Keep this");
    message(&conn, "ses_1", "msg_2", "user", "Undo this");
    session(
        &conn,
        "ses_2",
        Some("ses_1"),
        "/w/kilo",
        "Survey (@explore subagent)",
        None,
    );
    message(&conn, "ses_2", "msg_3", "user", "Survey it");
    let other = db(&dir.path().join("opencode.db"));
    session(&other, "ses_9", None, "/w", "Not Kilo's", None);
    message(&other, "ses_9", "msg_9", "user", "Elsewhere");
    let store = DatabaseStore::open(dir.path(), 0, "kilo", vec![by_name("kilo").unwrap()]);
    assert!(store.get("ses_9").is_none());
    assert_eq!(
        store_surface(&store, "ses_1"),
        expect(
            "ses_1",
            1_767_225_600_000,
            None,
            Some("Keep this"),
            None,
            &[("user", "Keep this")],
        )
    );
    assert_eq!(
        store_surface(&store, "ses_2"),
        expect(
            "ses_2",
            1_767_225_600_000,
            Some("/w/kilo"),
            Some("Survey (@explore subagent)"),
            Some("Survey (@explore subagent)"),
            &[("user", "Survey it")],
        )
    );
}
