//! The read preamble and the generic store over the formats' fixtures
//! (`tests/fixtures/{crush,goose,zed}`, built with each agent's DDL), and
//! the real Crush and Goose databases of `shared/real-logs` (copies:
//! a WAL reader writes its read marks into the `-shm`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

use super::open::ReadOnlyDb;
use super::*;
use crate::model::{Event, SessionStore, StoreNote};

fn fixture(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    std::fs::read_to_string(full).unwrap()
}

/// The folder's entries with what would show a write, a lock file or a
/// rename: name, inode, size, modification time (a `-shm`'s bytes and
/// times excepted: every WAL reader writes its read marks there).
fn entries(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let meta = e.metadata().unwrap();
            if name.ends_with("-shm") {
                format!("{name} {}", meta.ino())
            } else {
                format!(
                    "{name} {} {} {:?}",
                    meta.ino(),
                    meta.len(),
                    meta.modified().unwrap()
                )
            }
        })
        .collect();
    out.sort();
    out
}

/// A Crush database at `path` in WAL mode with the fixture's rows only
/// in its `-wal` (no checkpoint): the writer, which keeps it so while it
/// lives.
fn crush_writer(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    conn.execute_batch(&fixture("crush/schema.sql")).unwrap();
    conn.execute_batch(&fixture("crush/sessions.sql")).unwrap();
    conn
}

fn store(root: &Path, name: &'static str) -> DatabaseStore {
    DatabaseStore::open(root, 0, name, vec![by_name(name).unwrap()])
}

fn ids(store: &DatabaseStore) -> Vec<String> {
    store.sessions().into_iter().map(|s| s.header.id).collect()
}

/// The projected messages of a session as `role text` lines, the last
/// checkpoint first when there is one (what projection keeps).
fn conversation(store: &DatabaseStore, id: &str) -> (Vec<String>, u64) {
    let session = store.get(id).unwrap();
    let mut entries: Vec<(u64, Option<u64>, String)> = Vec::new();
    let summary = store
        .reader()
        .read(&session, &|| false, &mut |e| {
            let (through, line) = match &e.event {
                Event::Message { role, text } => (None, format!("{} {text}", role.as_str())),
                Event::Checkpoint { through_seq, text } => {
                    (Some(*through_seq), format!("checkpoint {text}"))
                }
                _ => (None, String::new()),
            };
            entries.push((e.seq, through, line));
        })
        .unwrap();
    let through = entries.iter().rev().find_map(|(_, t, _)| *t);
    let lines = entries
        .into_iter()
        .filter(|(seq, _, _)| through.is_none_or(|t| *seq > t))
        .map(|(_, _, line)| line)
        .collect();
    (lines, summary.skipped_lines)
}

#[test]
fn rows_only_in_the_wal_are_read_while_the_writer_holds_it_open_touching_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let writer = crush_writer(&dir.path().join("crush.db"));
    let wal = std::fs::metadata(dir.path().join("crush.db-wal")).unwrap();
    assert!(wal.len() > 0, "the rows are in the -wal");
    let before = entries(dir.path());
    let mut store = store(dir.path(), "crush");
    assert_eq!(
        entries(dir.path()),
        before,
        "nothing created, locked or renamed"
    );
    assert_eq!(
        ids(&store),
        [
            "0b9e8d7c-6a5f-4e3d-8c2b-1a0f9e8d7c6b",
            "7d1f0c3a-5b2e-4f7a-9c1d-2e3f4a5b6c7d",
            "m2$$c1"
        ]
    );
    // What the agent writes next is seen by the next update.
    writer
        .execute_batch(
            "INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('n', 'Next', 1, 1);
             INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('n1', 'n', 'user', '[{\"type\":\"text\",\"data\":{\"text\":\"hi\"}}]', 1, 1);",
        )
        .unwrap();
    let before = entries(dir.path());
    assert!(store.update());
    assert_eq!(ids(&store).len(), 4);
    let (lines, _) = conversation(&store, "n");
    assert_eq!(lines, ["user hi"]);
    assert_eq!(
        entries(dir.path()),
        before,
        "nothing created, locked or renamed"
    );
    drop(writer);
}

