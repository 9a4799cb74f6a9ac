//! Initialize, settings, bad input, and the exit status, in process.

use crate::lsp_common;

use std::time::Duration;

use lsp_common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn initialize_negotiates_utf8_and_lists_every_capability() {
    let (mut client, _server) = in_process();
    let result = client
        .initialize(
            json!({"capabilities": {"general": {"positionEncodings": ["utf-16", "utf-8"]}}}),
        )
        .await;
    assert_eq!(
        result,
        json!({
            "capabilities": {
                "positionEncoding": "utf-8",
                "textDocumentSync": {"openClose": true, "change": 2},
                "completionProvider": {"triggerCharacters": ["@"], "resolveProvider": true},
                "hoverProvider": true,
                "workspaceSymbolProvider": true,
                "codeActionProvider": {"codeActionKinds": ["quickfix"], "resolveProvider": false},
                "documentLinkProvider": {"resolveProvider": false},
                "workspace": {"workspaceFolders": {"supported": true, "changeNotifications": true}},
                "experimental": {"sessionReference": {"methods": [
                    "sessionReference/prepare", "sessionReference/candidates",
                    "sessionReference/pickCandidates", "sessionReference/files",
                    "sessionReference/status", "sessionReference/search",
                    "sessionReference/publish"
                ]}}
            },
            "serverInfo": {"name": "hydra-session-lsp", "version": env!("CARGO_PKG_VERSION")}
        })
    );
}

#[tokio::test]
async fn utf16_is_the_default_encoding() {
    let (mut client, _server) = in_process();
    let result = client
        .initialize(json!({"capabilities": {"general": {"positionEncodings": ["utf-32"]}}}))
        .await;
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
}

#[tokio::test]
async fn requests_before_initialize_are_refused_and_the_server_keeps_serving() {
    let (mut client, _server) = in_process();
    let early = client.request("textDocument/hover", json!({})).await;
    assert_eq!(early["error"]["code"], -32002);
    let result = client.initialize(json!({"capabilities": {}})).await;
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
}

#[tokio::test]
async fn malformed_json_and_unknown_methods_get_errors_not_a_crash() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;

    client
        .send_raw(b"Content-Length: 9\r\n\r\n{\"jsonrp}")
        .await;
    let parse_error = client
        .wait_for("a parse error", |m| m["error"]["code"] == -32700)
        .await;
    assert_eq!(parse_error["id"], Value::Null);

    let unknown = client.request("nothing/here", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601);
    client.notify("nothing/either", json!({})).await;

    let bad_params = client
        .request("sessionReference/candidates", json!({"textDocument": 3}))
        .await;
    assert_eq!(bad_params["error"]["code"], -32602);

    // Candidates wait for the first index; status does not.
    let uri = file_uri("/home/ana/shop/p.md");
    assert_eq!(count(&mut client, &uri).await, Some(4));
    let status = client.call("sessionReference/status", json!({})).await;
    let path = store.path().display().to_string();
    // server.md: `stores` lists every store of the list (issue 8).
    assert_eq!(
        status,
        json!({"store": path, "sessions": 4, "indexing": false, "stores": [
            {"path": path, "format": "auto", "sessions": 4, "skippedLines": 0, "errors": []}
        ], "notes": [], "notesOmitted": 0, "search": {
            "enabled": false, "bytes": 0, "sessions": 0, "behind": 0,
            "note": "search is off (the searchIndex setting is false)"
        }})
    );
}

#[tokio::test]
async fn exit_after_shutdown_is_status_0() {
    let (mut client, server) = in_process();
    client.initialize(json!({"capabilities": {}})).await;
    client.shutdown_and_exit().await;
    // The client keeps its end open: the server must not wait for EOF.
    let status = tokio::time::timeout(PATIENCE, server)
        .await
        .expect("exits promptly")
        .expect("joins");
    assert_eq!(status, 0);
    drop(client);
}

#[tokio::test]
async fn exit_without_shutdown_is_status_1() {
    let (mut client, server) = in_process();
    client.initialize(json!({"capabilities": {}})).await;
    client.notify("exit", Value::Null).await;
    let status = tokio::time::timeout(PATIENCE, server)
        .await
        .expect("exits promptly")
        .expect("joins");
    assert_eq!(status, 1);
    drop(client);
}

#[tokio::test]
async fn end_of_input_ends_the_server() {
    let (client, server) = in_process();
    drop(client);
    let status = tokio::time::timeout(PATIENCE, server)
        .await
        .expect("exits on EOF")
        .expect("joins");
    assert_eq!(status, 1);
}

