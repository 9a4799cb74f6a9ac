//! Hand-written expectations of OpenCode's hardest cases (issue 27), each
//! from agent-logs-more.md "OpenCode" (rule named per test), not pasted
//! from the reader's output: a database made here, read through the
//! store, since a session is rows, not a file.

use rusqlite::Connection;
use serde_json::{json, Value};

use crate::formats::toolkit::hard_case::{expect, store_surface};
use crate::store::opencode::OpencodeStore;

const TABLES: &str = "CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL);
    CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, directory text,
        title text, revert text, agent text, time_created integer, time_updated integer);
    CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer,
        time_updated integer, data text);
    CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text,
        time_created integer, time_updated integer, data text);
    INSERT INTO project VALUES ('p', '/w/worktree');";

struct Db {
    conn: Connection,
}

impl Db {
    fn new(dir: &std::path::Path) -> Self {
        let conn = Connection::open(dir.join("opencode.db")).unwrap();
        conn.execute_batch(TABLES).unwrap();
        Db { conn }
    }

    fn session(
        &self,
        id: &str,
        parent: Option<&str>,
        dir: &str,
        title: &str,
        revert: Option<Value>,
    ) {
        self.conn
            .execute(
                "INSERT INTO session VALUES (?1, 'p', ?2, ?3, ?4, ?5, NULL, 1767225600000, 1)",
                rusqlite::params![id, parent, dir, title, revert.map(|r| r.to_string())],
            )
            .unwrap();
    }

    /// Message `id` of `role` with one text part, as most of a session is.
    fn said(&self, session: &str, id: &str, role: &str, t: &str) {
        self.message(session, id, json!({"role": role}), &[text(t)]);
    }

    /// Message `id` with `data`, and its parts in order.
    fn message(&self, session: &str, id: &str, data: Value, parts: &[Value]) {
        self.conn
            .execute(
                "INSERT INTO message VALUES (?1, ?2, 1, 1, ?3)",
                rusqlite::params![id, session, data.to_string()],
            )
            .unwrap();
        for (n, part) in parts.iter().enumerate() {
            self.conn
                .execute(
                    "INSERT INTO part VALUES (?1, ?2, ?3, 1, 1, ?4)",
                    rusqlite::params![format!("prt_{id}_{n}"), id, session, part.to_string()],
                )
                .unwrap();
        }
    }
}

