//! The store is watched: new sessions, new titles, and a store that
//! vanishes and comes back, all without a restart.
//!
//! File events arrive when they arrive, so each test polls with a deadline
//! instead of sleeping a fixed time.

use crate::lsp_common;

use std::io::Write;
use std::time::Duration;

use lsp_common::*;
use serde_json::{json, Value};
use tokio::time::Instant;

const DOC: &str = "/home/ana/shop/prompt.md";

async fn labels(client: &mut InProcess) -> Vec<String> {
    let got = client
        .call("textDocument/completion", json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": 0, "character": 1}}))
        .await;
    got["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["label"].as_str().map(String::from))
        .collect()
}

/// Polls completion until `pred` holds on its labels.
async fn until(
    client: &mut InProcess,
    what: &str,
    pred: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let got = labels(client).await;
        if pred(&got) {
            return got;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting until {what}; labels: {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_session_written_after_initialize_is_offered() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client.open(&file_uri(DOC), "@").await;
    assert_eq!(labels(&mut client).await.len(), 4);
    LogBuilder::new("fresh", 1_764_400_009_000, Some("/home/ana/shop"))
        .user("new")
        .title("Fresh work")
        .write(&store.path().join("fresh.jsonl"));
    let got = until(&mut client, "the new session shows", |l| {
        l.iter().any(|x| x == "Fresh work")
    })
    .await;
    assert_eq!(got[0], "Fresh work");
    // In a new directory too.
    LogBuilder::new("deeper", 1_764_400_010_000, Some("/home/ana/shop"))
        .title("Deeper")
        .write(&store.path().join("new/dir/deeper.jsonl"));
    until(&mut client, "the session in a new directory shows", |l| {
        l.iter().any(|x| x == "Deeper")
    })
    .await;
}

#[tokio::test]
async fn an_appended_title_changes_the_label() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client.open(&file_uri(DOC), "@").await;
    assert!(labels(&mut client)
        .await
        .iter()
        .any(|l| l == "deploy-2026-11-28"));
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(store.path().join("ops/deploy.jsonl"))
        .expect("open");
    writeln!(
        log,
        "{}",
        json!({"seq": 3, "type": "session/title", "data": {"title": "Staging deploy"}})
    )
    .expect("append");
    drop(log);
    until(&mut client, "the new title shows", |l| {
        l.iter().any(|x| x == "Staging deploy")
    })
    .await;
}

#[tokio::test]
async fn diagnostics_follow_the_store() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    client.open(&uri, &mention("later", "Later")).await;
    let before = client.diagnostics(&uri, 1).await;
    assert_eq!(before[0]["code"], "SESSION_REFERENCE_READ_FAILED");
    LogBuilder::new("later", 1, None)
        .user("now here")
        .write(&store.path().join("later.jsonl"));
    let cleared = client
        .wait_for("diagnostics without the read failure", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["diagnostics"] == json!([])
        })
        .await;
    assert_eq!(cleared["params"]["version"], 1);
}

#[tokio::test]
async fn a_store_that_vanishes_is_empty_and_comes_back() {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = parent.path().join("sessions");
    LogBuilder::new("one", 1, None)
        .title("One")
        .write(&root.join("one.jsonl"));
    let (mut client, _server) = in_process();
    client.start(&root, "/home/ana/shop").await;
    client.open(&file_uri(DOC), "@").await;
    assert_eq!(labels(&mut client).await, ["One"]);
    std::fs::remove_dir_all(&root).expect("remove");
    until(&mut client, "the store is empty", |l| l.is_empty()).await;
    // Still serving everything.
    let hover = client
        .call("textDocument/hover", json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": 0, "character": 0}}))
        .await;
    assert_eq!(hover, Value::Null);
    LogBuilder::new("two", 2, None)
        .title("Two")
        .write(&root.join("two.jsonl"));
    until(&mut client, "the recreated store shows", |l| l == ["Two"]).await;
}

#[tokio::test]
async fn a_log_written_all_the_time_still_gets_diagnostics_published() {
    let store = demo_store();
    let path = store.path().join("busy.jsonl");
    LogBuilder::new("busy", 1, None)
        .user(&"x".repeat(100))
        .write(&path);
    let (mut client, _server) = in_process();
    client
        .initialize(json!({
            "capabilities": {},
            "initializationOptions": {"store": store.path(), "maxReferenceBytes": 400},
        }))
        .await;
    let uri = file_uri(DOC);
    client.open(&uri, &mention("busy", "Busy")).await;
    let first = client.diagnostics(&uri, 1).await;
    // An agent appending a message every 20 ms, until told to stop.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut log = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .expect("open");
            let deadline = std::time::Instant::now() + PATIENCE;
            let mut seq = 1;
            while !stop.load(std::sync::atomic::Ordering::SeqCst)
                && std::time::Instant::now() < deadline
            {
                seq += 1;
                let event = json!({"seq": seq, "type": "user/message", "data": {"source": {"kind": "user"}, "content": [{"type": "text", "text": "y".repeat(100)}]}});
                writeln!(log, "{event}").expect("append");
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let newer = client
        .wait_for("diagnostics for the growing log", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["diagnostics"] != first
        })
        .await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = writer.join();
    assert_eq!(
        newer["params"]["diagnostics"][0]["code"],
        "SESSION_REFERENCE_TRUNCATED"
    );
}

/// Issue 27 item 15, over the binary's stdio: a whole document (Gemini
/// CLI's, Copilot Chat's) seen half-written and then completed in place
/// under a stamp that cannot tell (`lsp_common::in_place`) is offered
/// once its write is heard. Another document written after each step is
/// the sign that the server has seen that step.
#[tokio::test]
async fn a_document_completed_in_place_under_an_equal_stamp_is_offered() {
    use lsp_common::in_place::{documents, InPlace};
    for i in 0..2 {
        let store = tempfile::tempdir().expect("tempdir");
        let root = store.path();
        let (format, path, text) = documents(root, "whole", "the whole doc").swap_remove(i);
        let (mut client, _child) = spawn(server_command());
        client.start(root, "/home/ana/shop").await;
        client.open(&file_uri(DOC), "@").await;
        let mut doc = InPlace::half(&path, &text);
        let (_, one, one_text) = documents(root, "one", "first sign").swap_remove(i);
        std::fs::write(one, one_text).expect("write");
        let got = offered_once(&mut client, "first sign").await;
        assert!(
            !got.iter().any(|l| l == "the whole doc"),
            "{format}: {got:?}"
        );
        assert!(
            doc.complete(),
            "the completion must leave the stat as it was (the case under test)"
        );
        let (_, two, two_text) = documents(root, "two", "second sign").swap_remove(i);
        std::fs::write(two, two_text).expect("write");
        let got = offered_once(&mut client, "second sign").await;
        assert!(
            got.iter().any(|l| l == "the whole doc"),
            "{format}: the completed document is not offered: {got:?}"
        );
        client.shutdown_and_exit().await;
    }
}

/// Completion's labels once one is `label` (polled, with a deadline).
async fn offered_once(client: &mut ProcessClient, label: &str) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let got = client
            .call("textDocument/completion", json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": 0, "character": 1}}))
            .await;
        let labels: Vec<String> = got["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["label"].as_str().map(String::from))
            .collect();
        if labels.iter().any(|l| l == label) {
            return labels;
        }
        assert!(
            Instant::now() < deadline,
            "{label} never offered: {labels:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
