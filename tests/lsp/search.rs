//! The language server's search surfaces (issue 16): `workspace/symbol`
//! and `sessionReference/search`, over the demo store. The built binary
//! over stdio, with a cache folder of its own in its environment (the
//! other tests of this binary run servers in the process, so the process's
//! environment is not this test's to change).

use crate::lsp_common;

use lsp_common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn sessions_are_found_by_content_as_symbols_and_by_the_search_request() {
    let cache = tempfile::tempdir().expect("tempdir");
    let store = demo_store();
    let mut command = server_command();
    command.env("XDG_CACHE_HOME", cache.path());
    let (mut client, mut server) = spawn(command);
    client.start(store.path(), "/home/ana/shop").await;

    let found = client
        .call(
            "sessionReference/search",
            json!({"query": "regression tests", "limit": 3}),
        )
        .await;
    let hits = found.as_array().expect("a list");
    assert_eq!(hits[0]["sessionId"], "checkout-tax.test-writer");
    assert!(hits[0]["snippets"][0]["text"]
        .as_str()
        .is_some_and(|t| t.contains("regression tests")));
    assert!(cache.path().join("hydra-session/search").is_dir());
    // What a picker shows and inserts comes from the server: the one-line
    // title, agent · cwd · age, and the one-line mention.
    assert_eq!(hits[0]["label"], "test-writer");
    assert_eq!(
        hits[0]["insertText"],
        "@[test-writer](hydra-session:ImNoZWNrb3V0LXRheC50ZXN0LXdyaXRlciI)"
    );
    assert_eq!(hits[0]["insertText"], hits[0]["mention"]);
    // Created 2025-11-29: older than 30 days, so the age is the date.
    assert_eq!(hits[0]["detail"], "hydra · /home/ana/shop · 2025-11-29");

    let bad = client
        .request("sessionReference/search", json!({"query": "tax \"open"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(bad["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("malformed search query")));

    let symbols = client
        .call("workspace/symbol", json!({"query": "regression tests"}))
        .await;
    let first: &Value = &symbols[0];
    assert_eq!(first["name"], "test-writer");
    assert!(first["containerName"]
        .as_str()
        .is_some_and(|c| c.starts_with("hydra · /home/ana/shop · ")));
    assert!(first["location"]["uri"]
        .as_str()
        .is_some_and(|u| u.starts_with("file://") && u.ends_with(".jsonl")));
    let none = client.call("workspace/symbol", json!({"query": ""})).await;
    assert_eq!(none, json!([]));
    client.shutdown_and_exit().await;
    let status = server.wait().await.expect("the server's exit");
    assert!(status.success(), "{status}");
}

/// The watch → search path: a message appended to a log after the index
/// was built is found by the next searches, as soon as the store's watch
/// has seen it (polled with a deadline: file events come when they come).
#[tokio::test]
async fn a_message_appended_to_a_watched_log_becomes_searchable() {
    let cache = tempfile::tempdir().expect("tempdir");
    let store = demo_store();
    let log = store.path().join("growing.jsonl");
    let builder = LogBuilder::new("growing", 1_764_400_011_000, Some("/home/ana/shop"))
        .user("start the ledger")
        .assistant("ledger started");
    builder.write(&log);
    let mut command = server_command();
    command.env("XDG_CACHE_HOME", cache.path());
    let (mut client, mut server) = spawn(command);
    client.start(store.path(), "/home/ana/shop").await;
    let ids = |hits: &Value| -> Vec<String> {
        hits.as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["sessionId"].as_str().map(String::from))
            .collect()
    };
    let query = json!({"query": "ledger"});
    let found = client.call("sessionReference/search", query).await;
    assert_eq!(ids(&found), ["growing"]);
    let before = builder.text();
    let grown = builder
        .user("reconcile the quarterly zanzibarite totals")
        .text();
    {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .expect("open the log");
        file.write_all(&grown.as_bytes()[before.len()..])
            .expect("append");
    }
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let query = json!({"query": "zanzibarite"});
    loop {
        let found = client.call("sessionReference/search", query.clone()).await;
        if ids(&found) == ["growing"] {
            assert!(found[0]["snippets"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("quarterly zanzibarite")));
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the appended message was never found: {found}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    client.shutdown_and_exit().await;
    let _ = server.wait().await;
}
