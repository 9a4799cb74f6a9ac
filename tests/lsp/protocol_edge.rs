//! Protocol defects of the second hostile-input round (issue 18 items 1, 2
//! and 4), against the built binary over stdio: requests that must be
//! answered, a notification that must not shut anything down, and text
//! that must not be dropped.

use crate::lsp_common;

use std::process::Stdio;

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

async fn exit_status(child: &mut Child) -> Option<i32> {
    let exit = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("the server exits promptly");
    exit.expect("wait").code()
}

/// Sends `body` as it is: JSON that serde_json would never write (a lone
/// surrogate escape), as `JSON.stringify` does.
async fn send_text(client: &mut ProcessClient, body: &str) {
    let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    client.send_raw(framed.as_bytes()).await;
}

async fn candidate_count(client: &mut ProcessClient) -> Option<usize> {
    let uri = file_uri("/home/ana/shop/p.md");
    client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .as_array()
        .map(Vec::len)
}

/// Item 1: `$/setTrace` sent with an id was never answered and held a
/// request slot for good; forty of them, then a hover: the hover was never
/// answered. Now each gets MethodNotFound and the hover its answer.
#[tokio::test]
async fn dollar_requests_with_ids_are_answered_and_hold_no_slot() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    let mut ids = Vec::new();
    for _ in 0..40 {
        ids.push(
            client
                .send_request("$/setTrace", json!({"value": "off"}))
                .await,
        );
    }
    let unknown = client.send_request("$/hydra/unknown", json!({})).await;
    ids.push(unknown);
    for id in ids {
        let answer = client.response(id).await;
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
    let uri = file_uri("/home/ana/shop/p.md");
    client.open(&uri, "hello").await;
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    assert!(hover.get("error").is_none(), "{hover}");
    assert_eq!(hover["result"], Value::Null, "{hover}");
    assert_eq!(candidate_count(&mut client).await, Some(4));
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child).await, Some(0));
}

/// Item 1: `exit` sent with an id was never answered and did not end the
/// server. Now it ends it (status 1 without `shutdown`, as `exit` does).
#[tokio::test]
async fn exit_sent_as_a_request_ends_the_server() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    client.send_request("exit", Value::Null).await;
    // The client keeps its end open: the server must not wait for EOF.
    assert_eq!(exit_status(&mut child).await, Some(1));
    drop(client);

    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    let _ = client.call("shutdown", Value::Null).await;
    client.send_request("exit", Value::Null).await;
    assert_eq!(exit_status(&mut child).await, Some(0));
    drop(client);
}

/// Item 2: a `shutdown` notification (no id) shut request handling down:
/// every later request got −32600 while `status` still answered. Now it is
/// ignored: requests are served, and the real `shutdown` still counts.
#[tokio::test]
async fn a_shutdown_notification_shuts_nothing_down() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    client.notify("shutdown", Value::Null).await;
    assert_eq!(candidate_count(&mut client).await, Some(4));
    let uri = file_uri("/home/ana/shop/p.md");
    client.open(&uri, "hello").await;
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    assert!(hover.get("error").is_none(), "{hover}");
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child).await, Some(0));
}

/// The start column of the first diagnostic of `uri` at `version`.
async fn first_diagnostic_column(client: &mut ProcessClient, uri: &str, version: i64) -> Value {
    let diagnostics = client.diagnostics(uri, version).await;
    assert!(
        diagnostics.as_array().is_some_and(|d| !d.is_empty()),
        "version {version}: {diagnostics}"
    );
    diagnostics[0]["range"]["start"]["character"].clone()
}

