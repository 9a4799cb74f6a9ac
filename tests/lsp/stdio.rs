//! End to end: the built binary over stdio, as an editor runs it.

use crate::lsp_common;

use std::process::Stdio;

use lsp_common::*;
use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

type ProcessClient = TestClient<ChildStdout, ChildStdin>;

/// The server binary with `store` as its environment's store.
fn server(store: &std::ffi::OsStr) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    command
        .env("HYDRA_SESSION_STORE", store)
        // The agents' default stores must not leak in from the machine.
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

fn spawn(args: &[&str], store: &std::path::Path) -> (ProcessClient, Child) {
    let mut child = server(store.as_os_str())
        .args(args)
        .env("RUST_LOG", "debug")
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (TestClient::new(stdout, stdin), child)
}

async fn status(child: &mut Child) -> Option<i32> {
    let exit = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("the server exits promptly");
    exit.expect("wait").code()
}

#[tokio::test]
async fn a_whole_session_over_stdio_ends_with_status_0() {
    let store = demo_store();
    for args in [&[][..], &["--stdio"][..], &["lsp"][..]] {
        let (mut client, mut child) = spawn(args, store.path());
        let init = client
            .initialize(json!({
                "processId": null,
                "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                "workspaceFolders": [{"uri": file_uri("/home/ana/shop"), "name": "shop"}],
            }))
            .await;
        assert_eq!(
            init["capabilities"]["positionEncoding"], "utf-8",
            "{args:?}"
        );
        let uri = file_uri("/home/ana/shop/p.md");
        client.open(&uri, "Ask @inv").await;
        let completion = client
            .call(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 8}}),
            )
            .await;
        assert_eq!(
            completion["items"][0]["textEdit"],
            json!({
                "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 8}},
                "newText": mention("inventory-refactor", "Inventory refactor"),
            })
        );
        assert_eq!(client.diagnostics(&uri, 1).await, json!([]));
        // Exit with stdin still open: the process must not wait for EOF.
        client.shutdown_and_exit().await;
        assert_eq!(status(&mut child).await, Some(0), "{args:?}");
        // Logs went to stderr, never to stdout.
        let mut stderr = String::new();
        if let Some(mut err) = child.stderr.take() {
            let _ = err.read_to_string(&mut stderr).await;
        }
        assert!(stderr.contains("DEBUG"), "{stderr}");
        drop(client);
    }
}

#[tokio::test]
async fn exit_without_shutdown_is_status_1() {
    let store = demo_store();
    let (mut client, mut child) = spawn(&[], store.path());
    client.initialize(json!({"capabilities": {}})).await;
    client.notify("exit", Value::Null).await;
    assert_eq!(status(&mut child).await, Some(1));
    drop(client);
}

#[tokio::test]
async fn exit_before_initialize_is_status_1() {
    let store = demo_store();
    let (mut client, mut child) = spawn(&[], store.path());
    client.notify("exit", Value::Null).await;
    assert_eq!(status(&mut child).await, Some(1));
    drop(client);
}

#[tokio::test]
async fn end_of_stdin_ends_the_process() {
    let store = demo_store();
    let (mut client, mut child) = spawn(&[], store.path());
    client.initialize(json!({"capabilities": {}})).await;
    drop(client);
    assert_eq!(status(&mut child).await, Some(1));
}

#[tokio::test]
async fn garbage_on_stdin_is_answered_and_the_session_goes_on() {
    let store = demo_store();
    let (mut client, mut child) = spawn(&[], store.path());
    client.send_raw(b"Content-Length: 3\r\n\r\n{]}").await;
    client.send_raw(b"Content-Type: nothing\r\n\r\n").await;
    client
        .send(&json!({"jsonrpc": "1.0", "id": 5, "method": "initialize"}))
        .await;
    let parse = client
        .wait_for("a parse error", |m| m["error"]["code"] == -32700)
        .await;
    assert_eq!(parse["id"], Value::Null);
    let invalid = client
        .wait_for("an invalid request", |m| m["error"]["code"] == -32600)
        .await;
    assert_eq!(invalid["id"], 5);
    client.initialize(json!({"capabilities": {}})).await;
    let status_result = client.call("sessionReference/status", json!({})).await;
    assert_eq!(
        status_result["store"],
        json!(store.path().display().to_string())
    );
    client.shutdown_and_exit().await;
    assert_eq!(status(&mut child).await, Some(0));
}

/// One rule for both faces: a relative `$HYDRA_SESSION_STORE` is under the
/// process's current directory, for the CLI and for the server alike (the
/// server does not resolve it against its workspace folder).
#[tokio::test]
async fn a_relative_store_from_the_environment_is_resolved_alike() {
    let store = demo_store();
    let parent = store.path().parent().expect("parent");
    let name = store.path().file_name().expect("name");
    let mut child = server(name)
        .current_dir(parent)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut client: ProcessClient = TestClient::new(stdout, stdin);
    client
        .initialize(json!({
            "processId": null,
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/elsewhere"), "name": "w"}],
        }))
        .await;
    let uri = file_uri("/elsewhere/p.md");
    let _ = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let served = client.call("sessionReference/status", json!({})).await;
    client.shutdown_and_exit().await;

    let cache = tempfile::tempdir().expect("temp dir");
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(["candidates", "--cwd", "/elsewhere"])
        // The CLI's index cache: this test's own, never the user's.
        .env("XDG_CACHE_HOME", cache.path())
        .env("HYDRA_SESSION_STORE", name)
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .current_dir(parent)
        .output()
        .expect("cli runs");
    let listed: Value = serde_json::from_slice(&cli.stdout).expect("JSON");
    assert_eq!(served["store"], store.path().display().to_string());
    assert_eq!(served["sessions"], 4);
    assert_eq!(listed.as_array().map(Vec::len), Some(4));
}