#[tokio::test]
async fn settings_updates_keep_omitted_keys_and_bad_ones_are_rejected_whole() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri("/home/ana/shop/p.md");
    client.open(&uri, "").await;
    assert_eq!(count(&mut client, &uri).await, Some(4));

    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"candidateLimit": 2}}),
        )
        .await;
    assert_eq!(count(&mut client, &uri).await, Some(2));

    // One bad key rejects the whole update: the limit stays 2.
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"candidateLimit": 3, "maxReferences": 4}}}),
        )
        .await;
    let warning = client
        .wait_for("a warning", |m| m["method"] == "window/showMessage")
        .await;
    assert_eq!(warning["params"]["type"], 2);
    let message = warning["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("maxReferences must not exceed 3"),
        "{message}"
    );
    assert_eq!(count(&mut client, &uri).await, Some(2));

    // An update that leaves the limit out keeps it.
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"maxReferences": 1}}}),
        )
        .await;
    assert_eq!(count(&mut client, &uri).await, Some(2));
}

#[tokio::test]
async fn null_settings_pull_the_hydra_session_section() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client
        .initialize(json!({
            "capabilities": {"workspace": {"configuration": true}},
            "initializationOptions": {"store": store.path()},
        }))
        .await;
    let uri = file_uri("/home/ana/shop/p.md");
    client.configuration = json!({"candidateLimit": 1});
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": null}),
        )
        .await;
    let pull = client
        .wait_for("a configuration pull", |m| {
            m["method"] == "workspace/configuration"
        })
        .await;
    assert_eq!(
        pull["params"],
        json!({"items": [{"section": "hydraSession"}]})
    );
    // The pull is answered before the next request is read, but applied
    // asynchronously: poll until it shows.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let found = client
            .call(
                "sessionReference/candidates",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        if found.as_array().map(Vec::len) == Some(1) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the pulled settings never applied"
        );
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn bad_initialization_options_are_reported_after_initialized() {
    let (mut client, _server) = in_process();
    client
        .initialize(
            json!({"capabilities": {}, "initializationOptions": {"candidateLimit": "many"}}),
        )
        .await;
    let warning = client
        .wait_for("a warning", |m| m["method"] == "window/showMessage")
        .await;
    assert_eq!(warning["params"]["type"], 2);
}

#[tokio::test]
async fn progress_is_reported_while_the_first_index_is_built() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client
        .initialize(json!({
            "capabilities": {"window": {"workDoneProgress": true}},
            "initializationOptions": {"store": store.path()},
        }))
        .await;
    let create = client
        .wait_for("progress create", |m| {
            m["method"] == "window/workDoneProgress/create"
        })
        .await;
    let token = create["params"]["token"].clone();
    // (The search index has a progress of its own, after this one.)
    let begin = client
        .wait_for("progress begin", |m| {
            m["method"] == "$/progress" && m["params"]["token"] == token
        })
        .await;
    assert_eq!(begin["params"]["value"]["kind"], "begin");
    let end = client
        .wait_for("progress end", |m| {
            m["method"] == "$/progress" && m["params"]["token"] == token
        })
        .await;
    assert_eq!(
        end["params"]["value"],
        json!({"kind": "end", "message": "4 sessions"})
    );
}

#[tokio::test]
async fn store_warnings_go_to_log_message() {
    let store = demo_store();
    std::fs::write(store.path().join("broken.jsonl"), "not json\n").expect("write");
    let (mut client, _server) = in_process();
    client.start(store.path(), "/w").await;
    let log = client
        .wait_for("a log message", |m| m["method"] == "window/logMessage")
        .await;
    assert_eq!(log["params"]["type"], 2);
    let message = log["params"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("broken.jsonl: skipped"), "{message}");
    let _ = Duration::ZERO;
}

#[tokio::test]
async fn many_store_warnings_are_one_log_message_and_listed_in_status() {
    // Issue 18 item 18: 20,000 other `*.jsonl` files sent 20,000
    // notifications at startup.
    let store = demo_store();
    let files = 2_000;
    for i in 0..files {
        std::fs::write(
            store.path().join(format!("other-{i:04}.jsonl")),
            "not json\n",
        )
        .expect("write");
    }
    let (mut client, _server) = in_process();
    client.start(store.path(), "/w").await;
    let log = client
        .wait_for("a log message", |m| m["method"] == "window/logMessage")
        .await;
    let message = log["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!("{files} store warnings")),
        "{message}"
    );
    assert!(message.contains("sessionReference/status"), "{message}");
    // Candidates wait for the index: every note has been sent by then.
    let uri = file_uri("/home/ana/shop/p.md");
    assert_eq!(count(&mut client, &uri).await, Some(4));
    let more = client.drain("window/logMessage").await;
    assert_eq!(more.len(), 0, "{more:#?}");
    let status = client.call("sessionReference/status", json!({})).await;
    let first = status["notes"].as_array().cloned().unwrap_or_default();
    assert_eq!(first.len(), 100);
    assert_eq!(status["notesOmitted"], files - 100);
    assert!(
        first.iter().all(|n| n["kind"] == "notASession"
            && n["message"]
                .as_str()
                .is_some_and(|n| n.contains(": skipped, not a session"))),
        "{first:?}"
    );
}

async fn count(client: &mut InProcess, uri: &str) -> Option<usize> {
    let found = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    found.as_array().map(Vec::len)
}
