//! Cursor agent transcripts read with zero configuration, through the built
//! binary: the fixtures written here (`tests/fixtures/cursor`) under
//! `~/.cursor/projects` (HOME pointed at a temp dir), then moved by
//! `CURSOR_CONFIG_DIR`, a project whose folder name decodes to a real
//! directory, and the shared logs as a `--store-format cursor` store
//! (`../shared/real-logs/cursor`, skipped with a message when absent).

use crate::real_logs;
use crate::support::{prepare, run, snapshots, stdout_json, store_status};

use std::path::Path;

use serde_json::{json, Value};

const MAIN: &str = "7c1f2e3d-4b5a-4c6d-9e8f-0a1b2c3d4e5f";
const CHILD: &str = "7c1f2e3d-4b5a-4c6d-9e8f-0a1b2c3d4e5f/8d2a3b4c-5e6f-4a7b-8c9d-1e2f3a4b5c6d";
const OLDER: &str = "0f9e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c";

/// Copies the tree `from` into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(entry.file_name()));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy");
        }
    }
}

/// The fixtures' `projects` folder copied into `<cursor>/projects`.
fn cursor_home(cursor: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cursor/projects");
    copy_tree(&from, &cursor.join("projects"));
}

fn find<'a>(list: &'a Value, id: &str) -> &'a Value {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|c| c["sessionId"] == id)
        .unwrap_or_else(|| panic!("no {id} in {list}"))
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

#[test]
fn candidates_status_and_prepare_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    cursor_home(&home.path().join(".cursor"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(ids(&list), [OLDER, MAIN, CHILD]);
    let main = find(&list, MAIN);
    assert_eq!(
        json!({"label": main["label"], "cwd": main["cwd"], "createdAt": main["createdAt"]}),
        json!({"label": "Why does the cart total drift by a cent?", "cwd": null, "createdAt": 1_796_137_500_000u64})
    );
    assert_eq!(
        find(&list, CHILD)["displayTitle"],
        "List every caller of cart::total."
    );
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let cursor = store_status(&status, "cursor");
    assert_eq!(cursor["sessions"], 3);
    assert_eq!(cursor["errors"], json!([]));

    let mention = main["mention"].as_str().expect("a mention");
    let prepared = prepare(home.path(), mention);
    let snapshot = snapshots(&prepared);
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "Why does the cart total drift by a cent?"},
            {"role": "assistant", "text": "`cart.rs` rounds once, after summing.\nRounding each line first keeps the cents."},
            {"role": "user", "text": "Fix it\nand add a test"},
            {"role": "assistant", "text": "Done: `cart::total` rounds per line; `tests/cart.rs` checks it."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 15);
}

#[test]
fn cursor_config_dir_moves_the_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    cursor_home(elsewhere.path());
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("CURSOR_CONFIG_DIR", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [OLDER, MAIN, CHILD]);
}

/// A project folder whose name is a real directory's path, with `-` for
/// `/` and for the `-` in a name: the session's cwd is that directory.
#[test]
fn the_cwd_is_the_project_folder_decoded_on_this_machine() {
    let home = tempfile::Builder::new()
        .prefix("cursorhome")
        .tempdir()
        .expect("temp dir");
    let base = home.path().to_string_lossy().into_owned();
    if base.contains(['-', '.', '_', ' ']) || home.path().to_str().is_none() {
        crate::skip::skipped(&format!("{base} has characters a slug cannot spell back"));
        return;
    }
    let cwd = home.path().join("work/my-shop");
    std::fs::create_dir_all(&cwd).expect("mkdir");
    let slug = format!(
        "{}-work-my-shop",
        base.trim_start_matches('/').replace('/', "-")
    );
    let transcripts = home
        .path()
        .join(".cursor/projects")
        .join(slug)
        .join("agent-transcripts/s1");
    std::fs::create_dir_all(&transcripts).expect("mkdir");
    std::fs::write(
        transcripts.join("s1.jsonl"),
        "{\"role\":\"user\",\"message\":{\"content\":\"<user_query>hi</user_query>\"}}\n",
    )
    .expect("write");
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(find(&list, "s1")["cwd"], json!(cwd.to_str()));
}

#[test]
fn the_shared_logs_as_a_cursor_store() {
    let Some(dir) = real_logs::real_logs("cursor") else {
        return;
    };
    let home = tempfile::tempdir().expect("temp dir");
    let store = dir.to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "cursor"],
        b"",
    ));
    assert_eq!(list.as_array().map(Vec::len), Some(6), "{list}");
    let main = find(&list, "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6");
    assert_eq!(main["label"], "Why does `cargo test` fail on CI?");
    assert_eq!(main["createdAt"], 1_787_210_100_000u64);
    let child = find(
        &list,
        "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6/e2f3a4b5-c6d7-4e8f-9a01-b2c3d4e5f6a7",
    );
    assert_eq!(
        child["displayTitle"],
        "Read every file in .github/workflows and list missing packages."
    );
}

#[test]
fn candidates_with_store_format_cursor() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cursor/projects");
    let store = store.to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "cursor"],
        b"",
    ));
    assert_eq!(ids(&list), [OLDER, MAIN, CHILD]);
    assert_eq!(
        find(&list, OLDER)["label"],
        "What does the health endpoint return?"
    );
    // Another format's store does not read them.
    let codex = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "codex"],
        b"",
    ));
    assert_eq!(codex, json!([]));
}
