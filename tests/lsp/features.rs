//! Hover, code actions, document links, and positions around wide
//! characters and CRLF.

use crate::lsp_common;

use base64::Engine;
use expect_test::expect;
use lsp_common::*;
use serde_json::{json, Value};

const DOC: &str = "/home/ana/shop/prompt.md";

fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Value {
    json!({"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}})
}

async fn hover(client: &mut InProcess, line: u32, character: u32) -> Value {
    client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": line, "character": character}}),
        )
        .await
}

#[tokio::test]
async fn hover_summarises_what_prepare_would_take() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let prompt =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/prompt.md"))
            .expect("prompt");
    client.open(&file_uri(DOC), &prompt).await;
    let got = hover(&mut client, 2, 20).await;
    let start = prompt
        .lines()
        .nth(2)
        .and_then(|l| l.find("@["))
        .unwrap_or_default() as u32;
    let end = start + mention("checkout-tax", "Checkout tax rounding").len() as u32;
    assert_eq!(got["range"], range(2, start, 2, end));
    assert_eq!(got["contents"]["kind"], "markdown");
    let value = got["contents"]["value"].as_str().unwrap_or_default();
    expect![[r#"
        **Checkout tax rounding** · hydra

        - id: `checkout-tax`
        - cwd: `/home/ana/shop` (same workspace)
        - created: 2025-11-29 07:06 UTC
        - capturedThroughSeq: 8
        - compacted: yes
        - messages: 3 original, 3 retained, 0 omitted
        - omitted bytes: 0
        - truncated: no
        - budget: 64 KiB: no target session is known

        **Last 3 of 3 turns**

        - **user:** `Summary: checkout totals drift because tax is rounded per line in src/cart.rs; the fix is to round once per cart in src/tax.rs.`
        - **user:** `Fix it and keep the public API.`
        - **assistant:** `` Done: `Cart::total` now sums exact amounts and rounds once. All 41 tests pass. ``
    "#]]
    .assert_eq(value);
}

#[tokio::test]
async fn hover_outside_a_mention_and_past_the_end_is_null() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client.open(&file_uri(DOC), "plain\r\ntext").await;
    assert_eq!(hover(&mut client, 0, 2).await, Value::Null);
    assert_eq!(hover(&mut client, 40, 400).await, Value::Null);
}

#[tokio::test]
async fn hover_on_an_unknown_session_or_bad_uri_says_why() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client
        .open(
            &file_uri(DOC),
            &format!("{}\n@[x](hydra-session:!)", mention("ghost", "G")),
        )
        .await;
    let ghost = hover(&mut client, 0, 3).await;
    assert_eq!(
        ghost["contents"]["value"],
        "Session `\"ghost\"` is not in the store"
    );
    let bad = hover(&mut client, 1, 3).await;
    assert_eq!(
        bad["contents"]["value"],
        "Invalid session reference URI `hydra-session:!`"
    );
}

#[tokio::test]
async fn positions_after_emoji_cjk_and_combining_marks_in_utf16_and_utf8() {
    let store = demo_store();
    // 😀 (2 UTF-16 units, 4 bytes), 漢字 (2, 6), e + U+0301 (2, 3), spaces.
    let line = format!("😀 漢字 e\u{301} {}", mention("checkout-tax", "T"));
    let text = format!("first\r\n{line}\r\n@[Bad](hydra-session:!)");
    let mention_len = mention("checkout-tax", "T").len() as u32;
    for (encodings, start) in [(json!(["utf-16"]), 9u32), (json!(["utf-8"]), 16u32)] {
        let (mut client, _server) = in_process();
        client
            .initialize(json!({
                "capabilities": {"general": {"positionEncodings": encodings}},
                "initializationOptions": {"store": store.path()},
            }))
            .await;
        client.open(&file_uri(DOC), &text).await;
        let got = hover(&mut client, 1, start + 2).await;
        assert_eq!(
            got["range"],
            range(1, start, 1, start + mention_len),
            "{encodings}"
        );
        // Inside the emoji's surrogate pair: the character's start, no mention.
        assert_eq!(hover(&mut client, 1, 1).await, Value::Null);
        let diagnostics = client.diagnostics(&file_uri(DOC), 1).await;
        assert_eq!(diagnostics[0]["range"], range(2, 7, 2, 22), "{encodings}");
        let links = client
            .call(
                "textDocument/documentLink",
                json!({"textDocument": {"uri": file_uri(DOC)}}),
            )
            .await;
        assert_eq!(
            links[0]["range"],
            range(1, start, 1, start + mention_len),
            "{encodings}"
        );
    }
}

#[tokio::test]
async fn document_links_open_the_session_log() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let text = format!(
        "{} {} hydra-session:!",
        mention("checkout-tax", "C"),
        mention("ghost", "G")
    );
    client.open(&file_uri(DOC), &text).await;
    let links = client
        .call(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": file_uri(DOC)}}),
        )
        .await;
    let log = store.path().join("2026/11/checkout-tax.jsonl");
    assert_eq!(
        links,
        json!([{
            "range": range(0, 0, 0, mention("checkout-tax", "C").len() as u32),
            "target": file_uri(&log.display().to_string()),
            "tooltip": "Open the session log 2026/11/checkout-tax.jsonl",
        }])
    );
}

