//! OpenCode sessions read with zero configuration, through the built
//! binary: the database of `tests/fixtures/opencode/opencode.sql` (in WAL
//! mode, as OpenCode keeps it while it runs) under
//! `~/.local/share/opencode` (HOME pointed at a temp dir), then moved by
//! `XDG_DATA_HOME`, and named with `--store-format opencode`.

use crate::support::{prepare, run, run_in, snapshots, stdout_json, store_status};
use std::path::Path;

use rusqlite::Connection;
use serde_json::{json, Value};

const ID: &str = "ses_4c2d8e10affeQwErTyUiOpAsDf";

/// OpenCode's data folder at `data` holding the database of
/// `tests/fixtures/opencode/opencode.sql`, in WAL mode. Returns the
/// writer, which keeps the `-wal` and `-shm` in place while it lives.
fn opencode_data(data: &Path) -> Connection {
    std::fs::create_dir_all(data).expect("mkdir");
    let conn = Connection::open(data.join("opencode.db")).expect("db");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    let sql = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/opencode/opencode.sql"
    ))
    .expect("fixture");
    conn.execute_batch(&sql).expect("schema and rows");
    conn
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|c| c["sessionId"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn candidates_status_and_prepare_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    let data = home.path().join(".local/share/opencode");
    let writer = opencode_data(&data);
    let before = listing(&data);
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    let row = &list[0];
    assert_eq!(
        json!({"id": row["sessionId"], "label": row["label"], "cwd": row["cwd"], "createdAt": row["createdAt"]}),
        json!({"id": ID, "label": "Round tax per line, not per cart", "cwd": "/home/ana/shop", "createdAt": 1_788_249_600_000u64})
    );
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let opencode = store_status(&status, "opencode");
    assert_eq!(opencode["sessions"], 1);
    assert_eq!(opencode["errors"], json!([]));

    let mention = row["mention"].as_str().expect("a mention");
    let prepared = prepare(home.path(), mention);
    let snapshot = snapshots(&prepared);
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "Round tax per line, not per cart"},
            {"role": "assistant", "text": "Done: tax::total rounds each line."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 3);
    // Nothing was created in OpenCode's folder.
    assert_eq!(listing(&data), before);
    drop(writer);
}

#[test]
fn xdg_data_home_moves_the_store_and_store_format_names_it() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let data = elsewhere.path().join("opencode");
    let writer = opencode_data(&data);
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("XDG_DATA_HOME", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [ID]);
    // A relative XDG_DATA_HOME counts for nothing: a store where it
    // points from the working directory is not read.
    let cwd = tempfile::tempdir().expect("temp dir");
    let relative_writer = opencode_data(&cwd.path().join("data/opencode"));
    let relative = stdout_json(&run_in(
        cwd.path(),
        home.path(),
        &[("XDG_DATA_HOME", Path::new("data"))],
        &["candidates"],
        b"",
    ));
    assert_eq!(relative, json!([]));
    drop(relative_writer);
    let store = data.to_str().expect("utf-8 path");
    let named = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "opencode"],
        b"",
    ));
    assert_eq!(ids(&named), [ID]);
    drop(writer);
    // OpenCode stopped: no -wal, no -shm; still read, still nothing made.
    let before = listing(&data);
    assert_eq!(before, ["opencode.db"]);
    let stopped = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "opencode"],
        b"",
    ));
    assert_eq!(ids(&stopped), [ID]);
    assert_eq!(listing(&data), before);
}
