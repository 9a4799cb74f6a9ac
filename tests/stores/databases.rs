//! Kilo Code, Goose, Crush and Zed read with zero configuration, through
//! the built binary (agent-logs-db-3.md): their databases, built with
//! each agent's DDL (`tests/fixtures/{crush,goose,zed}`, OpenCode's for
//! Kilo), at their default places under a fresh HOME, then moved by each
//! variable the page names; an `auto` store that finds them; and a
//! database that cannot be read, said so.

use std::path::{Path, PathBuf};

use base64::Engine;
use rusqlite::Connection;
use serde_json::{json, Value};

use crate::support::{prepare, run, run_any, snapshots, stdout_json, store_status};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(path),
    )
    .expect("fixture")
}

fn db(path: &Path, sql: &[&str]) -> Connection {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let conn = Connection::open(path).expect("db");
    for file in sql {
        conn.execute_batch(&fixture(file)).expect("rows");
    }
    conn
}

fn kilo(dir: &Path) {
    db(&dir.join("kilo.db"), &["opencode/opencode.sql"]);
}

fn goose(dir: &Path) {
    db(
        &dir.join("sessions.db"),
        &["goose/schema.sql", "goose/sessions.sql"],
    );
}

/// A Crush project's database at `data_dir/crush.db`, in WAL mode with its
/// rows only in the `-wal`: the writer keeps it so while it lives.
fn crush(data_dir: &Path) -> Connection {
    std::fs::create_dir_all(data_dir).expect("mkdir");
    let conn = Connection::open(data_dir.join("crush.db")).expect("db");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    conn.pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoint");
    conn.execute_batch(&fixture("crush/schema.sql"))
        .expect("schema");
    conn.execute_batch(&fixture("crush/sessions.sql"))
        .expect("rows");
    conn
}

/// Crush's global folder `global` indexing one project at `project`.
fn crush_global(global: &Path, project: &Path) -> Connection {
    let writer = crush(&project.join(".crush"));
    std::fs::create_dir_all(global).expect("mkdir");
    let index = json!({"projects": [{"path": project, "data_dir": project.join(".crush"), "last_accessed": "2026-09-01T08:00:00Z"}]});
    std::fs::write(global.join("projects.json"), index.to_string()).expect("index");
    writer
}

fn zed(dir: &Path) {
    let conn = db(&dir.join("threads.db"), &["zed/schema.sql"]);
    let thread = br#"{"version":"0.3.0","title":"Port the parser","messages":[{"User":{"id":"u1","content":[{"Text":"Port the parser to nom"}]}},{"Agent":{"content":[{"Text":"Ported."}],"tool_results":{}}}]}"#;
    let data = zstd::encode_all(&thread[..], 3).expect("zstd");
    conn.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, folder_paths_order, created_at) VALUES ('zt-1', 'Port the parser', '2026-09-01T08:05:00Z', 'zstd', ?1, '/home/ana/parser', '0', '2026-09-01T08:00:00Z')",
        [data],
    )
    .expect("thread");
}

fn ids(list: &Value) -> Vec<String> {
    let mut ids: Vec<String> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["sessionId"].as_str().unwrap_or_default().to_string())
        .collect();
    ids.sort();
    ids
}

fn mention_of(list: &Value, id: &str) -> String {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|c| c["sessionId"] == id)
        .and_then(|c| c["mention"].as_str())
        .unwrap_or_else(|| panic!("no {id} in {list}"))
        .to_string()
}

const CRUSH_ID: &str = "7d1f0c3a-5b2e-4f7a-9c1d-2e3f4a5b6c7d";

/// Each agent's store, seeded at `data` (the XDG data folder) as the
/// agents lay them out; the Crush writer.
fn seed_all(data: &Path, project: &Path) -> Connection {
    kilo(&data.join("kilo"));
    goose(&data.join("goose/sessions"));
    zed(&data.join("zed/threads"));
    crush_global(&data.join("crush"), project)
}

