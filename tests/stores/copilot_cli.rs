//! GitHub Copilot CLI sessions read with zero configuration, through the
//! built binary: the fixture written here (`tests/fixtures/copilot-cli`)
//! under `~/.copilot/session-state` (HOME pointed at a temp dir), then
//! moved by `COPILOT_HOME` and found under `$XDG_STATE_HOME/.copilot`.

use crate::support::{prepare, run, run_in, snapshots, stdout_json, store_status};
use std::path::Path;

use serde_json::{json, Value};

const ID: &str = "4b7c9e21-0d3a-4f5e-8a61-93c2d7e0f118";

/// The fixture's session folder copied into `<copilot>/session-state`.
fn copilot_home(copilot: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/copilot-cli/session-state")
        .join(ID);
    let to = copilot.join("session-state").join(ID);
    std::fs::create_dir_all(&to).expect("mkdir");
    for name in ["events.jsonl", "workspace.yaml"] {
        std::fs::copy(from.join(name), to.join(name)).expect("copy");
    }
}

/// The session's `workspace.yaml` in the Copilot home under `home`.
fn workspace_yaml(home: &Path) -> std::path::PathBuf {
    home.join(".copilot/session-state")
        .join(ID)
        .join("workspace.yaml")
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|c| c["sessionId"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn candidates_status_and_prepare_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    copilot_home(&home.path().join(".copilot"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    let row = &list[0];
    assert_eq!(
        json!({"id": row["sessionId"], "label": row["label"], "cwd": row["cwd"], "createdAt": row["createdAt"]}),
        json!({"id": ID, "label": "Round tax per line, not per cart", "cwd": "/home/ana/shop", "createdAt": 1_796_026_500_000u64})
    );
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let copilot = store_status(&status, "copilot-cli");
    assert_eq!(copilot["sessions"], 1);
    assert_eq!(copilot["errors"], json!([]));

    let mention = row["mention"].as_str().expect("a mention");
    let prepared = prepare(home.path(), mention);
    let snapshot = snapshots(&prepared);
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "Ana asked to round tax per line; `tax::total` now rounds each line."},
            {"role": "user", "text": "Now add a regression test"},
            {"role": "assistant", "text": "Added `tests/tax_rounding.rs`."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 16);
    assert_eq!(
        prepared["additionalContext"]["source"]["references"][0]["compacted"],
        true
    );
}

#[test]
fn copilot_home_and_xdg_state_home_move_the_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    copilot_home(elsewhere.path());
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("COPILOT_HOME", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&moved), [ID]);
    let state = tempfile::tempdir().expect("temp dir");
    copilot_home(&state.path().join(".copilot"));
    let xdg = stdout_json(&run(
        home.path(),
        &[("XDG_STATE_HOME", state.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(ids(&xdg), [ID]);
    // A relative XDG_STATE_HOME counts for nothing: a store where it
    // points from the working directory is not read, the default is.
    let cwd = tempfile::tempdir().expect("temp dir");
    copilot_home(&cwd.path().join("state/.copilot"));
    let relative = |home: &Path| {
        stdout_json(&run_in(
            cwd.path(),
            home,
            &[("XDG_STATE_HOME", Path::new("state"))],
            &["candidates"],
            b"",
        ))
    };
    assert_eq!(relative(home.path()), json!([]));
    copilot_home(&home.path().join(".copilot"));
    assert_eq!(ids(&relative(home.path())), [ID]);
}

/// A rename in `workspace.yaml` alone (`events.jsonl` untouched) shows at
/// the next run, although the index cache holds the session.
#[test]
fn a_change_to_workspace_yaml_alone_is_seen() {
    let home = tempfile::tempdir().expect("temp dir");
    copilot_home(&home.path().join(".copilot"));
    let before = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(before[0]["label"], "Round tax per line, not per cart");
    let workspace = workspace_yaml(home.path());
    std::fs::write(
        &workspace,
        format!("id: {ID}\ncwd: /home/ana/elsewhere\nuser_named: true\nname: Tax per line\n"),
    )
    .expect("write");
    let after = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(
        json!({"label": after[0]["label"], "cwd": after[0]["cwd"]}),
        json!({"label": "Tax per line", "cwd": "/home/ana/shop"})
    );
}

/// The search index sees a rename in `workspace.yaml` alone too: its
/// cheap check of each log folds in the side files' stamps, so the new
/// title is found and the old one no longer is.
#[test]
fn a_title_renamed_in_workspace_yaml_alone_is_searched_by_its_new_name() {
    let home = tempfile::tempdir().expect("temp dir");
    copilot_home(&home.path().join(".copilot"));
    let search = |query: &str| {
        let found = stdout_json(&run(home.path(), &[], &["search", query], b""));
        found
            .as_array()
            .expect("a list")
            .iter()
            .map(|h| h["title"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(search("per cart"), ["Round tax per line, not per cart"]);
    let workspace = workspace_yaml(home.path());
    std::fs::write(
        &workspace,
        format!("id: {ID}\ncwd: /home/ana/shop\nuser_named: true\nname: Quokka ledger\n"),
    )
    .expect("write");
    assert_eq!(search("quokka"), ["Quokka ledger"]);
    let old = "Round tax per line, not per cart".to_string();
    assert!(!search("cart").contains(&old));
}
