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