/// Issue 27 item 10: a `-wal` without its `-shm` (a writer that died, a
/// copy made half) used to be opened beside it, creating `crush.db-shm`.
#[test]
fn a_wal_without_its_shm_is_read_from_a_private_copy_creating_nothing() {
    let (live, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let writer = crush_writer(&live.path().join("crush.db"));
    for name in ["crush.db", "crush.db-wal"] {
        std::fs::copy(live.path().join(name), dir.path().join(name)).unwrap();
    }
    drop(writer);
    let before = entries(dir.path());
    assert!(!before.iter().any(|e| e.contains("-shm")));
    let store = store(dir.path(), "crush");
    assert_eq!(ids(&store).len(), 3, "the rows of the -wal are read");
    let (lines, _) = conversation(&store, "m2$$c1");
    assert_eq!(
        lines,
        [
            "user \n  Find the cleanup code\nin src/upload",
            "assistant src/upload/cleanup.rs"
        ]
    );
    assert_eq!(entries(dir.path()), before, "no -shm was created beside it");
}

/// Issue 27 item 11: a rollback `-journal` beside the file (a writer
/// that crashed in a transaction: its pages are in the file, the journal
/// would undo them) used to be read `immutable=1` — no `-wal`, no `-shm`
/// — listing the sessions the journal rolls back. A `-journal` beside the
/// file means: not immutable; a hot one is a read failure, reported.
#[test]
fn a_rollback_journal_beside_the_file_is_not_read_immutable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crush.db");
    let journal = dir.path().join("crush.db-journal");
    let writer = Connection::open(&path).unwrap();
    writer.execute_batch(&fixture("crush/schema.sql")).unwrap();
    // The journal as it is mid-transaction, put back after the commit:
    // the file holds the transaction's pages, a hot journal undoes them.
    writer
        .execute_batch(
            "PRAGMA synchronous = OFF; BEGIN;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
             INSERT INTO sessions (id, title, updated_at, created_at)
             SELECT 'uncommitted-' || i, 't', 1, 1 FROM n;
             INSERT INTO messages (id, session_id, role, parts, created_at, updated_at)
             SELECT 'm' || id, id, 'user', '[{\"type\":\"text\",\"data\":{\"text\":\"x\"}}]', 1, 1 FROM sessions;",
        )
        .unwrap();
    let saved = std::fs::read(&journal).unwrap();
    writer.execute_batch("COMMIT;").unwrap();
    drop(writer);
    std::fs::write(&journal, saved).unwrap();
    let before = entries(dir.path());
    let read = ReadOnlyDb::open(&path).and_then(|mut db| {
        db.read(|tx| Ok(tx.query_row("SELECT count(*) FROM sessions", [], |r| r.get::<_, i64>(0))?))
    });
    assert!(read.is_err(), "the rolled-back rows were read: {read:?}");
    let store = store(dir.path(), "crush");
    assert!(store.sessions().is_empty());
    assert!(
        store
            .notes()
            .iter()
            .any(|n| matches!(n, StoreNote::Unreadable { .. })),
        "{:?}",
        store.notes()
    );
    assert_eq!(entries(dir.path()), before, "the journal is left alone");
}

/// Issue 27 item 13: every read has a deadline (a recursive view, here a
/// recursive query), then a read failure that says so.
#[test]
fn a_read_past_its_deadline_is_interrupted_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crush.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE VIEW sessions AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS id FROM r;",
        )
        .unwrap();
    let mut db = ReadOnlyDb::open_with_deadline(&path, Duration::from_millis(200)).unwrap();
    let started = std::time::Instant::now();
    let error = db
        .read(|tx| Ok(tx.query_row("SELECT count(*) FROM sessions", [], |r| r.get::<_, i64>(0))?))
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(error.0.contains("took longer than"), "{error}");
    // The next read has its own deadline.
    let one = db.read(|tx| Ok(tx.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?));
    assert_eq!(one, Ok(1));
}

/// Issue 27 item 12: a corrupt page is a read failure named by the
/// store's own path (so a named store warns), not an empty store.
#[test]
fn a_corrupt_page_is_a_read_failure_of_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crush.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(&fixture("crush/schema.sql")).unwrap();
    conn.execute_batch(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
         INSERT INTO sessions (id, title, updated_at, created_at)
         SELECT 's' || i, printf('%.300c', 't'), 1, 1 FROM n;",
    )
    .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(&path).unwrap();
    let page = 4096;
    let pages = bytes.len() / page;
    for b in &mut bytes[(pages - 2) * page..(pages - 1) * page] {
        *b = 0xA5;
    }
    std::fs::write(&path, bytes).unwrap();
    let store = store(dir.path(), "crush");
    let notes = store.notes();
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, StoreNote::Unreadable { store, error }
            if *store == dir.path().display().to_string() && error.starts_with("crush.db: "))),
        "{notes:?}"
    );
    assert_eq!(store.status()[0].errors.len(), 1);
}