#[test]
fn candidates_status_prepare_and_search_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    let project = tempfile::tempdir().expect("project");
    let writer = seed_all(&home.path().join(".local/share"), project.path());
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    for id in [
        "ses_4c2d8e10affeQwErTyUiOpAsDf",
        "20260901_1",
        CRUSH_ID,
        "m2$$c1",
        "zt-1",
    ] {
        assert!(ids(&list).contains(&id.to_string()), "{id} in {list}");
    }
    let crush_row = list
        .as_array()
        .and_then(|l| l.iter().find(|c| c["sessionId"] == CRUSH_ID))
        .expect("crush row");
    assert_eq!(crush_row["cwd"], json!(project.path()));
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    for (format, sessions) in [("kilo", 1), ("goose", 4), ("crush", 3), ("zed", 1)] {
        let store = store_status(&status, format);
        assert_eq!(store["sessions"], sessions, "{format}: {store}");
        assert_eq!(store["errors"], json!([]), "{format}");
    }
    let prepared = prepare(home.path(), &mention_of(&list, CRUSH_ID));
    let snapshot = snapshots(&prepared);
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "Summary: the upload test races its cleanup."},
            {"role": "user", "text": "Now make it wait for the cleanup"},
            {"role": "assistant", "text": "Done: the test awaits cleanup()."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 7);
    let zed = snapshots(&prepare(home.path(), &mention_of(&list, "zt-1")));
    assert_eq!(zed[0]["cwd"], "/home/ana/parser");
    assert_eq!(zed[0]["conversation"][1]["text"], "Ported.");
    let goose = snapshots(&prepare(home.path(), &mention_of(&list, "20260901_1")));
    assert_eq!(goose[0]["conversation"][2]["text"], "Added tax_test.rs");
    let found = stdout_json(&run(home.path(), &[], &["search", "cleanup"], b""));
    assert!(found.to_string().contains(CRUSH_ID), "{found}");
    drop(writer);
}

#[test]
fn each_variable_moves_its_agents_default_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let project = tempfile::tempdir().expect("project");
    // Nothing at the defaults yet: no store is listed.
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let formats: Vec<&Value> = status["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .map(|s| &s["format"])
        .collect();
    for format in ["kilo", "goose", "crush", "zed"] {
        assert!(
            !formats.contains(&&json!(format)),
            "{format} listed though absent"
        );
    }
    // XDG_DATA_HOME (absolute) moves all four.
    let data = elsewhere.path().join("data");
    let writer = seed_all(&data, project.path());
    let status = stdout_json(&run(
        home.path(),
        &[("XDG_DATA_HOME", &data)],
        &["status"],
        b"",
    ));
    for format in ["kilo", "goose", "crush", "zed"] {
        let store = store_status(&status, format);
        assert!(
            store["path"]
                .as_str()
                .unwrap_or_default()
                .starts_with(data.to_str().unwrap_or("?")),
            "{store}"
        );
    }
    // A relative XDG_DATA_HOME counts for nothing: the defaults are read.
    let defaults = home.path().join(".local/share");
    kilo(&defaults.join("kilo"));
    let cwd_relative = PathBuf::from("data");
    let status = stdout_json(&run(
        home.path(),
        &[("XDG_DATA_HOME", &cwd_relative)],
        &["status"],
        b"",
    ));
    assert_eq!(
        store_status(&status, "kilo")["path"],
        json!(defaults.join("kilo"))
    );
    // GOOSE_PATH_ROOT: `<root>/data/sessions`.
    let goose_root = elsewhere.path().join("goose-root");
    goose(&goose_root.join("data/sessions"));
    let status = stdout_json(&run(
        home.path(),
        &[("GOOSE_PATH_ROOT", &goose_root)],
        &["status"],
        b"",
    ));
    let store = store_status(&status, "goose");
    assert_eq!(store["path"], json!(goose_root.join("data/sessions")));
    assert_eq!(store["sessions"], 4);
    // CRUSH_GLOBAL_DATA: the global folder itself.
    let status = stdout_json(&run(
        home.path(),
        &[("CRUSH_GLOBAL_DATA", &data.join("crush"))],
        &["status"],
        b"",
    ));
    assert_eq!(store_status(&status, "crush")["sessions"], 3);
    // FLATPAK_XDG_DATA_HOME: Zed's data folder under Flatpak.
    let status = stdout_json(&run(
        home.path(),
        &[("FLATPAK_XDG_DATA_HOME", &data)],
        &["status"],
        b"",
    ));
    assert_eq!(
        store_status(&status, "zed")["path"],
        json!(data.join("zed/threads"))
    );
    drop(writer);
}

