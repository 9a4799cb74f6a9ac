//! Hostile input at the protocol edge (issue 10), against the built binary
//! over stdio: nothing a client sends may stop the server from answering
//! `status`, `shutdown`, `exit` or EOF.

mod lsp_common;

use std::process::Stdio;
use std::time::Duration;

use lsp_common::*;
use serde_json::{json, Value};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

type ProcessClient = TestClient<ChildStdout, ChildStdin>;

fn spawn(store: &std::path::Path) -> (ProcessClient, Child) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .env("HYDRA_SESSION_STORE", store)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (TestClient::new(stdout, stdin), child)
}

/// The exit status, failing the test when the process does not end within
/// `patience`.
async fn exit_status(child: &mut Child, patience: Duration) -> Option<i32> {
    let exit = tokio::time::timeout(patience, child.wait())
        .await
        .expect("the server exits promptly");
    exit.expect("wait").code()
}

/// Issue 10 item 2: `"@[a](hydra-session:" × n` was quadratic (a 380 KB
/// document cost ~19 s of CPU per open in a release build, far more in a
/// test build), hover scanned on the async workers, and `status` stopped
/// answering. Now the open, a hover and `status` are all answered at once.
#[tokio::test]
async fn a_document_of_unclosed_mentions_does_not_stall_the_server() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri("/home/ana/shop/hostile.md");
    let text = "@[a](hydra-session:".repeat(20_000);
    client.open(&uri, &text).await;
    let started = std::time::Instant::now();
    let hover = client
        .send_request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 190_000}}),
        )
        .await;
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["sessions"], 4);
    let hover = client.response(hover).await;
    assert_eq!(hover["result"], Value::Null, "{hover}");
    assert_eq!(client.diagnostics(&uri, 1).await, json!([]));
    // A hang guard, not a timing goal (the benches hold those): before the
    // fix this took minutes in a test build.
    assert!(started.elapsed() < Duration::from_secs(10));
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Issue 10 item 7: `sessionReference/prepare` of a document that is not
/// open followed `file:///dev/zero` and grew to gigabytes.
#[tokio::test]
async fn prepare_of_an_unopened_device_fails_at_once() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    for uri in ["file:///dev/zero", "file:///"] {
        let response = client
            .request(
                "sessionReference/prepare",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        assert_eq!(response["error"]["code"], -32602, "{response}");
        let message = response["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("not a regular file"), "{message}");
    }
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}
