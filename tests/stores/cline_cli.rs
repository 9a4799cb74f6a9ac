//! Cline CLI sessions read with zero configuration, through the built
//! binary: the fixtures written here (`tests/fixtures/cline-cli/sessions`)
//! as `~/.cline/data/sessions` under a fresh HOME, then moved by
//! `CLINE_DATA_DIR` (a relative value is not followed). The files the real
//! `cline` CLI writes are checked by `tests/agents/`, which runs it.

use crate::support::{prepare, run, snapshots, stdout_json, store_status};

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

const A: &str = "1796700000000_k3v9q";
const B: &str = "1796700500000_z0p4m";

fn fixture_sessions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cline-cli/sessions")
}

/// The fixtures' session folders copied into `<data>/sessions`.
fn data_dir(data: &Path) {
    for folder in std::fs::read_dir(fixture_sessions())
        .expect("fixtures")
        .flatten()
    {
        let to = data.join("sessions").join(folder.file_name());
        std::fs::create_dir_all(&to).expect("mkdir");
        for file in std::fs::read_dir(folder.path()).expect("folder").flatten() {
            std::fs::copy(file.path(), to.join(file.file_name())).expect("copy");
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
    data_dir(&home.path().join(".cline").join("data"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    // The folder of tool traffic only is no session.
    assert_eq!(ids(&list), [A, B]);
    let a = find(&list, A);
    assert_eq!(
        json!({"label": a["label"], "cwd": a["cwd"], "createdAt": a["createdAt"]}),
        json!({"label": "Why is the cart total off by a cent?", "cwd": "/home/ana/shop", "createdAt": 1_796_714_400_000u64})
    );
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let store = store_status(&status, "cline-cli");
    assert_eq!(store["sessions"], 2);

    let mention = a["mention"].as_str().expect("a mention");
    let snapshot = snapshots(&prepare(home.path(), mention));
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "Why is the cart total off by a cent?"},
            {"role": "assistant", "text": "Each line is rounded before the sum.\nRound the sum once instead."},
            {"role": "user", "text": "And the tax?"},
            {"role": "assistant", "text": "The tax is rounded once, at the end."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 6);
}

#[test]
fn cline_data_dir_moves_the_store_when_absolute() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    data_dir(elsewhere.path());
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("CLINE_DATA_DIR", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [A, B]);
    // A relative value is not followed, and `~/.cline/data` is read then.
    data_dir(&home.path().join(".cline").join("data"));
    let relative = stdout_json(&run(
        home.path(),
        &[("CLINE_DATA_DIR", Path::new("relative/dir"))],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&relative), [A, B]);
}
