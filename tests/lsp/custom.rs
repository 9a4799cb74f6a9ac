//! The custom requests: `sessionReference/prepare`, `candidates`, `status`.

use crate::lsp_common;

use expect_test::expect;
use hydra_session_lsp::model::SessionStore;
use hydra_session_lsp::proto::ext;
use hydra_session_lsp::reference::budget::BudgetSetting;
use hydra_session_lsp::reference::candidates::Target;
use hydra_session_lsp::reference::prepare::{prepare_text, PrepareOptions};
use hydra_session_lsp::reference::table::candidates;
use hydra_session_lsp::store::FsStore;
use lsp_common::*;
use serde_json::{json, Value};

const DOC: &str = "/home/ana/shop/prompt.md";

fn prompt() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/prompt.md"))
        .expect("prompt")
}

/// The core's own prepare result, as JSON (the wire shape the CLI prints).
fn core_prepare(store: &std::path::Path, text: &str, target: Option<&str>) -> Value {
    let catalog = FsStore::scan(store);
    let options = PrepareOptions {
        target,
        max_references: 3,
        max_reference_bytes: BudgetSetting::Auto,
    };
    let prepared = prepare_text(text, options, &catalog, None, &|| false).expect("prepares");
    serde_json::to_value(ext::Prepared::from(prepared)).expect("json")
}

#[tokio::test]
async fn prepare_is_the_core_result_for_the_current_text() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    client.open(&uri, "draft").await;
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": prompt()}]}),
        )
        .await;
    let got = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert_eq!(got, core_prepare(store.path(), &prompt(), None));
    assert_eq!(
        got["additionalContext"]["source"]["references"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    // What the three references are, field by field (the core agreeing
    // with itself above would not notice a field both lost).
    let references =
        serde_json::to_string_pretty(&got["additionalContext"]["source"]["references"])
            .expect("json");
    expect![[r#"
        [
          {
            "capturedFormatVersion": 1,
            "capturedThroughSeq": 8,
            "compacted": true,
            "inputIndex": 0,
            "label": "Checkout tax rounding",
            "omittedBytes": 0,
            "omittedMessages": 0,
            "originalMessages": 3,
            "retainedMessages": 3,
            "sessionId": "checkout-tax",
            "truncated": false
          },
          {
            "capturedFormatVersion": 1,
            "capturedThroughSeq": 3,
            "compacted": false,
            "inputIndex": 1,
            "label": "test-writer",
            "omittedBytes": 0,
            "omittedMessages": 0,
            "originalMessages": 2,
            "retainedMessages": 2,
            "sessionId": "checkout-tax.test-writer",
            "truncated": false
          },
          {
            "capturedFormatVersion": 1,
            "capturedThroughSeq": 122,
            "compacted": false,
            "inputIndex": 2,
            "label": "Inventory refactor",
            "omittedBytes": 28852,
            "omittedMessages": 39,
            "originalMessages": 121,
            "retainedMessages": 82,
            "sessionId": "inventory-refactor",
            "truncated": true
          }
        ]"#]]
    .assert_eq(&references);
}

#[tokio::test]
async fn prepare_text_format_is_the_cli_text_form() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    client.open(&uri, &prompt()).await;
    let got = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}, "format": "text"}),
        )
        .await;
    let core = core_prepare(store.path(), &prompt(), None);
    let context = core["additionalContext"]["content"][0]["text"]
        .as_str()
        .expect("context");
    let readable = core["content"][0]["text"].as_str().expect("text");
    let text = format!("{context}\n\n{}\n", readable.trim_end_matches('\n'));
    assert_eq!(got, json!({ "text": text }));
    let plain = file_uri("/home/ana/shop/plain.md");
    client.open(&plain, "No mentions here.\n\n").await;
    let got = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": plain}, "format": "text"}),
        )
        .await;
    assert_eq!(got, json!({"text": "No mentions here.\n"}));
    let got = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": plain}, "format": "json"}),
        )
        .await;
    assert_eq!(got["content"][0]["text"], "No mentions here.\n\n");
}

#[tokio::test]
async fn prepare_reads_an_unopened_file_and_refuses_what_it_cannot_read() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let file = store.path().join("prompt.md");
    std::fs::write(&file, prompt()).expect("write");
    let uri = file_uri(&file.display().to_string());
    let got = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert_eq!(got, core_prepare(store.path(), &prompt(), None));

    for uri in [
        file_uri("/no/such/file.md"),
        "untitled:Untitled-1".to_string(),
    ] {
        let refused = client
            .request(
                "sessionReference/prepare",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        assert_eq!(refused["error"]["code"], -32602, "{uri}");
    }
}

#[tokio::test]
async fn failures_are_request_failed_with_the_session_reference_code() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    client.open(&uri, &prompt()).await;
    let own = client
        .request(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}, "targetSessionId": "checkout-tax"}),
        )
        .await;
    assert_eq!(
        own["error"],
        json!({
            "code": -32803,
            "message": "session \"checkout-tax\" cannot reference itself",
            "data": {"code": "SESSION_REFERENCE_SELF_REFERENCE"},
        })
    );
    let other = file_uri("/home/ana/shop/other.md");
    client
        .open(
            &other,
            &format!("{} hydra-session:!", mention("ghost", "G")),
        )
        .await;
    let ghost = client
        .request(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": other}}),
        )
        .await;
    assert_eq!(ghost["error"]["code"], -32803);
    assert_eq!(
        ghost["error"]["data"],
        json!({"code": "SESSION_REFERENCE_READ_FAILED"})
    );
}