#[test]
fn crush_sessions_are_projected_as_the_contract_says() {
    let dir = tempfile::tempdir().unwrap();
    let writer = crush_writer(&dir.path().join("crush.db"));
    let store = store(dir.path(), "crush");
    let main = store.get("7d1f0c3a-5b2e-4f7a-9c1d-2e3f4a5b6c7d").unwrap();
    assert_eq!(main.title.as_deref(), Some("Fix the flaky upload test"));
    assert_eq!(main.header.created_at, 1_790_000_000_000);
    assert_eq!(main.header.cwd, None);
    assert_eq!(main.locator.format, "crush");
    let (lines, skipped) = conversation(&store, &main.header.id);
    assert_eq!(
        lines,
        [
            "checkpoint Summary: the upload test races its cleanup.",
            "user Now make it wait for the cleanup",
            "assistant Done: the test awaits cleanup()."
        ]
    );
    assert_eq!(skipped, 1, "the row whose parts are not JSON");
    let child = store.get("m2$$c1").unwrap();
    assert_eq!(child.header.label.as_deref(), Some("Find the cleanup code"));
    assert_eq!(
        child.title.as_deref(),
        Some("Find the cleanup code in src/upload")
    );
    let untitled = store.get("0b9e8d7c-6a5f-4e3d-8c2b-1a0f9e8d7c6b").unwrap();
    assert_eq!(untitled.title.as_deref(), Some("Rename the config loader"));
    assert!(
        store.get("title-7d1f").is_none(),
        "a title-generation row is no session"
    );
    drop(writer);
}