#[tokio::test]
async fn quick_fixes_for_noncanonical_and_bare_uris() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(" \"checkout-tax\"");
    let noncanonical = format!("hydra-session:{payload}");
    let bare = uri_of("checkout-tax.test-writer");
    let text = format!("a {noncanonical}\nb {bare}");
    let uri = file_uri(DOC);
    client.open(&uri, &text).await;
    let diagnostics = client.diagnostics(&uri, 1).await;
    let noncanonical_diagnostic = diagnostics[0].clone();
    assert_eq!(
        noncanonical_diagnostic["data"],
        json!({"canonical": uri_of("checkout-tax")})
    );
    let actions = client
        .call(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": range(0, 0, 1, 3),
                "context": {"diagnostics": [noncanonical_diagnostic.clone()]},
            }),
        )
        .await;
    let noncanonical_range = range(0, 2, 0, 2 + noncanonical.len() as u32);
    let bare_range = range(1, 2, 1, 2 + bare.len() as u32);
    assert_eq!(
        actions,
        json!([
            {
                "title": "Use the canonical session URI",
                "kind": "quickfix",
                "diagnostics": [noncanonical_diagnostic],
                "edit": {"changes": {uri.clone(): [{"range": noncanonical_range, "newText": uri_of("checkout-tax")}]}},
                "isPreferred": true,
            },
            {
                "title": "Turn into a mention of \"test-writer\"",
                "kind": "quickfix",
                "edit": {"changes": {uri.clone(): [{"range": bare_range, "newText": mention("checkout-tax.test-writer", "test-writer")}]}},
            },
        ])
    );
}

#[tokio::test]
async fn hover_on_a_bare_uri_uses_the_id_as_label() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/elsewhere").await;
    let bare = uri_of("checkout-tax");
    client.open(&file_uri(DOC), &format!("see {bare}")).await;
    let got = hover(&mut client, 0, 6).await;
    assert_eq!(got["range"], range(0, 4, 0, 4 + bare.len() as u32));
    let value = got["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        value.starts_with("**checkout-tax** — Checkout tax rounding · hydra\n\n"),
        "{value}"
    );
    assert!(
        value.contains("- cwd: `/home/ana/shop` (other workspace)\n"),
        "{value}"
    );
}

#[tokio::test]
async fn the_quick_fix_for_a_bare_uri_writes_a_one_line_mention() {
    // Issue 18 items 8 and 10.
    let store = hostile_titles_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/w").await;
    let bare = uri_of("two-lines");
    let uri = file_uri(DOC);
    client.open(&uri, &bare).await;
    let actions = client
        .call(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": range(0, 0, 0, 1),
                "context": {"diagnostics": []},
            }),
        )
        .await;
    assert_eq!(
        actions[0]["title"],
        "Turn into a mention of \"first line second linecba\""
    );
    assert_eq!(
        actions[0]["edit"]["changes"][uri.as_str()][0]["newText"],
        mention("two-lines", "first line second linecba")
    );
}

/// Every link, image or HTML node a CommonMark renderer (with the GFM
/// extensions) finds in `markdown`.
fn live_nodes(markdown: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    Parser::new_ext(markdown, Options::all())
        .filter(|e| {
            matches!(
                e,
                Event::Start(Tag::Link { .. } | Tag::Image { .. } | Tag::HtmlBlock)
                    | Event::Html(_)
                    | Event::InlineHtml(_)
            )
        })
        .map(|e| format!("{e:?}"))
        .collect()
}

#[tokio::test]
async fn values_from_a_log_stay_inert_in_hover_and_preview() {
    // Issue 18 item 6: an id or cwd holding a blank line broke out of its
    // code span, and a link and a remote image rendered live.
    let id = "x\n\n[click me](https://evil.example/id)\n\n";
    let cwd = "/w\n\n![t](https://evil.example/track.png)\n\n<img src=x>";
    let dir = tempfile::tempdir().expect("tempdir");
    LogBuilder::new(id, 1_000, Some(cwd))
        .title("t\n\n[title](https://evil.example/t) ![i](https://evil.example/i.png)")
        .user("hi\n\n[turn](https://evil.example/turn)\n\n<b>x</b>")
        .write(&dir.path().join("evil.jsonl"));
    let (mut client, _server) = in_process();
    client.start(dir.path(), "/w").await;
    let uri = file_uri(DOC);
    client.open(&uri, &format!("see {}", uri_of(id))).await;
    let got = hover(&mut client, 0, 6).await;
    let value = got["contents"]["value"].as_str().unwrap_or_default();
    assert!(value.contains("evil.example/track.png"), "{value}");
    assert_eq!(live_nodes(value), Vec::<String>::new(), "{value}");
    // The completion preview carries the same values.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "@"}]}),
        )
        .await;
    let items = client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    let resolved = client
        .call("completionItem/resolve", items["items"][0].clone())
        .await;
    let value = resolved["documentation"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("evil.example/i.png"), "{value}");
    assert_eq!(live_nodes(value), Vec::<String>::new(), "{value}");
}
