//! Pi sessions read with zero configuration, through the built binary: the
//! fixtures written here (`tests/fixtures/pi/sessions`) under
//! `~/.pi/agent/sessions` (HOME pointed at a temp dir), then moved by
//! `PI_CODING_AGENT_DIR`; a hydra log and a Pi file side by side in one
//! `auto` store; and the shared real files as a `--store-format pi` store
//! (`../shared/real-logs/pi`, skipped with a message when absent).

use crate::real_logs;
use crate::support::{prepare, run, snapshots, stdout_json, store_status};

use std::path::Path;

use serde_json::{json, Value};

const V3: &str = "5f0c2a1e-8b3d-4c7a-9e21-3d4b5c6d7e8f";
const V1: &str = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi/sessions")
}

/// The fixtures' session files copied into `<sessions>` (golden files
/// left out).
fn pi_sessions(sessions: &Path) {
    for project in std::fs::read_dir(fixtures()).expect("fixtures").flatten() {
        let to = sessions.join(project.file_name());
        std::fs::create_dir_all(&to).expect("mkdir");
        for file in std::fs::read_dir(project.path())
            .expect("project")
            .flatten()
        {
            if file.path().extension().is_some_and(|e| e == "jsonl") {
                std::fs::copy(file.path(), to.join(file.file_name())).expect("copy");
            }
        }
    }
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
    pi_sessions(&home.path().join(".pi/agent/sessions"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(ids(&list), [V1, V3]);
    let main = find(&list, V3);
    assert_eq!(
        json!({"label": main["label"], "cwd": main["cwd"], "createdAt": main["createdAt"]}),
        json!({"label": "Cart rounding", "cwd": "/home/ana/shop", "createdAt": 1_772_618_400_000u64})
    );
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let pi = store_status(&status, "pi");
    assert_eq!(pi["sessions"], 2);
    assert_eq!(pi["skippedLines"], 3, "{pi}");

    let mention = main["mention"].as_str().expect("a mention");
    let snapshot = snapshots(&prepare(home.path(), mention));
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "The cart total drifted; lines are now rounded first."},
            {"role": "user", "text": "Round per line\nand keep the cents"},
            {"role": "assistant", "text": "Rounding each line first."},
            {"role": "assistant", "text": "Done: `cart::total` rounds per line."},
            {"role": "user", "text": "Now add a test"},
            {"role": "assistant", "text": "Added `tests/cart.rs`."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 20);
}

#[test]
fn pi_coding_agent_dir_moves_the_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    pi_sessions(&elsewhere.path().join("sessions"));
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("PI_CODING_AGENT_DIR", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [V1, V3]);
    // Set, the variable wins: the default under `~` is not read.
    pi_sessions(&home.path().join(".pi/agent/sessions"));
    let empty = tempfile::tempdir().expect("temp dir");
    let named = stdout_json(&run(
        home.path(),
        &[("PI_CODING_AGENT_DIR", empty.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(named, json!([]));
    // `~/…` is under the home.
    std::fs::create_dir_all(home.path().join("pi-elsewhere")).expect("mkdir");
    pi_sessions(&home.path().join("pi-elsewhere/sessions"));
    std::fs::remove_dir_all(home.path().join(".pi")).expect("rm");
    let tilde = stdout_json(&run(
        home.path(),
        &[("PI_CODING_AGENT_DIR", Path::new("~/pi-elsewhere"))],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&tilde), [V1, V3]);
}

/// A hydra log and a Pi file in one `auto` store: each is its own
/// format's (agent-logs-files-3.md rules 1a-1c).
#[test]
fn a_hydra_log_and_a_pi_file_side_by_side_in_one_auto_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = tempfile::tempdir().expect("temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("tests/conformance/store/multi-cp.jsonl"),
        store.path().join("multi-cp.jsonl"),
    )
    .expect("copy");
    pi_sessions(store.path());
    let dir = store.path().to_str().expect("UTF-8 path");
    let list = stdout_json(&run(home.path(), &[], &["candidates", "--store", dir], b""));
    assert_eq!(ids(&list), [V1, V3, "p-multi-checkpoint"]);
    assert_eq!(find(&list, V3)["label"], "Cart rounding");
}

#[test]
fn the_shared_files_as_a_pi_store() {
    let Some(dir) = real_logs::real_logs("pi") else {
        return;
    };
    let home = tempfile::tempdir().expect("temp dir");
    let store = dir.to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "pi"],
        b"",
    ));
    assert_eq!(
        ids(&list),
        [
            "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
            "ffae836b-9420-4060-ac13-7745215f90ff"
        ]
    );
    let v1 = find(&list, "d703a1a9-1b7b-4fb1-b512-c9738b1fe617");
    assert_eq!(v1["label"], "/mode");
    assert_eq!(v1["cwd"], "/Users/badlogic/workspaces/pi-mono");
    // Read as `auto` too: a Pi header is no hydra header.
    let auto = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store],
        b"",
    ));
    assert_eq!(ids(&auto), ids(&list));
}