/// Crush's `projects.json` names each project's database (outside the
/// root too), and gives its sessions their cwd; a listed database that
/// is not there is reported.
#[test]
fn crush_projects_json_names_the_databases_and_their_cwd() {
    let (global, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let data_dir = project.path().join(".crush");
    std::fs::create_dir(&data_dir).unwrap();
    let writer = crush_writer(&data_dir.join("crush.db"));
    let index = serde_json::json!({"projects": [
        {"path": project.path(), "data_dir": data_dir, "last_accessed": "2026-09-01T08:00:00Z"},
        {"path": "/gone", "data_dir": "/gone/.crush"},
    ]});
    std::fs::write(global.path().join("projects.json"), index.to_string()).unwrap();
    let store = store(global.path(), "crush");
    let main = store.get("7d1f0c3a-5b2e-4f7a-9c1d-2e3f4a5b6c7d").unwrap();
    assert_eq!(main.header.cwd.as_deref(), project.path().to_str());
    assert_eq!(
        &*main.locator.name,
        data_dir.join("crush.db").to_str().unwrap().as_bytes()
    );
    assert!(store.notes().iter().any(
        |n| matches!(n, StoreNote::NotASession { rel, .. } if rel == "/gone/.crush/crush.db")
    ));
    // Read through the reader, by the name the store listed.
    let (lines, _) = conversation(&store, "m2$$c1");
    assert_eq!(lines.len(), 2);
    drop(writer);
}

fn goose_db(dir: &Path) -> PathBuf {
    let path = dir.join("sessions.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(&fixture("goose/schema.sql")).unwrap();
    conn.execute_batch(&fixture("goose/sessions.sql")).unwrap();
    path
}

#[test]
fn goose_sessions_are_projected_as_the_contract_says() {
    let dir = tempfile::tempdir().unwrap();
    goose_db(dir.path());
    let store = store(dir.path(), "goose");
    assert_eq!(
        ids(&store),
        ["20250101_7", "20260901_1", "20260901_2", "20260902_1"],
        "the hidden row is not listed"
    );
    let main = store.get("20260901_1").unwrap();
    assert_eq!(main.title.as_deref(), Some("Round tax per line"));
    assert_eq!(main.header.created_at, 1_788_249_600_000);
    assert_eq!(main.header.cwd.as_deref(), Some("/home/ana/shop"));
    assert_eq!(main.capacity, Some(200_000));
    let (lines, skipped) = conversation(&store, "20260901_1");
    assert_eq!(
        lines,
        [
            "checkpoint The conversation so far: tax per line.",
            "user Now add a test",
            "assistant Added tax_test.rs"
        ]
    );
    assert_eq!(skipped, 1);
    let child = store.get("20260901_2").unwrap();
    assert_eq!(
        child.header.label.as_deref(),
        Some("Fan-out [0] check the docs")
    );
    let imported = store.get("20250101_7").unwrap();
    assert_eq!(imported.header.created_at, 1_735_725_600_123);
    assert_eq!(
        imported.title.as_deref(),
        Some("Imported from the old files")
    );
    assert_eq!(imported.header.cwd, None);
    let named = store.get("20260902_1").unwrap();
    assert_eq!(
        named.title.as_deref(),
        Some("New Chat"),
        "set by the person"
    );
    assert_eq!(named.header.created_at, 1_788_336_000_000);
}

fn zed_db(dir: &Path) -> PathBuf {
    let path = dir.join("threads.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(&fixture("zed/schema.sql")).unwrap();
    let thread = br#"{"version":"0.3.0","title":"Port the parser","messages":[{"User":{"id":"u1","content":[{"Text":"Port the parser to nom"}]}},{"Agent":{"content":[{"Text":"Ported."}],"tool_results":{}}}],"updated_at":"2026-09-01T08:05:00Z"}"#;
    let compressed = zstd::encode_all(&thread[..], 3).unwrap();
    conn.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, folder_paths_order, created_at) VALUES ('zt-1', 'Port the parser', '2026-09-01T08:05:00Z', 'zstd', ?1, '/a/app\n/a/lib', '1,0', '2026-09-01T08:00:00.250Z')",
        [compressed],
    )
    .unwrap();
    let child = r#"{"version":"0.3.0","title":"","messages":[{"User":{"content":[{"Text":"Read the grammar"}]}}],"subagent_context":{"parent_thread_id":"zt-1","tool_use_id":"t","depth":1}}"#;
    conn.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES ('zt-2', 'Grammar', '2026-09-01T08:01:00Z', 'json', ?1)",
        [child],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES ('zt-3', 'Broken', '2026-09-01T08:02:00Z', 'zstd', x'00')",
        [],
    )
    .unwrap();
    path
}

#[test]
fn zed_threads_are_projected_as_the_contract_says() {
    let dir = tempfile::tempdir().unwrap();
    zed_db(dir.path());
    let store = store(dir.path(), "zed");
    assert_eq!(ids(&store), ["zt-1", "zt-2"]);
    let main = store.get("zt-1").unwrap();
    assert_eq!(main.title.as_deref(), Some("Port the parser"));
    assert_eq!(main.header.created_at, 1_788_249_600_250);
    // Sorted `/a/app`, `/a/lib`; opened `/a/lib` first.
    assert_eq!(main.header.cwd.as_deref(), Some("/a/lib"));
    let (lines, _) = conversation(&store, "zt-1");
    assert_eq!(lines, ["user Port the parser to nom", "assistant Ported."]);
    let child = store.get("zt-2").unwrap();
    assert_eq!(child.header.label.as_deref(), Some("Grammar"));
    assert_eq!(
        child.header.created_at, 1_788_249_660_000,
        "updated_at when no created_at"
    );
    assert!(store
        .notes()
        .iter()
        .any(|n| matches!(n, StoreNote::NotASession { rel, .. } if rel == "threads.db#zt-3")));
}

#[test]
fn kilo_is_opencodes_schema_under_its_own_name() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join("kilo.db")).unwrap();
    conn.execute_batch(&fixture("opencode/opencode.sql"))
        .unwrap();
    // Not Kilo's: an OpenCode name in a kilo store.
    std::fs::copy(dir.path().join("kilo.db"), dir.path().join("opencode.db")).unwrap();
    let store = store(dir.path(), "kilo");
    let sessions = store.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].locator.format, "kilo");
    assert_eq!(&*sessions[0].locator.name, b"kilo.db");
    assert_eq!(
        sessions[0].title.as_deref(),
        Some("Round tax per line, not per cart")
    );
    assert_eq!(crate::formats::display_name("kilo"), Some("Kilo Code"));
}

