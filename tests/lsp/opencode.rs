//! An OpenCode store in the language server: the database of
//! `tests/fixtures/opencode/opencode.sql` named with the `opencode`
//! format; its session completes, hovers and counts in status, each
//! detail naming the agent.

use crate::lsp_common;

use lsp_common::*;
use rusqlite::Connection;
use serde_json::{json, Value};

const ID: &str = "ses_4c2d8e10affeQwErTyUiOpAsDf";
const DOC: &str = "/home/ana/shop/prompt.md";

/// OpenCode's data folder holding the fixture's database (not in WAL
/// mode: OpenCode is not running, and the store reads it immutable).
fn opencode_data() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let sql = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/opencode/opencode.sql"
    ))
    .expect("fixture");
    Connection::open(dir.path().join("opencode.db"))
        .and_then(|c| c.execute_batch(&sql))
        .expect("database");
    dir
}

async fn start(client: &mut InProcess, data: &std::path::Path) {
    client
        .initialize(json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/home/ana/shop"), "name": "ws"}],
            "initializationOptions": {"hydraSession": {
                "store": [{"path": data, "format": "opencode"}],
                "spillDir": "",
            }},
        }))
        .await;
}

#[tokio::test]
async fn an_opencode_session_completes_hovers_and_counts_in_status() {
    let data = opencode_data();
    let (mut client, _server) = in_process();
    start(&mut client, data.path()).await;
    client.open(&file_uri(DOC), "@Round").await;
    let got = client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": 0, "character": 6}}),
        )
        .await;
    let item = &got["items"][0];
    assert_eq!(item["label"], "Round tax per line, not per cart", "{got}");
    let detail = item["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("OpenCode · /home/ana/shop · same workspace · "),
        "{detail}"
    );
    let inserted = item["textEdit"]["newText"].as_str().unwrap_or_default();
    assert_eq!(inserted, mention(ID, "Round tax per line, not per cart"));

    let text = format!("see {inserted}");
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": file_uri(DOC), "version": 2},
                   "contentChanges": [{"text": text}]}),
        )
        .await;
    let hover = client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": 0, "character": 6}}),
        )
        .await;
    let value = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        value.starts_with("**Round tax per line, not per cart** · OpenCode\n\n"),
        "{value}"
    );
    // The reverted prompt is not what prepare would take.
    assert!(value.contains("- capturedThroughSeq: 3\n"), "{value}");
    assert!(
        value.contains("- **assistant:** `Done: tax::total rounds each line.`"),
        "{value}"
    );
    assert!(!value.contains("Undone"), "{value}");

    let status: Value = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["stores"][0]["format"], "opencode", "{status}");
    assert_eq!(status["stores"][0]["sessions"], 1);
    // Nothing was created beside the database.
    let names: Vec<String> = std::fs::read_dir(data.path())
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["opencode.db"]);
}
