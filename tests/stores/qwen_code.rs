//! Qwen Code chats read with zero configuration, through the built binary:
//! the fixtures written here (`tests/fixtures/qwen-code/projects`) under
//! `~/.qwen/projects` (HOME pointed at a temp dir), then moved by
//! `QWEN_RUNTIME_DIR` (absolute, `~/…`; a relative value is ignored), and
//! a Claude Code transcript in a `qwen-code` store, which is no session.

use crate::support::{prepare, run, snapshots, stdout_json, store_status};

use std::path::Path;

use serde_json::{json, Value};

const MAIN: &str = "3b9f6c2e-1d4a-4e8b-9c7f-5a6b7c8d9e0f";
const SUB: &str = "7e6d5c4b-3a29-4f18-8e07-d6c5b4a39281";

/// The fixtures' chat files copied into `<projects>` (golden files left
/// out).
fn qwen_projects(projects: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen-code/projects");
    for project in std::fs::read_dir(from).expect("fixtures").flatten() {
        let to = projects.join(project.file_name()).join("chats");
        std::fs::create_dir_all(&to).expect("mkdir");
        for file in std::fs::read_dir(project.path().join("chats"))
            .expect("chats")
            .flatten()
        {
            if file.path().extension().is_some_and(|e| e == "jsonl") {
                std::fs::copy(file.path(), to.join(file.file_name())).expect("copy");
            }
        }
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

#[test]
fn candidates_status_and_prepare_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    qwen_projects(&home.path().join(".qwen/projects"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(ids(&list), [MAIN, SUB]);
    let main = list
        .as_array()
        .and_then(|l| l.iter().find(|c| c["sessionId"] == MAIN))
        .expect("main");
    assert_eq!(
        json!({"label": main["label"], "cwd": main["cwd"]}),
        json!({"label": "Cart rounding", "cwd": "/home/ana/shop"})
    );
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let qwen = store_status(&status, "qwen-code");
    assert_eq!(qwen["sessions"], 2);
    assert_eq!(qwen["skippedLines"], 1, "{qwen}");

    let mention = main["mention"].as_str().expect("a mention");
    let snapshot = snapshots(&prepare(home.path(), mention));
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "<state_snapshot>The cart total drifted; lines are now rounded first.</state_snapshot>"},
            {"role": "user", "text": "Round per line instead"},
            {"role": "assistant", "text": "Rounding each line first."},
            {"role": "user", "text": "Now add a test"},
            {"role": "assistant", "text": "Added `tests/cart.rs`."}
        ])
    );
}

#[test]
fn qwen_runtime_dir_moves_the_store_when_absolute() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    qwen_projects(&elsewhere.path().join("projects"));
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("QWEN_RUNTIME_DIR", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [MAIN, SUB]);
    // Set, it wins over the default under `~`.
    qwen_projects(&home.path().join(".qwen/projects"));
    let empty = tempfile::tempdir().expect("temp dir");
    let named = stdout_json(&run(
        home.path(),
        &[("QWEN_RUNTIME_DIR", empty.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(named, json!([]));
    // A relative value does not count: the default is read.
    let relative = stdout_json(&run(
        home.path(),
        &[("QWEN_RUNTIME_DIR", Path::new("somewhere"))],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&relative), [MAIN, SUB]);
    // `~/…` is under the home.
    std::fs::rename(home.path().join(".qwen"), home.path().join("q")).expect("mv");
    let tilde = stdout_json(&run(
        home.path(),
        &[("QWEN_RUNTIME_DIR", Path::new("~/q"))],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&tilde), [MAIN, SUB]);
}

#[test]
fn a_claude_code_transcript_in_a_qwen_code_store_is_no_session() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = tempfile::tempdir().expect("temp dir");
    let claude = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code/projects/-home-ana-shop/5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b.jsonl");
    std::fs::copy(&claude, store.path().join("claude.jsonl")).expect("copy");
    qwen_projects(store.path());
    let dir = store.path().to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", dir, "--store-format", "qwen-code"],
        b"",
    ));
    assert_eq!(ids(&list), [MAIN, SUB]);
    // As `auto`, each file is its own format's.
    let auto = stdout_json(&run(home.path(), &[], &["candidates", "--store", dir], b""));
    assert_eq!(
        ids(&auto),
        [MAIN, "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b", SUB]
    );
}
