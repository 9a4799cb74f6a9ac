//! Continue sessions read with zero configuration, through the built
//! binary: the fixtures written here (`tests/fixtures/continue/sessions`)
//! as `~/.continue/sessions` under a fresh HOME, then moved by
//! `CONTINUE_GLOBAL_DIR` (a relative value is not followed); the folder as
//! an `auto` store; the list's change alone re-reading a session. The
//! files the real `cn` CLI writes are checked by `tests/agents/`, which runs
//! it.

use crate::support::{prepare, run, snapshots, stdout_json, store_status};

use std::path::{Path, PathBuf};

use hydra_session_lsp::formats::{self, FormatChoice};
use hydra_session_lsp::store::Catalog;
use serde_json::{json, Value};

const A: &str = "5b0e6d1a-2c3f-4e8b-9a7d-6f5e4d3c2b1a";
const B: &str = "9c8b7a6f-5e4d-4c3b-8a2f-1e0d9c8b7a6f";
const C: &str = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

fn fixture_sessions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/continue/sessions")
}

/// The fixtures' sessions copied into `<global>/sessions`.
fn global(global: &Path) -> PathBuf {
    let to = global.join("sessions");
    std::fs::create_dir_all(&to).expect("mkdir");
    for entry in std::fs::read_dir(fixture_sessions())
        .expect("fixtures")
        .flatten()
    {
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
    }
    to
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

fn find<'a>(list: &'a Value, id: &str) -> &'a Value {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|c| c["sessionId"] == id)
        .unwrap_or_else(|| panic!("no {id} in {list}"))
}

#[test]
fn candidates_status_and_prepare_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    global(&home.path().join(".continue"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(ids(&list), [C, A, B]);
    let a = find(&list, A);
    assert_eq!(
        json!({"label": a["label"], "cwd": a["cwd"], "createdAt": a["createdAt"]}),
        json!({"label": "Rename the add helper", "cwd": "/home/ana/my lib", "createdAt": 1_796_700_000_000u64})
    );
    assert_eq!(find(&list, B)["label"], "Why does the login test time out?");
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let store = store_status(&status, "continue");
    assert_eq!(store["sessions"], 3);
    assert_eq!(store["errors"], json!([]));

    let mention = find(&list, B)["mention"].as_str().expect("a mention");
    let snapshot = snapshots(&prepare(home.path(), mention));
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "The login test timed out because the mock server ignored /token; the mock now answers it."},
            {"role": "user", "text": "Now the logout test"},
            {"role": "assistant", "text": "Logout passes too."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 6);
}

#[test]
fn continue_global_dir_moves_the_store_when_absolute() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    global(elsewhere.path());
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("CONTINUE_GLOBAL_DIR", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [C, A, B]);
    // A relative value is not followed, and `~/.continue` is read then.
    global(&home.path().join(".continue"));
    let relative = stdout_json(&run(
        home.path(),
        &[("CONTINUE_GLOBAL_DIR", Path::new("relative/dir"))],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&relative), [C, A, B]);
}

#[test]
fn the_sessions_folder_as_an_auto_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let sessions = fixture_sessions();
    let store = sessions.to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store],
        b"",
    ));
    assert_eq!(ids(&list), [C, A, B]);
    assert_eq!(find(&list, A)["createdAt"], 1_796_700_000_000u64);
}

#[test]
fn a_change_to_the_list_alone_re_reads_the_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = global(dir.path());
    let format = FormatChoice::Fixed(formats::by_name("continue").expect("the format"));
    let mut catalog = Catalog::scan_with(&sessions, 0, format, true);
    let created = |c: &Catalog| c.get(C).map(|s| s.header.created_at);
    assert_ne!(created(&catalog), Some(5));
    let list = sessions.join("sessions.json");
    std::fs::write(
        &list,
        json!([{"sessionId": C, "dateCreated": "5"}]).to_string(),
    )
    .expect("write");
    assert!(catalog.refresh_path(&list));
    assert_eq!(created(&catalog), Some(5));
}
