//! Aider's chat histories through the built binary: found with zero
//! configuration through the working directory and its git root (the
//! fixture written here, `tests/fixtures/aider/project`), and read from a
//! folder given as `--store`, as format `aider` and as `auto`, on the
//! shared real files (`../shared/real-logs/aider`, skipped with a message
//! when absent). `candidates`, `status`, `prepare` and `search`.

use crate::real_logs;
use crate::support::{run_in, snapshots, stdout_json, store_status};

use std::path::Path;

use serde_json::{json, Value};

const HISTORY: &str = ".aider.chat.history.md";
const FIRST: &str = "aider:.aider.chat.history.md#2025-01-02T10:00:00";
const SECOND: &str = "aider:.aider.chat.history.md#2025-01-02T10:00:00~2";
const LAST: &str = "aider:.aider.chat.history.md#2025-01-03T08:30:00";

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/aider/project")
        .join(HISTORY)
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

fn notes(status: &Value) -> Vec<String> {
    status["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter(|n| n["kind"] == "notASession")
        .map(|n| n["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A project with a git root, the fixture's history at that root, run
/// from a folder below it: the history is found through the git root.
#[test]
fn the_history_at_the_git_root_is_a_default_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let project = tempfile::tempdir().expect("temp dir");
    let root = project.path();
    std::fs::create_dir(root.join(".git")).expect("mkdir");
    std::fs::create_dir(root.join("src")).expect("mkdir");
    std::fs::copy(fixture(), root.join(HISTORY)).expect("copy");
    let cwd = root.join("src");
    let run = |args: &[&str], stdin: &[u8]| run_in(&cwd, home.path(), &[], args, stdin);

    let list = stdout_json(&run(&["candidates"], b""));
    assert_eq!(ids(&list), [FIRST, SECOND, LAST]);
    let first = find(&list, FIRST);
    assert_eq!(
        json!({"label": first["label"], "cwd": first["cwd"], "createdAt": first["createdAt"]}),
        json!({
            "label": "Fix the bug in main and add a test",
            "cwd": root.to_str(),
            "createdAt": 1_735_812_000_000u64,
        })
    );

    let status = stdout_json(&run(&["status"], b""));
    let aider = store_status(&status, "aider");
    assert_eq!(aider["path"], root.join(HISTORY).to_str().expect("UTF-8"));
    assert_eq!(aider["sessions"], 3);
    assert_eq!(aider["skippedLines"], 0);
    assert_eq!(aider["errors"], json!([]));
    assert_eq!(
        notes(&status),
        [".aider.chat.history.md#2025-01-02T10:00:00~3: skipped, not a session: no user or assistant message"]
    );

    let mention = first["mention"].as_str().expect("a mention");
    let prepared = stdout_json(&run(&["prepare"], format!("Continue {mention}").as_bytes()));
    let snapshot = snapshots(&prepared);
    assert_eq!(snapshot[0]["sessionId"], FIRST);
    assert_eq!(snapshot[0]["capturedThroughSeq"], 27);
    let conversation: Vec<(&str, &str)> = snapshot[0]["conversation"]
        .as_array()
        .expect("conversation")
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default(),
                m["text"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        conversation,
        [
            ("user", "/add src/main.rs"),
            ("user", "Fix the bug in main\nand add a test"),
            (
                "assistant",
                "I found the bug.\n\n# Plan\n1. Fix it\n\n```rust\nfn main() {}\n```"
            ),
            ("assistant", "More text after the tokens line."),
        ]
    );

    // What a run said is found by search, with the agent's name.
    let hits = stdout_json(&run(&["search", "tokens line"], b""));
    assert_eq!(hits[0]["sessionId"], FIRST);
    assert_eq!(hits[0]["agent"], "aider");
}

/// A working directory with its own history below a git root with
/// another: both, the working directory's first; a folder without either
/// has no aider store.
#[test]
fn the_working_directory_then_its_git_root() {
    let home = tempfile::tempdir().expect("temp dir");
    let project = tempfile::tempdir().expect("temp dir");
    let root = project.path();
    std::fs::create_dir(root.join(".git")).expect("mkdir");
    let app = root.join("app");
    std::fs::create_dir(&app).expect("mkdir");
    std::fs::copy(fixture(), root.join(HISTORY)).expect("copy");
    std::fs::write(
        app.join(HISTORY),
        "\n# aider chat started at 2025-02-01 09:00:00\n\n#### in the app folder  \n\nDone.\n\n",
    )
    .expect("write");
    let status = stdout_json(&run_in(&app, home.path(), &[], &["status"], b""));
    let paths: Vec<&str> = status["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .filter(|s| s["format"] == "aider")
        .map(|s| s["path"].as_str().unwrap_or_default())
        .collect();
    let expected = [app.join(HISTORY), root.join(HISTORY)];
    let expected: Vec<&str> = expected
        .iter()
        .map(|p| p.to_str().unwrap_or_default())
        .collect();
    assert_eq!(paths, expected);
    let list = stdout_json(&run_in(&app, home.path(), &[], &["candidates"], b""));
    let app_run = find(&list, "aider:.aider.chat.history.md#2025-02-01T09:00:00");
    assert_eq!(app_run["cwd"], app.to_str().expect("UTF-8"));
    assert_eq!(app_run["label"], "in the app folder");
    assert_eq!(ids(&list).len(), 4);

    let elsewhere = tempfile::tempdir().expect("temp dir");
    let status = stdout_json(&run_in(
        elsewhere.path(),
        home.path(),
        &[],
        &["status"],
        b"",
    ));
    assert!(status["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .all(|s| s["format"] != "aider"));
}

/// The shared real files as a folder store: format `aider` and `auto`
/// read every history below the root, each file's runs by their path.
#[test]
fn a_folder_store_reads_every_history_below_it() {
    let Some(store) = real_logs::store_of("aider", &["Simple-Calulator", "note_app"]) else {
        return;
    };
    let home = tempfile::tempdir().expect("temp dir");
    let cwd = tempfile::tempdir().expect("temp dir");
    let dir = store.path().to_str().expect("UTF-8 path");
    let calculator = "aider:Simple-Calulator/.aider.chat.history.md#2025-05-04T17:02:36";
    for format in [&["--store-format", "aider"][..], &[][..]] {
        let run = |command: &str| {
            let mut args = vec![command, "--store", dir];
            args.extend_from_slice(format);
            stdout_json(&run_in(cwd.path(), home.path(), &[], &args, b""))
        };
        let list = run("candidates");
        assert_eq!(ids(&list), [calculator], "{format:?}");
        assert_eq!(
            find(&list, calculator)["label"],
            "give me a quick summarized overview of this repo"
        );
        let status = run("status");
        let name = if format.is_empty() { "auto" } else { "aider" };
        assert_eq!(store_status(&status, name)["sessions"], 1);
        assert_eq!(
            notes(&status),
            ["note_app/.aider.chat.history.md#2026-06-21T02:24:48: skipped, not a session: no user or assistant message"]
        );
    }
    let list = stdout_json(&run_in(
        cwd.path(),
        home.path(),
        &[],
        &["candidates", "--store", dir],
        b"",
    ));
    let mention = find(&list, calculator)["mention"]
        .as_str()
        .expect("a mention")
        .to_string();
    let prepared = stdout_json(&run_in(
        cwd.path(),
        home.path(),
        &[],
        &["prepare", "--store", dir, "--store-format", "aider"],
        format!("Continue {mention}").as_bytes(),
    ));
    let snapshot = snapshots(&prepared);
    assert_eq!(snapshot[0]["sessionId"], calculator);
    assert_eq!(
        snapshot[0]["cwd"],
        store
            .path()
            .join("Simple-Calulator")
            .to_str()
            .expect("UTF-8")
    );
    assert!(snapshot[0]["conversation"]
        .as_array()
        .expect("conversation")
        .iter()
        .all(|m| !m["text"].as_str().unwrap_or_default().starts_with("> ")));
}