/// The `auto` rule: a file by its name and SQLite header, `sessions.db`
/// and `threads.db` by their column; another file of those names is a
/// note, never fatal; Goose's `projects.json` (an object) is not read.
#[test]
fn auto_finds_each_database_by_name_and_header() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for sub in [
        "goose/sessions",
        "zed/threads",
        "proj/.crush",
        "kilo",
        "other",
    ] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    goose_db(&root.join("goose/sessions"));
    zed_db(&root.join("zed/threads"));
    let writer = crush_writer(&root.join("proj/.crush/crush.db"));
    Connection::open(root.join("kilo/kilo.db"))
        .unwrap()
        .execute_batch(&fixture("opencode/opencode.sql"))
        .unwrap();
    Connection::open(root.join("other/sessions.db"))
        .unwrap()
        .execute_batch("CREATE TABLE messages (id, body);")
        .unwrap();
    std::fs::write(root.join("other/threads.db"), "not sqlite").unwrap();
    std::fs::write(
        root.join("projects.json"),
        r#"{"projects":{"/x":{"path":"/x"}}}"#,
    )
    .unwrap();
    let store = DatabaseStore::open(root, 0, "auto", all().to_vec());
    let formats: std::collections::BTreeMap<String, &str> = store
        .sessions()
        .into_iter()
        .map(|s| (s.header.id.clone(), s.locator.format))
        .collect();
    assert_eq!(formats["20260901_1"], "goose");
    assert_eq!(formats["zt-1"], "zed");
    assert_eq!(formats["m2$$c1"], "crush");
    assert_eq!(formats["ses_4c2d8e10affeQwErTyUiOpAsDf"], "kilo");
    let notes: Vec<String> = store.notes().iter().map(ToString::to_string).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("other/sessions.db: skipped")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("other/threads.db: skipped")),
        "{notes:?}"
    );
    drop(writer);
}

fn copy_real(from: &Path, names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        std::fs::copy(from.join(name), dir.path().join(name)).unwrap();
        let mut perms = std::fs::metadata(dir.path().join(name))
            .unwrap()
            .permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        std::fs::set_permissions(dir.path().join(name), perms).unwrap();
    }
    dir
}

/// The real Crush database (2025-08): its eight messages of the second
/// session are only in the `-wal`.
#[test]
fn the_real_crush_database_is_read_with_its_wal() {
    let Some(real) = crate::formats::toolkit::real_logs::real_logs("crush") else {
        return;
    };
    let copy = copy_real(
        &real.join("e2chat-calcman/.crush"),
        &["crush.db", "crush.db-wal", "crush.db-shm"],
    );
    let before = entries(copy.path());
    let store = store(copy.path(), "crush");
    let sessions = store.sessions();
    assert_eq!(sessions.len(), 2);
    let nuxt = store.get("5893253f-6351-4f2c-998d-2bae794714f9").unwrap();
    assert_eq!(
        nuxt.title.as_deref(),
        Some("Nuxt Calculator App with UI and Keyboard Support")
    );
    assert_eq!(nuxt.header.created_at, 1_754_105_118_000);
    let (lines, skipped) = conversation(&store, &nuxt.header.id);
    assert_eq!(skipped, 0);
    assert_eq!(
        lines.last().map(String::as_str),
        Some("assistant Done. Removed favicon and set site title to “Calcman”.")
    );
    assert!(lines
        .iter()
        .all(|l| l.starts_with("user ") || l.starts_with("assistant ")));
    let first = store.get("f1c755dc-c4a5-41c1-812a-497901900cc2").unwrap();
    assert_eq!(first.header.created_at, 1_754_104_814_000);
    assert_eq!(entries(copy.path()), before);
}

/// The real Goose database (schema v5): its one session has no message,
/// so it is no session — reported.
#[test]
fn the_real_goose_database_reports_its_empty_session() {
    let Some(real) = crate::formats::toolkit::real_logs::real_logs("goose") else {
        return;
    };
    let copy = copy_real(&real.join("jwp23-dotfiles/sessions"), &["sessions.db"]);
    let before = entries(copy.path());
    let store = store(copy.path(), "goose");
    assert!(store.sessions().is_empty());
    let notes: Vec<String> = store.notes().iter().map(ToString::to_string).collect();
    assert_eq!(
        notes,
        ["sessions.db#20251202_1: skipped, not a session: no user or assistant message"]
    );
    assert_eq!(
        entries(copy.path()),
        before,
        "read immutable: nothing created"
    );
}

