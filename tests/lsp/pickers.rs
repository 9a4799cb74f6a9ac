//! What the editors' pickers show, decided by the server: `pickCandidates`'
//! `detail` (completion's, agent included), `overLimit`, the `@query`
//! before the cursor and its `range`, and `prepare`'s Markdown summary.
//! These rules were once copied into the VS Code and Neovim code; their
//! tests live here now.

use crate::lsp_common;

use hydra_session_lsp::proto::ext;
use hydra_session_lsp::reference::budget::BudgetSetting;
use hydra_session_lsp::reference::prepare::{prepare_text, PrepareOptions};
use hydra_session_lsp::store::FsStore;
use lsp_common::*;
use serde_json::{json, Value};

const DOC: &str = "/home/ana/shop/prompt.md";

async fn pick(client: &mut InProcess, params: Value) -> Vec<Value> {
    let got = client.call("sessionReference/pickCandidates", params).await;
    got.as_array().cloned().unwrap_or_default()
}

fn ids(list: &[Value]) -> Vec<&str> {
    list.iter()
        .filter_map(|c| c["sessionId"].as_str())
        .collect()
}

#[tokio::test]
async fn the_picker_detail_is_completions_agent_included() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    client.open(&uri, "@").await;
    let completion = client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    let picked = pick(&mut client, json!({"textDocument": {"uri": uri}})).await;
    assert_eq!(picked.len(), 4);
    for c in &picked {
        let item = completion["items"]
            .as_array()
            .and_then(|items| {
                items
                    .iter()
                    .find(|i| i["data"]["sessionId"] == c["sessionId"])
            })
            .expect("the same session in completion");
        assert_eq!(c["detail"], item["detail"], "{c}");
        let detail = c["detail"].as_str().expect("a detail");
        let cwd = c["cwd"].as_str().expect("a cwd");
        assert!(detail.starts_with(&format!("hydra · {cwd} · ")), "{detail}");
        assert_eq!(c["overLimit"], false);
        assert!(c.get("range").is_none(), "no position, no range: {c}");
    }
}

#[tokio::test]
async fn over_max_references_the_others_are_flagged_and_last() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"maxReferences": 1}}}),
        )
        .await;
    let uri = file_uri(DOC);
    let text = format!(
        "{} and ",
        mention("inventory-refactor", "Inventory refactor")
    );
    client.open(&uri, &text).await;
    let picked = pick(&mut client, json!({"textDocument": {"uri": uri}})).await;
    assert_eq!(picked.len(), 4);
    // The one referenced session may be added again; it comes first.
    assert_eq!(picked[0]["sessionId"], "inventory-refactor");
    assert_eq!(picked[0]["overLimit"], false);
    for c in &picked[1..] {
        assert_eq!(c["overLimit"], true, "{c}");
        let detail = c["detail"].as_str().expect("a detail");
        assert!(
            detail.starts_with("would exceed maxReferences (1) · hydra · "),
            "{detail}"
        );
    }
    // The rank is kept among the flagged ones.
    let all = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let ranked: Vec<&str> = all
        .as_array()
        .map(|a| ids(a))
        .unwrap_or_default()
        .into_iter()
        .filter(|id| *id != "inventory-refactor")
        .collect();
    assert_eq!(ids(&picked[1..]), ranked);
    // The prompt's own session (targetSessionId) is no reference.
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"targetSessionId": "inventory-refactor"}}}),
        )
        .await;
    let picked = pick(&mut client, json!({"textDocument": {"uri": uri}})).await;
    assert!(picked.iter().all(|c| c["overLimit"] == false), "{picked:?}");
}

#[tokio::test]
async fn the_typed_query_before_the_cursor_is_the_query_and_its_range() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    // "é" is one UTF-16 unit and two bytes, "😀" two units and four bytes:
    // the range is in the client's characters.
    client.open(&uri, "é😀 (@inv\nmail@inv\n@a b").await;
    let at = |line: u32, character: u32| json!({"line": line, "character": character});
    let picked = pick(
        &mut client,
        json!({"textDocument": {"uri": uri}, "position": at(0, 9)}),
    )
    .await;
    let typed = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": uri}, "query": "inv"}),
        )
        .await;
    assert_eq!(ids(&picked), ids(typed.as_array().expect("an array")));
    assert!(picked.len() < 4, "{picked:?}");
    assert_eq!(
        picked[0]["range"],
        json!({"start": at(0, 5), "end": at(0, 9)})
    );
    // An explicit query wins; the range is still the typed one.
    let picked = pick(
        &mut client,
        json!({"textDocument": {"uri": uri}, "position": at(0, 9), "query": ""}),
    )
    .await;
    assert_eq!(picked.len(), 4);
    assert!(picked.iter().all(|c| c["range"] == picked[0]["range"]));
    // Where no mention can start (after a letter, a query with a space):
    // no range, and the query is "".
    for position in [at(1, 8), at(2, 4)] {
        let picked = pick(
            &mut client,
            json!({"textDocument": {"uri": uri}, "position": position}),
        )
        .await;
        assert_eq!(picked.len(), 4, "{position}");
        assert!(
            picked.iter().all(|c| c.get("range").is_none()),
            "{position}"
        );
    }
    // A document neither open nor on disk: no query, no references.
    let picked = pick(
        &mut client,
        json!({"textDocument": {"uri": "untitled:Untitled-1"}, "position": at(0, 0)}),
    )
    .await;
    assert_eq!(picked.len(), 4);
}

#[tokio::test]
async fn prepare_markdown_is_the_context_then_the_statistics() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri(DOC);
    let prompt =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/prompt.md"))
            .expect("prompt");
    client.open(&uri, &prompt).await;
    let got = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}, "format": "markdown"}),
        )
        .await;
    let catalog = FsStore::scan(store.path());
    let options = PrepareOptions {
        target: None,
        max_references: 3,
        max_reference_bytes: BudgetSetting::Auto,
    };
    let core = prepare_text(&prompt, options, &catalog, None, &|| false).expect("prepares");
    let markdown = ext::Prepared::from(core).summary_markdown();
    assert_eq!(got, json!({ "markdown": markdown }));
    let text = got["markdown"].as_str().expect("markdown");
    assert!(text.starts_with("## Referenced sessions\n"), "{text}");
    assert!(
        text.contains("| Inventory refactor | `inventory-refactor` | 82 of 121 |"),
        "{text}"
    );
    // No reference: no summary.
    let plain = file_uri("/home/ana/shop/plain.md");
    client.open(&plain, "No mentions here.\n").await;
    let got = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": plain}, "format": "markdown"}),
        )
        .await;
    assert_eq!(got, json!({ "markdown": null }));
}