/// The keys of a candidate in reference.md §7 (`displayTitle` and `cwd`
/// only when present).
const CONTRACT_KEYS: [&str; 7] = [
    "sessionId",
    "label",
    "displayTitle",
    "cwd",
    "sameWorkspace",
    "createdAt",
    "mention",
];

#[tokio::test]
async fn candidates_are_the_core_candidates_for_the_document() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    let catalog = FsStore::scan(store.path());
    let sessions = catalog.sessions();
    for query in ["", "TAX", "ops", "zzz"] {
        let got = client
            .call(
                "sessionReference/candidates",
                json!({"textDocument": {"uri": uri}, "query": query}),
            )
            .await;
        let target = Target {
            session_id: None,
            cwd: Some("/home/ana/shop"),
        };
        // Exactly the core's candidates (reference.md §7), no key added.
        let core = candidates(&sessions, target, query, 50)
            .expect("candidates")
            .items;
        let expected = serde_json::to_value(ext::candidates(core.clone())).expect("json");
        assert_eq!(got, expected, "{query}");
        for candidate in got.as_array().expect("an array") {
            let keys: Vec<&str> = candidate
                .as_object()
                .expect("an object")
                .keys()
                .map(String::as_str)
                .collect();
            assert!(
                keys.iter().all(|k| CONTRACT_KEYS.contains(k)),
                "{query}: a key beyond the contract's in {keys:?}"
            );
        }
        // The picker's request: the same candidates in the same order, each
        // with the one-line mention it inserts, its detail and its limit
        // flag (tests/lsp/pickers.rs), and nothing else added.
        let mut picked = client
            .call(
                "sessionReference/pickCandidates",
                json!({"textDocument": {"uri": uri}, "query": query}),
            )
            .await;
        let expected: Vec<Value> = core
            .iter()
            .map(|c| {
                let mut value =
                    serde_json::to_value(ext::Candidate::from(c.clone())).expect("json");
                value["insertText"] = json!(c.one_line_mention());
                value
            })
            .collect();
        for c in picked.as_array_mut().into_iter().flatten() {
            let c = c.as_object_mut().expect("an object");
            assert!(c.remove("detail").is_some_and(|d| d.is_string()), "{query}");
            assert_eq!(c.remove("overLimit"), Some(json!(false)), "{query}");
        }
        assert_eq!(picked, Value::Array(expected), "{query}");
    }
    // `query` defaults to "".
    let all = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert_eq!(all.as_array().map(Vec::len), Some(4));
    assert_eq!(all[0]["sessionId"], "checkout-tax.test-writer");
}

#[tokio::test]
async fn status_reports_the_store() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/w").await;
    let _ = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": file_uri(DOC)}}),
        )
        .await;
    let got = client.call("sessionReference/status", json!({})).await;
    let path = store.path().display().to_string();
    // server.md: `stores` lists every store of the list (issue 8).
    assert_eq!(
        got,
        json!({"store": path, "sessions": 4, "indexing": false, "stores": [
            {"path": path, "format": "auto", "sessions": 4, "skippedLines": 0, "errors": []}
        ], "notes": [], "notesOmitted": 0, "search": {
            "enabled": false, "bytes": 0, "sessions": 0, "behind": 0,
            "note": "search is off (the searchIndex setting is false)"
        }})
    );
}

/// The store's notes (a file skipped as not a session) are in the status,
/// as the CLI's `status` prints them.
#[tokio::test]
async fn status_carries_the_store_notes() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("junk.jsonl"), "not json\n").expect("write");
    let (mut client, _server) = in_process();
    client.start(dir.path(), "/w").await;
    let _ = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": file_uri(DOC)}}),
        )
        .await;
    let got = client.call("sessionReference/status", json!({})).await;
    assert_eq!(
        got["notes"],
        json!([{"kind": "notASession",
                "message": "junk.jsonl: skipped, not a session: not a log of any known format"}])
    );
}

#[tokio::test]
async fn cancelling_a_running_prepare_answers_request_cancelled() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A log large enough that reading it takes a while.
    let mut log = LogBuilder::new("huge", 1, None);
    let chunk = "y".repeat(64 * 1024);
    for _ in 0..160 {
        log = log.user(&chunk);
    }
    log.write(&dir.path().join("huge.jsonl"));
    let (mut client, _server) = in_process();
    client.start(dir.path(), "/w").await;
    let uri = file_uri("/w/p.md");
    client.open(&uri, &mention("huge", "Huge")).await;
    // Wait for the index (and the first diagnostics run) first.
    let _ = client.diagnostics(&uri, 1).await;
    let id = client
        .send_request(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    client.notify("$/cancelRequest", json!({"id": id})).await;
    let response = client.response(id).await;
    assert_eq!(response["error"]["code"], -32800, "{response}");
    // And the server goes on serving.
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["sessions"], 1);
}