/// One session's id, then its title and skipped rows as listed, then as
/// read.
type Seen = (String, Option<String>, u64, Option<String>, u64);

/// Every session of a store, as listed and as read whole: its title and
/// its skipped rows (a listing reads each body shrunk, a read whole).
fn listed_and_read(store: &DatabaseStore) -> Vec<Seen> {
    store
        .sessions()
        .into_iter()
        .map(|s| {
            let read = store.reader().read(&s, &|| false, &mut |_| {}).unwrap();
            (
                s.header.id.clone(),
                s.title.clone(),
                s.skipped_lines,
                read.title,
                read.skipped_lines,
            )
        })
        .collect()
}

/// Issue 27 item 14: a listing reads each body as a stream, every string
/// cut; a read reads it whole. On every fixture both give each session
/// the same title and the same skipped rows.
#[test]
fn a_listing_of_shrunk_bodies_agrees_with_a_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let crush = dir.path().join("crush");
    std::fs::create_dir(&crush).unwrap();
    let writer = crush_writer(&crush.join("crush.db"));
    let goose = dir.path().join("goose");
    std::fs::create_dir(&goose).unwrap();
    goose_db(&goose);
    let zed = dir.path().join("zed");
    std::fs::create_dir(&zed).unwrap();
    zed_db(&zed);
    let kilo = dir.path().join("kilo");
    std::fs::create_dir(&kilo).unwrap();
    Connection::open(kilo.join("kilo.db"))
        .unwrap()
        .execute_batch(&fixture("opencode/opencode.sql"))
        .unwrap();
    for (root, name) in [
        (&crush, "crush"),
        (&goose, "goose"),
        (&zed, "zed"),
        (&kilo, "kilo"),
    ] {
        let store = store(root, name);
        let seen = listed_and_read(&store);
        assert!(!seen.is_empty(), "{name}");
        for (id, listed, listed_skipped, read, read_skipped) in seen {
            assert!(listed.is_some(), "{name} {id}: no title");
            assert_eq!(listed, read, "{name} {id}");
            assert_eq!(listed_skipped, read_skipped, "{name} {id}");
        }
    }
    drop(writer);
}

/// A `messages` that blob I/O cannot read (a view) is read whole, as
/// before: listed with its title. (Goose's: Crush's stamp counts
/// `rowid`s, which a view has none of.)
#[test]
fn a_view_of_messages_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = goose_db(dir.path());
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "ALTER TABLE messages RENAME TO stored; CREATE VIEW messages AS SELECT * FROM stored;",
        )
        .unwrap();
    let db = ReadOnlyDb::open(&path).unwrap();
    assert!(!super::bounded::streamable(db.connection(), "messages"));
    assert!(super::bounded::streamable(db.connection(), "sessions"));
    drop(db);
    let store = store(dir.path(), "goose");
    let seen = listed_and_read(&store);
    assert!(!seen.is_empty(), "{:?}", store.notes());
    for (id, listed, _, read, _) in seen {
        assert!(listed.is_some(), "{id}");
        assert_eq!(listed, read, "{id}");
    }
}

/// Issue 24: search checks every session's stamp on each change of the
/// store; an unchanged database answers from what was read, and an edit
/// in place (no row more, no stamp of the store's changed) is still seen.
#[test]
fn a_sessions_stamp_is_read_again_only_after_its_database_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = goose_db(dir.path());
    let age = |path: &Path| {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(60);
        file.set_modified(old).unwrap();
    };
    age(&path);
    let store = store(dir.path(), "goose");
    let session = store.get("20260902_1").unwrap();
    let reader = store.reader();
    let first = reader.stamp(&session).unwrap();
    assert_eq!(reader.stamp(&session).unwrap(), first);
    let conn = Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE messages SET content_json = ?1 WHERE session_id = '20260902_1'",
        [r#"[{"type":"text","text":"Named by the person, edited"}]"#],
    )
    .unwrap();
    drop(conn);
    age(&path);
    assert_ne!(reader.stamp(&session).unwrap(), first, "the edit is seen");
}
