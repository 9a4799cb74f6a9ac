//! Cline, Roo Code and Kilo Code (legacy) tasks read with zero
//! configuration, through the built binary: the fixtures written here
//! (`tests/fixtures/cline`) in the editors' global storage under a fresh
//! HOME (VS Code, VS Code Insiders, Cursor), then moved by
//! `XDG_CONFIG_HOME`; the shared real Cline task as an `auto` store; and
//! the store's index re-reading a task when only its index entry changes.

use crate::real_logs;
use crate::support::{prepare, run, snapshots, stdout_json, store_status};

use std::path::{Path, PathBuf};

use hydra_session_lsp::formats::{self, FormatChoice};
use hydra_session_lsp::store::Catalog;
use serde_json::{json, Value};

const ROO_PARENT: &str = "3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c";
const ROO_CHILD: &str = "8e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0";
const KILO: &str = "c4b3a291-0f8e-4d7c-a6b5-948372615a0b";
const CLINE: &str = "1796600000000";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cline")
}

/// Copies the tree `from` into `to`, golden files left out.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(entry.file_name()));
        } else if !path.to_string_lossy().ends_with(".expected.json") {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy");
        }
    }
}

/// Each fixture extension folder in the global storage of an editor of
/// `config` (Roo Code in VS Code, Cline in Insiders, Kilo Code in Cursor).
fn editors(config: &Path) {
    for (editor, ext) in [
        ("Code", "rooveterinaryinc.roo-cline"),
        ("Code - Insiders", "saoudrizwan.claude-dev"),
        ("Cursor", "kilocode.kilo-code"),
    ] {
        copy_tree(
            &fixtures().join(ext),
            &config.join(editor).join("User/globalStorage").join(ext),
        );
    }
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
    editors(&home.path().join(".config"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(ids(&list), [CLINE, ROO_PARENT, ROO_CHILD, KILO]);
    let parent = find(&list, ROO_PARENT);
    assert_eq!(
        json!({"label": parent["label"], "cwd": parent["cwd"], "createdAt": parent["createdAt"]}),
        json!({"label": "Add a --dry-run flag to the deploy script", "cwd": "/home/ana/infra", "createdAt": 1_796_400_000_000u64})
    );
    assert_eq!(find(&list, CLINE)["cwd"], "/home/ana/config");
    assert_eq!(find(&list, KILO)["cwd"], "/home/ana/app");
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let cline = store_status(&status, "cline");
    assert_eq!(cline["errors"], json!([]));
    let total: u64 = status["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .filter(|s| s["format"] == "cline")
        .map(|s| s["sessions"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(total, 4);

    let mention = parent["mention"].as_str().expect("a mention");
    let snapshot = snapshots(&prepare(home.path(), mention));
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "The user wants --dry-run in deploy.sh; it must skip the migration."},
            {"role": "assistant", "text": "I will add the flag now and delegate the tests."},
            {"role": "assistant", "text": "`deploy.sh --dry-run` prints each step and skips the migration."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 14);
}

#[test]
fn xdg_config_home_moves_the_editors_folders() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    editors(elsewhere.path());
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("XDG_CONFIG_HOME", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [CLINE, ROO_PARENT, ROO_CHILD, KILO]);
}

#[test]
fn the_shared_real_task_as_an_auto_store() {
    let Some(real) = real_logs::real_logs("cline") else {
        return;
    };
    let home = tempfile::tempdir().expect("temp dir");
    let store = real.join("saoudrizwan.claude-dev");
    let store = store.to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store],
        b"",
    ));
    assert_eq!(ids(&list), ["1767644899093"]);
    assert_eq!(find(&list, "1767644899093")["label"], "yo wassup");
    let status = stdout_json(&run(home.path(), &[], &["status", "--store", store], b""));
    assert_eq!(status["stores"][0]["sessions"], 1);
}

fn title(catalog: &Catalog, id: &str) -> Option<String> {
    catalog.get(id).and_then(|s| s.title)
}

#[test]
fn a_change_to_the_index_alone_re_reads_only_the_task_it_concerns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let storage = dir.path().join("saoudrizwan.claude-dev");
    copy_tree(&fixtures().join("saoudrizwan.claude-dev"), &storage);
    // A second task the index does not name.
    let other = storage.join("tasks/1796000000001");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::write(
        other.join("ui_messages.json"),
        r#"[{"ts":1,"type":"say","say":"text","text":"unlisted"}]"#,
    )
    .expect("write");
    let format = FormatChoice::Fixed(formats::by_name("cline").expect("the format"));
    let mut catalog = Catalog::scan_with(&storage, 0, format, true);
    assert_eq!(
        title(&catalog, CLINE).as_deref(),
        Some("Plan a migration of the config loader to TOML")
    );
    assert_eq!(
        title(&catalog, "1796000000001").as_deref(),
        Some("unlisted")
    );
    let index = storage.join("state/taskHistory.json");
    std::fs::write(
        &index,
        json!([{"id": CLINE, "ts": 1, "task": "Renamed in the index", "cwdOnTaskInitialization": "/elsewhere"}])
            .to_string(),
    )
    .expect("write");
    assert!(catalog.refresh_path(&index));
    assert_eq!(
        title(&catalog, CLINE).as_deref(),
        Some("Renamed in the index")
    );
    assert_eq!(
        catalog.get(CLINE).and_then(|s| s.header.cwd).as_deref(),
        Some("/elsewhere")
    );
    // Touched again with the same entry: nothing to read.
    std::fs::write(
        &index,
        json!([{"id": CLINE, "ts": 2, "task": "Renamed in the index", "cwdOnTaskInitialization": "/elsewhere"}])
            .to_string(),
    )
    .expect("write");
    assert!(!catalog.refresh_path(&index));
    // A new walk agrees with what the notices gave.
    let walked = Catalog::scan_with(&storage, 0, format, true);
    assert_eq!(
        title(&walked, CLINE).as_deref(),
        Some("Renamed in the index")
    );
}

#[test]
fn a_task_without_a_message_is_named_in_status() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = home.path().join("storage");
    let task = store.join("tasks/1796000000002");
    std::fs::create_dir_all(&task).expect("mkdir");
    std::fs::write(
        task.join("ui_messages.json"),
        r#"[{"ts":1,"type":"say","say":"api_req_started","text":"{}"}]"#,
    )
    .expect("write");
    let store = store.to_str().expect("UTF-8 path");
    let status = stdout_json(&run(home.path(), &[], &["status", "--store", store], b""));
    assert_eq!(status["stores"][0]["sessions"], 0);
    assert_eq!(
        status["notes"],
        json!([{"kind": "notASession", "message": "tasks/1796000000002/ui_messages.json: skipped, not a session: no user or assistant message"}])
    );
}
