//! Issue 27, items 16 and 17: the side files beside a session's log
//! (Gemini's `.project_root`, Copilot CLI's `workspace.yaml`, Copilot
//! Chat's `workspace.json`) as a FIFO, which once hung `candidates` for
//! ever, and as a link to a file outside the store, whose content once
//! became the session's cwd or title. Each run is given 60 s by
//! `timeout` (a hang is a failure with status 124, not a stuck suite).

#![cfg(unix)]

use crate::support::stdout_json;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `candidates` with `home` as HOME and nothing else, under `timeout`.
fn candidates(home: &Path) -> Output {
    let mut command = Command::new("timeout");
    command
        .args(["60", env!("CARGO_BIN_EXE_hydra-session-lsp"), "candidates"])
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join("cache"));
    let output = command.stdin(Stdio::null()).output().expect("timeout runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "status {:?} (124: it hung): {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn fifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
}

/// A file outside the store, and a link to it at `at`.
fn link_outside(outside: &Path, text: &str, at: &Path) {
    let target = outside.join("secret");
    std::fs::write(&target, text).expect("write");
    std::os::unix::fs::symlink(&target, at).expect("symlink");
}

fn only_row(list: &Value) -> &Value {
    let rows = list.as_array().expect("a list");
    assert_eq!(rows.len(), 1, "{list}");
    &rows[0]
}

/// A Gemini project `shop` with one session; `.project_root` is left to
/// the caller.
fn gemini_project(home: &Path) -> std::path::PathBuf {
    let project = home.join(".gemini/tmp/shop");
    let chats = project.join("chats");
    std::fs::create_dir_all(&chats).expect("dirs");
    std::fs::write(
        chats.join("session-2026-08-20T10-00-5e551017.jsonl"),
        concat!(
            r#"{"sessionId":"5e551017-0000-4000-8000-000000000001","projectHash":"h","startTime":"2026-08-20T10:00:00.000Z","kind":"main"}"#,
            "\n",
            r#"{"id":"u1","type":"user","content":"Total the cart"}"#,
            "\n"
        ),
    )
    .expect("log");
    project
}

const COPILOT_ID: &str = "4b7c9e21-0d3a-4f5e-8a61-93c2d7e0f118";

/// The fixture's Copilot CLI session under `home`, without its
/// `workspace.yaml`; returns the session folder.
fn copilot_cli_session(home: &Path) -> std::path::PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/copilot-cli/session-state")
        .join(COPILOT_ID);
    let to = home.join(".copilot/session-state").join(COPILOT_ID);
    std::fs::create_dir_all(&to).expect("mkdir");
    std::fs::copy(from.join("events.jsonl"), to.join("events.jsonl")).expect("copy");
    to
}

const CHAT_WORKSPACE: &str = "9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const CHAT_LOG: &str = "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b.jsonl";

/// The fixture's Copilot Chat log in a VS Code workspace folder under
/// `home`, without its `workspace.json`; returns the workspace folder.
fn copilot_chat_workspace(home: &Path) -> std::path::PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/copilot-chat/User/workspaceStorage")
        .join(CHAT_WORKSPACE);
    let workspace = home
        .join(".config/Code/User/workspaceStorage")
        .join(CHAT_WORKSPACE);
    std::fs::create_dir_all(workspace.join("chatSessions")).expect("mkdir");
    std::fs::copy(
        from.join("chatSessions").join(CHAT_LOG),
        workspace.join("chatSessions").join(CHAT_LOG),
    )
    .expect("copy");
    workspace
}

#[test]
fn a_fifo_as_a_side_file_is_read_as_absent_at_once() {
    let home = tempfile::tempdir().expect("temp dir");
    fifo(&gemini_project(home.path()).join(".project_root"));
    fifo(&copilot_cli_session(home.path()).join("workspace.yaml"));
    fifo(&copilot_chat_workspace(home.path()).join("workspace.json"));
    let list = stdout_json(&candidates(home.path()));
    let rows = list.as_array().expect("a list");
    assert_eq!(rows.len(), 3, "{list}");
    for row in rows {
        // Copilot CLI's own log names its cwd; the others have none.
        let from_log = row["sessionId"] == COPILOT_ID;
        assert_eq!(row["cwd"].is_null(), !from_log, "{row}");
    }
}

#[test]
fn a_side_file_linked_outside_the_store_is_not_followed() {
    let home = tempfile::tempdir().expect("temp dir");
    let outside = tempfile::tempdir().expect("temp dir");
    let gemini = tempfile::tempdir().expect("temp dir");
    link_outside(
        outside.path(),
        "/etc/secret-root\n",
        &gemini_project(gemini.path()).join(".project_root"),
    );
    let row = stdout_json(&candidates(gemini.path()));
    assert!(only_row(&row)["cwd"].is_null(), "{row}");

    let copilot = tempfile::tempdir().expect("temp dir");
    let cli_outside = tempfile::tempdir().expect("temp dir");
    link_outside(
        cli_outside.path(),
        "cwd: /etc/secret-root\nname: Stolen title\nuser_named: true\n",
        &copilot_cli_session(copilot.path()).join("workspace.yaml"),
    );
    let list = stdout_json(&candidates(copilot.path()));
    let row = only_row(&list);
    assert_ne!(row["cwd"], "/etc/secret-root", "{row}");
    assert_ne!(row["label"], "Stolen title", "{row}");

    let chat_outside = tempfile::tempdir().expect("temp dir");
    link_outside(
        chat_outside.path(),
        r#"{"folder": "file:///etc/secret-root"}"#,
        &copilot_chat_workspace(home.path()).join("workspace.json"),
    );
    let list = stdout_json(&candidates(home.path()));
    assert!(only_row(&list)["cwd"].is_null(), "{list}");
}