/// Session `id` of `store` as the rules say: in `cwd`, with its title and
/// display title, and its messages; created when [`Db::session`] says.
#[track_caller]
fn assert_session(
    store: &OpencodeStore,
    id: &str,
    cwd: &str,
    (title, label): (Option<&str>, Option<&str>),
    messages: &[(&'static str, &str)],
) {
    let created = 1_767_225_600_000;
    let expected = expect(id, created, Some(cwd), title, label, messages);
    assert_eq!(store_surface(store, id), expected, "{id}");
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// "Revert: when `revert.messageID` names a message of the session, that
/// message and every later one are not projected". "Messages": user text
/// parts neither `synthetic` nor `ignored`, joined with "\n"; reasoning
/// and tool parts never. "title: … unless … the default `New session -
/// <ISO>` …; else the first user message cut to 80" — a reverted one
/// counts (addendum, "Titles"). "cwd: `directory` when not empty, else the
/// project's `worktree`". "createdAt: `time_created`".
#[test]
fn a_revert_cuts_the_tail_and_a_default_title_falls_to_the_first_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(dir.path());
    db.session(
        "ses_1",
        None,
        "",
        "New session - 2026-01-01T00:00:00.000Z",
        Some(json!({"messageID": "msg_03"})),
    );
    db.message(
        "ses_1",
        "msg_01",
        json!({"role": "user"}),
        &[
            text("Fix the"),
            json!({"type": "text", "text": "<file contents>", "synthetic": true}),
            json!({"type": "text", "text": "ignored note", "ignored": true}),
            json!({"type": "file", "url": "file:///w/a.rs"}),
            text("build"),
        ],
    );
    db.message(
        "ses_1",
        "msg_02",
        json!({"role": "assistant", "parentID": "msg_01", "finish": "stop"}),
        &[
            json!({"type": "reasoning", "text": "hm"}),
            json!({"type": "tool", "tool": "bash", "callID": "c1", "state": {}}),
            text("Fixed"),
        ],
    );
    db.said("ses_1", "msg_03", "user", "Undone prompt");
    db.said("ses_1", "msg_04", "assistant", "Undone reply");
    let store = OpencodeStore::open(dir.path(), 0, true);
    assert_session(
        &store,
        "ses_1",
        "/w/worktree",
        (Some("Fix the build"), None),
        &[("user", "Fix the\nbuild"), ("assistant", "Fixed")],
    );
}

/// "Compaction": an assistant `summary: true` with a `finish`, no
/// `error`, whose `parentID` is a user message holding a `compaction`
/// part, completes it; the checkpoint (the summary's text parts) sits at
/// the request and shadows every earlier message, except those from the
/// part's `tail_start_id` up to the request. A summary with an `error`
/// completes nothing. "title: `title`, used as written".
#[test]
fn a_completed_compaction_keeps_its_tail_after_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(dir.path());
    db.session("ses_1", None, "/w/dir", "Build fixes", None);
    db.said("ses_1", "msg_01", "user", "One");
    db.said("ses_1", "msg_02", "assistant", "Two");
    db.said("ses_1", "msg_03", "user", "Three");
    db.said("ses_1", "msg_04", "assistant", "Four");
    db.message(
        "ses_1",
        "msg_05",
        json!({"role": "user"}),
        &[json!({"type": "compaction", "auto": true, "tail_start_id": "msg_03"})],
    );
    db.message(
        "ses_1",
        "msg_06",
        json!({"role": "assistant", "parentID": "msg_05", "summary": true, "finish": "stop"}),
        &[text("Summary of one"), text("and two")],
    );
    db.said("ses_1", "msg_07", "user", "Five");
    db.message(
        "ses_1",
        "msg_08",
        json!({"role": "user"}),
        &[json!({"type": "compaction", "auto": false})],
    );
    db.message(
        "ses_1",
        "msg_09",
        json!({"role": "assistant", "parentID": "msg_08", "summary": true, "finish": "stop",
            "error": {"name": "Aborted"}}),
        &[text("Broken summary")],
    );
    db.said("ses_1", "msg_10", "assistant", "Six");
    let store = OpencodeStore::open(dir.path(), 0, true);
    assert_session(
        &store,
        "ses_1",
        "/w/dir",
        (Some("Build fixes"), None),
        &[
            ("checkpoint", "Summary of one\nand two"),
            ("user", "Three"),
            ("assistant", "Four"),
            ("user", "Five"),
            ("assistant", "Six"),
        ],
    );
}

/// "Sub-agents: a session with `parent_id` is that session's sub-agent;
/// display title = its `title` unless default"; "id: … a child session
/// keeps its own id". A default `Child session - <ISO>` title is no
/// title: the first user message is.
#[test]
fn a_child_session_keeps_its_id_and_a_default_child_title_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(dir.path());
    db.session("ses_1", None, "/w/dir", "Parent", None);
    db.said("ses_1", "msg_01", "user", "Delegate");
    db.session(
        "ses_2",
        Some("ses_1"),
        "/w/dir",
        "Scan the tree (@explore subagent)",
        None,
    );
    db.said("ses_2", "msg_02", "user", "Scan it");
    db.session(
        "ses_3",
        Some("ses_1"),
        "/w/dir",
        "Child session - 2026-01-01T00:00:00.000Z",
        None,
    );
    db.said("ses_3", "msg_03", "user", "Other scan");
    let store = OpencodeStore::open(dir.path(), 0, true);
    assert_session(
        &store,
        "ses_2",
        "/w/dir",
        (
            Some("Scan the tree (@explore subagent)"),
            Some("Scan the tree (@explore subagent)"),
        ),
        &[("user", "Scan it")],
    );
    assert_session(
        &store,
        "ses_3",
        "/w/dir",
        (Some("Other scan"), None),
        &[("user", "Other scan")],
    );
}
