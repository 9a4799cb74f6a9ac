//! The OpenCode store over databases the tests make and the shared real
//! fixture: listing, titles, reading, incremental updates, the store list.

use std::path::Path;

use rusqlite::Connection;

use super::OpencodeStore;
use crate::formats::toolkit::real_logs::real_logs;
use crate::model::{Entry, Event, SessionReader, SessionStore, StoreNote};
use crate::store::{FsStore, Scan, StoreSpec};

const TABLES: &str = "CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL);
    CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, directory text, title text, revert text, agent text, time_created integer, time_updated integer);
    CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, time_updated integer, data text);
    CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer, time_updated integer, data text);
    INSERT INTO project VALUES ('p', '/w');";

/// A database in WAL mode, as OpenCode keeps it while it runs.
fn writer(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(TABLES).unwrap();
    conn
}

fn session(conn: &Connection, id: &str, parent: Option<&str>, title: &str, created: i64) {
    conn.execute(
        "INSERT INTO session VALUES (?1, 'p', ?2, '', ?3, NULL, NULL, ?4, ?4)",
        rusqlite::params![id, parent, title, created],
    )
    .unwrap();
}

fn message(conn: &Connection, session: &str, id: &str, role: &str, text: &str) {
    conn.execute(
        "INSERT INTO message VALUES (?1, ?2, 1, 1, ?3)",
        rusqlite::params![id, session, format!("{{\"role\":\"{role}\"}}")],
    )
    .unwrap();
    let part = serde_json::json!({ "type": "text", "text": text }).to_string();
    conn.execute(
        "INSERT INTO part VALUES (?1, ?2, ?3, 1, 1, ?4)",
        rusqlite::params![format!("prt_{id}"), id, session, part],
    )
    .unwrap();
    conn.execute(
        "UPDATE session SET time_updated = time_updated + 1 WHERE id = ?1",
        [session],
    )
    .unwrap();
}

fn texts(reader: &dyn SessionReader, store: &dyn SessionStore, id: &str) -> Vec<String> {
    let session = store.get(id).unwrap();
    let mut out = Vec::new();
    reader
        .read(&session, &|| false, &mut |e: Entry<'_>| match e.event {
            Event::Message { role, text } => out.push(format!("{} {text}", role.as_str())),
            Event::Checkpoint { text, .. } => out.push(format!("checkpoint {text}")),
            _ => {}
        })
        .unwrap();
    out
}

#[test]
fn sessions_are_listed_titled_and_read_from_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let conn = writer(&dir.path().join("opencode.db"));
    session(
        &conn,
        "ses_1",
        None,
        "New session - 2026-08-20T11:00:00.000Z",
        5,
    );
    session(
        &conn,
        "ses_2",
        Some("ses_1"),
        "Look around (@explore subagent)",
        6,
    );
    message(&conn, "ses_1", "msg_1", "user", "Fix   the build\nplease");
    message(&conn, "ses_1", "msg_2", "assistant", "Done.");
    let store = OpencodeStore::open(dir.path(), 3, true);
    let main = store.get("ses_1").unwrap();
    assert_eq!(main.title.as_deref(), Some("Fix the build please"));
    assert_eq!(main.header.created_at, 5);
    assert_eq!(main.header.cwd.as_deref(), Some("/w"));
    assert_eq!(main.header.label, None);
    assert_eq!((main.locator.store, main.locator.format), (3, "opencode"));
    let child = store.get("ses_2").unwrap();
    assert_eq!(
        child.header.label.as_deref(),
        Some("Look around (@explore subagent)")
    );
    let reader = store.reader();
    assert_eq!(
        texts(reader.as_ref(), &store, "ses_1"),
        ["user Fix   the build\nplease", "assistant Done."]
    );
    let status = store.status();
    assert_eq!(
        (status[0].format.as_str(), status[0].sessions),
        ("opencode", 2)
    );
    assert!(reader.link_target(&main).is_none());
    drop(conn);
}

