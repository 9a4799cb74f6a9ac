//! Aider's histories as default stores of the language server: found
//! through the workspace folders (each folder, then its git root), and
//! found again when the folders change. The built binary, with a fresh
//! HOME and no store variable, so only the workspace's histories are read.

use crate::lsp_common;

use lsp_common::*;
use serde_json::{json, Value};

const HISTORY: &str = ".aider.chat.history.md";

/// Every variable that names a store or moves an agent's default one.
const STORE_VARIABLES: &[&str] = &[
    "HYDRA_SESSION_STORE",
    "HYDRA_HOME",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "CURSOR_CONFIG_DIR",
];

fn history(stamp: &str, prompt: &str) -> String {
    format!("\n# aider chat started at {stamp}\n\n#### {prompt}  \n\nA reply.\n\n")
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

async fn candidates(client: &mut ProcessClient, doc: &str) -> Value {
    client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": doc}}),
        )
        .await
}

#[tokio::test]
async fn histories_are_found_through_the_workspace_folders() {
    let home = tempfile::tempdir().expect("temp dir");
    let project = tempfile::tempdir().expect("temp dir");
    let root = project.path();
    std::fs::create_dir(root.join(".git")).expect("mkdir");
    let app = root.join("app");
    std::fs::create_dir(&app).expect("mkdir");
    std::fs::write(
        root.join(HISTORY),
        history("2025-03-01 10:00:00", "at the git root"),
    )
    .expect("write");
    let other = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        other.path().join(HISTORY),
        history("2025-03-02 10:00:00", "in another folder"),
    )
    .expect("write");

    let mut command = server_command();
    command.env("HOME", home.path());
    for variable in STORE_VARIABLES {
        command.env_remove(variable);
    }
    let (mut client, _child) = spawn(command);
    let app_uri = file_uri(app.to_str().expect("UTF-8 path"));
    client
        .initialize(json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {},
            "workspaceFolders": [{"uri": app_uri, "name": "app"}],
            "initializationOptions": {"hydraSession": {"spillDir": "", "searchIndex": false}},
        }))
        .await;
    let doc = format!("{app_uri}/prompt.md");
    let list = candidates(&mut client, &doc).await;
    assert_eq!(
        ids(&list),
        ["aider:.aider.chat.history.md#2025-03-01T10:00:00"],
        "{list}"
    );
    let status = client.call("sessionReference/status", json!({})).await;
    let aider: Vec<&Value> = status["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .filter(|s| s["format"] == "aider")
        .collect();
    assert_eq!(aider.len(), 1, "{status}");
    assert_eq!(
        aider[0]["path"],
        root.join(HISTORY).to_str().expect("UTF-8")
    );
    assert_eq!(aider[0]["sessions"], 1);

    // A run Aider appends while the server runs shows (the store of one
    // file watches its folder; a write to the history is read as an
    // append).
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join(HISTORY))
        .expect("open");
    std::io::Write::write_all(
        &mut file,
        history("2025-03-01 11:00:00", "appended later").as_bytes(),
    )
    .expect("append");
    drop(file);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let list = candidates(&mut client, &doc).await;
        if ids(&list).len() == 2 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the appended run never showed: {list}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // Another folder: its history is a store too.
    client
        .notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {
                "added": [{"uri": file_uri(other.path().to_str().expect("UTF-8")), "name": "other"}],
                "removed": [],
            }}),
        )
        .await;
    let list = candidates(&mut client, &doc).await;
    assert_eq!(
        ids(&list),
        [
            "aider:.aider.chat.history.md#2025-03-01T10:00:00",
            "aider:.aider.chat.history.md#2025-03-01T11:00:00",
            "aider:.aider.chat.history.md#2025-03-02T10:00:00",
        ],
        "{list}"
    );
    client.shutdown_and_exit().await;
}