/// Item 4: a `didOpen` or `didChange` holding a lone surrogate was a parse
/// error and dropped: the document was never opened, or the server's text
/// diverged from the editor's. Now the surrogate is read as U+FFFD (one
/// UTF-16 unit, as in the editor), so the text and its positions agree.
#[tokio::test]
async fn lone_surrogates_in_document_text_are_applied_as_replacement_characters() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri("/home/ana/shop/surrogate.md");
    // The editor's line: `a`, half an emoji, a space, then a mention of a
    // session the store does not hold: its URI, where the diagnostic is,
    // starts at column 8.
    let open = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{uri}","languageId":"markdown","version":1,"text":"a\ud83d @[x](hydra-session:ghost)"}}}}}}"#
    );
    send_text(&mut client, &open).await;
    assert_eq!(first_diagnostic_column(&mut client, &uri, 1).await, 8);
    // Another half emoji typed at the start: one more UTF-16 unit.
    let change = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{uri}","version":2}},"contentChanges":[{{"range":{{"start":{{"line":0,"character":0}},"end":{{"line":0,"character":0}}}},"text":"\udc00"}}]}}}}"#
    );
    send_text(&mut client, &change).await;
    assert_eq!(first_diagnostic_column(&mut client, &uri, 2).await, 9);
    // Deleting the first surrogate (one unit, columns 2..3 now) puts the
    // URI back at column 8: the server counted it as the editor does.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
                {"range": {"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 3}}, "text": ""}
            ]}),
        )
        .await;
    assert_eq!(first_diagnostic_column(&mut client, &uri, 3).await, 8);
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child).await, Some(0));
}

/// Issue 27 item 2: a request whose id lsp-server's `RequestId` cannot
/// hold (a number outside `i32`, a fraction, `null`, `true`, an object, an
/// array) got no answer at all. Every number or string id is echoed as
/// its JSON text, verbatim; an id no answer can carry gets −32600 with id
/// `null`.
#[tokio::test]
async fn every_request_id_is_answered_verbatim_or_refused() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};

    let store = demo_store();
    let (mut client, _child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri("/home/ana/shop/p.md");
    let candidates = format!(
        r#""method":"sessionReference/candidates","params":{{"textDocument":{{"uri":"{uri}"}}}}"#
    );
    let unknown = r#""method":"$/hydra/unknown","params":{}"#;
    let valid = [
        "2147483648",
        "-2147483649",
        "1.5",
        "1e3",
        "-0",
        "123456789012345678901234567890",
        r#""caf\u00e9""#,
        "7",
        r#""plain""#,
    ];
    let invalid = ["null", "true", "{\"a\":1}", "[1]"];
    for (n, id) in valid.iter().chain(&invalid).enumerate() {
        let method = if n % 2 == 0 { &candidates } else { unknown };
        send_text(
            &mut client,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},{method}}}"#),
        )
        .await;
    }
    // The answers, read as text: a JSON value would lose what is verbatim.
    let (mut reader, _writer) = client.into_parts();
    let mut echoed = Vec::new();
    let mut refused = 0;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while echoed.len() < valid.len() || refused < invalid.len() {
        let body = tokio::time::timeout_at(deadline, async {
            let mut length = 0;
            loop {
                let mut line = String::new();
                assert!(
                    reader.read_line(&mut line).await.expect("read") > 0,
                    "ended"
                );
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length:") {
                    length = v.trim().parse().expect("length");
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).await.expect("body");
            String::from_utf8(body).expect("UTF-8")
        })
        .await
        .expect("every request is answered");
        #[derive(serde::Deserialize)]
        struct Answer {
            #[serde(default)]
            id: Option<Box<serde_json::value::RawValue>>,
            #[serde(default)]
            method: Option<String>,
            #[serde(default)]
            error: Option<Value>,
        }
        let answer: Answer = serde_json::from_str(&body).expect("JSON");
        if answer.method.is_some() {
            continue;
        }
        // (`Option` reads `"id": null` as `None`.)
        match answer.id {
            Some(id) => echoed.push(id.get().to_string()),
            None => {
                assert!(body.contains(r#""id":null"#), "{body}");
                assert_eq!(answer.error.expect("an error")["code"], -32600, "{body}");
                refused += 1;
            }
        }
    }
    echoed.sort();
    let mut expected: Vec<String> = valid.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(echoed, expected);
    assert_eq!(refused, invalid.len());
}