/// Issue 24 item 3: a folder given as `--store` without a format lists
/// the sessions of the databases below it (OpenCode's by name too).
#[test]
fn an_auto_store_finds_the_databases_below_it() {
    let home = tempfile::tempdir().expect("temp dir");
    let root = tempfile::tempdir().expect("store");
    let opencode = db(
        &root.path().join("oc/opencode.db"),
        &["opencode/opencode.sql"],
    );
    drop(opencode);
    let writer = crush(&root.path().join("proj/.crush"));
    zed(&root.path().join("zed"));
    std::fs::write(root.path().join("other.db"), "x").expect("other");
    std::fs::create_dir_all(root.path().join("g")).expect("mkdir");
    std::fs::write(root.path().join("g/sessions.db"), "not sqlite").expect("not sqlite");
    // A line log beside them: both kinds in one `auto` store.
    std::fs::write(
        root.path().join("log.jsonl"),
        "{\"type\":\"session\",\"id\":\"hydra-1\",\"createdAt\":1}\n{\"seq\":1,\"type\":\"message\",\"data\":{\"role\":\"user\",\"text\":\"a line log\"}}\n",
    )
    .expect("log");
    let store = root.path().to_str().expect("utf-8");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store],
        b"",
    ));
    let found = ids(&list);
    for id in [
        "ses_4c2d8e10affeQwErTyUiOpAsDf",
        CRUSH_ID,
        "zt-1",
        "hydra-1",
    ] {
        assert!(found.contains(&id.to_string()), "{id} in {list}");
    }
    let status = stdout_json(&run(home.path(), &[], &["status", "--store", store], b""));
    assert_eq!(status["stores"][0]["sessions"], 6);
    // Each read goes to its own reader: the database's, the log's.
    let prompt = format!(
        "Continue {} and {}",
        mention_of(&list, CRUSH_ID),
        mention_of(&list, "hydra-1")
    );
    let prepared = stdout_json(&run(
        home.path(),
        &[],
        &["prepare", "--store", store],
        prompt.as_bytes(),
    ));
    let snapshot = snapshots(&prepared);
    assert_eq!(
        snapshot[0]["conversation"][2]["text"],
        "Done: the test awaits cleanup()."
    );
    assert_eq!(snapshot[1]["sessionId"], "hydra-1");
    assert!(
        status
            .to_string()
            .contains("g/sessions.db: skipped, not a session"),
        "{status}"
    );
    drop(writer);
}

/// Issue 27 item 12: a corrupt page in a named store's database: a
/// warning on stderr, `status` has the error, and `prepare` says the read
/// failed rather than "not found".
#[test]
fn a_corrupt_database_of_a_named_store_warns_and_fails_the_read() {
    let home = tempfile::tempdir().expect("temp dir");
    let root = tempfile::tempdir().expect("store");
    let path = root.path().join("crush.db");
    let conn = db(&path, &["crush/schema.sql", "crush/sessions.sql"]);
    conn.execute_batch(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
         INSERT INTO sessions (id, title, updated_at, created_at) SELECT 's' || i, printf('%.300c', 't'), 1, 1 FROM n;",
    )
    .expect("rows");
    drop(conn);
    let mut bytes = std::fs::read(&path).expect("read");
    let pages = bytes.len() / 4096;
    for b in &mut bytes[(pages - 2) * 4096..(pages - 1) * 4096] {
        *b = 0xA5;
    }
    std::fs::write(&path, bytes).expect("corrupt");
    let store = root.path().to_str().expect("utf-8");
    let args = ["--store", store, "--store-format", "crush"];
    let listed = run(
        home.path(),
        &[],
        &[&["candidates"][..], &args].concat(),
        b"",
    );
    let stderr = String::from_utf8_lossy(&listed.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("crush.db"),
        "{stderr}"
    );
    let status = stdout_json(&run(
        home.path(),
        &[],
        &[&["status"][..], &args].concat(),
        b"",
    ));
    assert_eq!(
        status["stores"][0]["errors"].as_array().map(Vec::len),
        Some(1),
        "{status}"
    );
    let id = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("\"{CRUSH_ID}\""));
    let prompt = format!("Continue @[Fix](hydra-session:{id})");
    let prepared = run_any(
        home.path(),
        &[],
        &[&["prepare"][..], &args].concat(),
        prompt.as_bytes(),
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&prepared.stdout),
        String::from_utf8_lossy(&prepared.stderr)
    );
    assert!(said.contains("cannot be read"), "{said}");
    assert!(!said.contains("not found"), "{said}");
}

/// Issue 27 item 13: a `sessions` that is a recursive view: `candidates`
/// ends after the read deadline (10 s) with a warning.
#[test]
fn a_database_read_that_never_ends_is_cut_at_its_deadline() {
    let home = tempfile::tempdir().expect("temp dir");
    let root = tempfile::tempdir().expect("store");
    let conn = db(&root.path().join("crush.db"), &[]);
    conn.execute_batch(
        "CREATE VIEW sessions AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS id, NULL AS updated_at FROM r;
         CREATE TABLE messages (id TEXT, session_id TEXT, role TEXT, parts TEXT, created_at INTEGER);",
    )
    .expect("view");
    drop(conn);
    let store = root.path().to_str().expect("utf-8");
    let started = std::time::Instant::now();
    let listed = run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "crush"],
        b"",
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_eq!(stdout_json(&listed), json!([]));
    let stderr = String::from_utf8_lossy(&listed.stderr);
    assert!(stderr.contains("took longer than 10 s"), "{stderr}");
}
