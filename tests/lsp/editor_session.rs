//! The server started from an agent's external-editor route (Claude Code's
//! Ctrl+G): the session whose prompt is edited is `self`, so completion
//! leaves it out (README, "From an agent's prompt").

use crate::lsp_common;

use std::path::Path;
use std::process::Stdio;

use lsp_common::*;
use serde_json::{json, Value};
use tokio::process::Command;

/// A Claude Code transcript of one prompt.
fn transcript(id: &str) -> String {
    json!({
        "parentUuid": null, "isSidechain": false, "sessionId": id, "type": "user",
        "message": {"role": "user", "content": format!("Prompt of {id}")},
        "uuid": format!("{id}-u"), "timestamp": "2026-01-01T00:00:01.000Z", "cwd": "/w"
    })
    .to_string()
        + "\n"
}

async fn labels(claude_env: Option<(&Path, &Path)>, store: &Path) -> Vec<Value> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    command
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("CLAUDE_CODE_MESSAGING_SOCKET")
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    if let Some((claude, socket)) = claude_env {
        command
            .env("CLAUDE_CONFIG_DIR", claude)
            .env("CLAUDE_CODE_MESSAGING_SOCKET", socket);
    }
    let mut child = command.spawn().expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut client = TestClient::new(stdout, stdin);
    client
        .initialize(json!({
            "processId": null,
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/w"), "name": "w"}],
            "initializationOptions": {"hydraSession": {
                "store": [{"path": store, "format": "claude-code"}], "spillDir": ""
            }},
        }))
        .await;
    let doc = file_uri("/w/claude-prompt-1.md");
    client.open(&doc, "@").await;
    let list = client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": doc}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    client.shutdown_and_exit().await;
    let items = list["items"].as_array().cloned().unwrap_or_default();
    items.iter().map(|i| i["label"].clone()).collect()
}

#[tokio::test]
async fn completion_leaves_out_the_session_being_edited() {
    let dir = tempfile::tempdir().expect("temp dir");
    let projects = dir.path().join("projects/-w");
    std::fs::create_dir_all(&projects).expect("mkdir");
    for id in ["edited", "other"] {
        std::fs::write(projects.join(format!("{id}.jsonl")), transcript(id)).expect("write");
    }
    let claude = dir.path().join("claude");
    std::fs::create_dir_all(claude.join("sessions")).expect("mkdir");
    let socket = dir.path().join("cc-socks/4242.sock");
    std::fs::write(
        claude.join("sessions/4242.json"),
        json!({"pid": 4242, "sessionId": "edited",
               "messagingSocketPath": socket.display().to_string()})
        .to_string(),
    )
    .expect("write");
    let store = dir.path().join("projects");
    assert_eq!(
        labels(Some((&claude, &socket)), &store).await,
        [json!("Prompt of other")]
    );
    let mut all = labels(None, &store).await;
    all.sort_by_key(ToString::to_string);
    assert_eq!(all, [json!("Prompt of edited"), json!("Prompt of other")]);
}