#[test]
fn an_appended_message_is_seen_by_update_and_a_revert_reads_again() {
    let dir = tempfile::tempdir().unwrap();
    let conn = writer(&dir.path().join("opencode.db"));
    session(&conn, "ses_1", None, "", 5);
    message(&conn, "ses_1", "msg_1", "user", "first");
    let mut store = OpencodeStore::open(dir.path(), 0, true);
    let reader = store.reader();
    let before = reader.version(&store.get("ses_1").unwrap()).unwrap();
    assert!(!store.update(), "nothing changed");
    message(&conn, "ses_1", "msg_2", "assistant", "second");
    assert!(store.update());
    assert_eq!(
        texts(reader.as_ref(), &store, "ses_1"),
        ["user first", "assistant second"]
    );
    let after = reader.version(&store.get("ses_1").unwrap()).unwrap();
    assert_ne!(before, after);
    // The person undoes from the reply on.
    conn.execute(
        "UPDATE session SET revert = '{\"messageID\":\"msg_2\"}', time_updated = 99 WHERE id = 'ses_1'",
        [],
    )
    .unwrap();
    assert!(store.update());
    assert_ne!(reader.version(&store.get("ses_1").unwrap()), Some(after));
    assert_eq!(texts(reader.as_ref(), &store, "ses_1"), ["user first"]);
    // A new session, then a deleted one.
    session(&conn, "ses_0", None, "Named", 1);
    assert!(store.update());
    assert_eq!(store.get("ses_0").unwrap().title.as_deref(), Some("Named"));
    conn.execute("DELETE FROM session WHERE id = 'ses_0'", [])
        .unwrap();
    assert!(store.update());
    assert!(store.get("ses_0").is_none());
    drop(conn);
}

#[test]
fn a_folder_that_is_missing_or_holds_a_broken_database_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let store = OpencodeStore::open(&dir.path().join("nope"), 0, true);
    assert!(matches!(store.notes()[..], [StoreNote::Missing { .. }]));
    Connection::open(dir.path().join("opencode-dev.db"))
        .unwrap()
        .execute_batch("CREATE TABLE session (id text);")
        .unwrap();
    let store = OpencodeStore::open(dir.path(), 0, true);
    let notes = store.notes();
    assert!(
        matches!(&notes[..], [StoreNote::Unreadable { store, error }]
            if *store == dir.path().display().to_string()
                && error.starts_with("opencode-dev.db: ")
                && error.contains("no table message")),
        "{notes:?}"
    );
    assert_eq!(store.status()[0].errors.len(), 1);
}

#[test]
fn an_opencode_store_stands_in_the_store_list_beside_folders_of_logs() {
    let (logs, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(
        logs.path().join("h.jsonl"),
        "{\"type\":\"session\",\"id\":\"ses_1\",\"createdAt\":1}\n",
    )
    .unwrap();
    let conn = writer(&data.path().join("opencode.db"));
    session(&conn, "ses_1", None, "Shadowed", 5);
    session(&conn, "ses_2", None, "Only here", 6);
    message(&conn, "ses_2", "msg_1", "user", "hello");
    let specs = [
        StoreSpec::auto(logs.path()),
        StoreSpec {
            path: data.path().to_path_buf(),
            format: crate::formats::FormatChoice::Opencode,
        },
    ];
    let store = FsStore::open(&specs, Scan::Full);
    let ids: Vec<String> = store.sessions().into_iter().map(|s| s.header.id).collect();
    assert_eq!(ids, ["ses_1", "ses_2"]);
    assert_eq!(store.get("ses_1").unwrap().locator.store, 0);
    assert_eq!(
        texts(store.reader().as_ref(), &store, "ses_2"),
        ["user hello"]
    );
    let status = store.status();
    assert_eq!(status[1].format, "opencode");
    assert_eq!(status[1].sessions, 2);
    assert!(store
        .notes()
        .iter()
        .any(|n| matches!(n, StoreNote::Duplicate { id, .. } if id == "ses_1")));
    drop(conn);
}

/// The shared fixture (agent-logs-more.md "OpenCode"; real-logs README's
/// expected values), read through the store.
#[test]
fn the_real_fixture_lists_and_reads_as_its_readme_expects() {
    let Some(dir) = real_logs("opencode") else {
        return;
    };
    let store = OpencodeStore::open(&dir.join("synthetic-data-v1.2"), 0, true);
    assert_eq!(store.sessions().len(), 3, "{:?}", store.notes());
    let main = store.get("ses_3a1b2c3d4ffeAbCdEfGhIjKlMn").unwrap();
    assert_eq!(main.header.created_at, 1_787_224_000_000);
    assert_eq!(main.header.cwd.as_deref(), Some("/home/user/webapp"));
    assert_eq!(main.title.as_deref(), Some("Dark mode for settings"));
    let child = store.get("ses_3a1b2c3e0ffeOpQrStUvWxYzAb").unwrap();
    assert_eq!(
        child.header.label.as_deref(),
        Some("Find theme code (@explore subagent)")
    );
    let default = store.get("ses_3a1b2c3f0ffeDefaultTitle01").unwrap();
    assert_eq!(default.title.as_deref(), Some("What does the CI do?"));
    let surface = texts(store.reader().as_ref(), &store, &main.header.id);
    let from_checkpoint: Vec<String> = surface
        .iter()
        .skip_while(|t| !t.starts_with("checkpoint"))
        .map(|t| t.lines().next().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        from_checkpoint,
        [
            "checkpoint ## Goal",
            "user Now add a test",
            "assistant Added Settings.test.tsx."
        ]
    );
}

/// A session file, a message file and its one text part in the tree.
fn tree_message(root: &Path, session: &str, id: &str, role: &str, text: &str) {
    let storage = root.join("storage");
    let write = |dir: std::path::PathBuf, name: &str, value: serde_json::Value| {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.json")), value.to_string()).unwrap();
    };
    write(
        storage.join("message").join(session),
        id,
        serde_json::json!({ "id": id, "sessionID": session, "role": role }),
    );
    write(
        storage.join("part").join(id),
        &format!("prt_{id}"),
        serde_json::json!({ "type": "text", "text": text }),
    );
}

#[test]
fn the_older_tree_is_read_when_no_database_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let storage = dir.path().join("storage");
    std::fs::create_dir_all(storage.join("session/prj")).unwrap();
    std::fs::create_dir_all(storage.join("project")).unwrap();
    std::fs::write(
        storage.join("project/prj.json"),
        r#"{"id":"prj","worktree":"/w"}"#,
    )
    .unwrap();
    std::fs::write(
        storage.join("session/prj/ses_1.json"),
        r#"{"id":"ses_1","directory":"","title":"","time":{"created":7,"updated":8}}"#,
    )
    .unwrap();
    std::fs::write(storage.join("session/prj/broken.json"), "{\"id\":").unwrap();
    tree_message(dir.path(), "ses_1", "msg_1", "user", "Tidy the tree");
    let mut store = OpencodeStore::open(dir.path(), 0, true);
    let listed = store.get("ses_1").unwrap();
    assert_eq!(listed.title.as_deref(), Some("Tidy the tree"));
    assert_eq!(listed.header.cwd.as_deref(), Some("/w"));
    assert_eq!(listed.header.created_at, 7);
    assert_eq!(&*listed.locator.name, b"storage/session/prj/ses_1.json");
    assert!(store
        .notes()
        .iter()
        .any(|n| matches!(n, StoreNote::NotASession { rel, .. } if rel.ends_with("broken.json"))));
    let reader = store.reader();
    assert!(reader
        .link_target(&listed)
        .unwrap()
        .ends_with("/storage/session/prj/ses_1.json"));
    let before = reader.version(&listed).unwrap();
    // An appended message: seen by the next update and the next read.
    tree_message(dir.path(), "ses_1", "msg_2", "assistant", "Tidied.");
    assert!(store.update());
    assert_ne!(reader.version(&listed), Some(before));
    assert_eq!(
        texts(reader.as_ref(), &store, "ses_1"),
        ["user Tidy the tree", "assistant Tidied."]
    );
    // A database beside it: only the database is read.
    let conn = writer(&dir.path().join("opencode.db"));
    session(&conn, "ses_9", None, "From the database", 1);
    assert!(store.update());
    let ids: Vec<String> = store.sessions().into_iter().map(|s| s.header.id).collect();
    assert_eq!(ids, ["ses_9"]);
    drop(conn);
}

#[test]
fn the_real_tree_fixture_reads_as_the_database_does() {
    let Some(dir) = real_logs("opencode") else {
        return;
    };
    let tree = OpencodeStore::open(&dir.join("synthetic-data-pre-1.2"), 0, true);
    let db = OpencodeStore::open(&dir.join("synthetic-data-v1.2"), 0, true);
    assert_eq!(tree.sessions().len(), 2, "{:?}", tree.notes());
    for id in [
        "ses_3a1b2c3d4ffeAbCdEfGhIjKlMn",
        "ses_3a1b2c3e0ffeOpQrStUvWxYzAb",
    ] {
        let (a, b) = (tree.get(id).unwrap(), db.get(id).unwrap());
        assert_eq!((&a.header, &a.title), (&b.header, &b.title), "{id}");
        assert_eq!(
            texts(tree.reader().as_ref(), &tree, id),
            texts(db.reader().as_ref(), &db, id),
            "{id}"
        );
    }
}
