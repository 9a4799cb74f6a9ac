//! Completion of `@` mentions over the demo store, and its preview.

use crate::lsp_common;

use expect_test::expect;
use lsp_common::*;
use serde_json::{json, Value};

const DOC: &str = "/home/ana/shop/prompt.md";

async fn complete(client: &mut InProcess, line: u32, character: u32) -> Value {
    client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": line, "character": character}}),
        )
        .await
}

fn item(label: &str, id: &str, detail: &str, sort: &str, filter: &str, range: Value) -> Value {
    json!({
        "label": label,
        "kind": 18,
        "detail": detail,
        "sortText": sort,
        "filterText": filter,
        "textEdit": {"range": range, "newText": mention(id, label)},
        "data": {"sessionId": id, "label": label, "sameWorkspace": detail.contains("same workspace")},
    })
}

fn range(line: u32, from: u32, to: u32) -> Value {
    json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}})
}

#[tokio::test]
async fn at_sign_offers_every_session_ranked_with_edits_and_filter_text() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client.open(&file_uri(DOC), "@").await;
    let got = complete(&mut client, 0, 1).await;
    let r = range(0, 0, 1);
    let shop = "hydra · /home/ana/shop · same workspace · 2025-11-29";
    assert_eq!(
        got,
        json!({
            "isIncomplete": false,
            "items": [
                item("test-writer", "checkout-tax.test-writer", shop, "0",
                    "@test-writer Tax rounding tests checkout-tax.test-writer /home/ana/shop", r.clone()),
                item("Checkout tax rounding", "checkout-tax", shop, "1",
                    "@Checkout tax rounding checkout-tax /home/ana/shop", r.clone()),
                item("Inventory refactor", "inventory-refactor", shop, "2",
                    "@Inventory refactor inventory-refactor /home/ana/shop", r.clone()),
                item("deploy-2026-11-28", "deploy-2026-11-28", "hydra · /home/ana/ops · other workspace · 2025-11-29", "3",
                    "@deploy-2026-11-28 /home/ana/ops", r),
            ]
        })
    );
}

#[tokio::test]
async fn the_query_filters_and_the_edit_replaces_it() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client.open(&file_uri(DOC), "Compare with (@OPS").await;
    let got = complete(&mut client, 0, 18).await;
    assert_eq!(got["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(got["items"][0]["textEdit"]["range"], range(0, 14, 18));
    assert_eq!(got["items"][0]["label"], "deploy-2026-11-28");
    // The client filters again on "@OPS": the filter text holds the match.
    let filter = got["items"][0]["filterText"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    assert!(
        filter.starts_with('@') && filter.contains("ops"),
        "{filter}"
    );
}

#[tokio::test]
async fn no_completion_where_the_rules_say_no() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client.open(&file_uri(DOC), "mail@host\n@a b\n@[x\n").await;
    assert_eq!(complete(&mut client, 0, 9).await, Value::Null);
    assert_eq!(complete(&mut client, 1, 4).await, Value::Null);
    assert_eq!(complete(&mut client, 2, 4).await, Value::Null);
    // Out of range: clamped to the end of the text, where no `@` applies.
    assert_eq!(complete(&mut client, 99, 99).await, Value::Null);
}

#[tokio::test]
async fn the_limit_cuts_the_list_and_marks_it_incomplete() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client
        .initialize(json!({
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/home/ana/shop"), "name": "shop"}],
            "initializationOptions": {"store": store.path(), "candidateLimit": 2},
        }))
        .await;
    client.open(&file_uri(DOC), "@").await;
    let got = complete(&mut client, 0, 1).await;
    assert_eq!(got["isIncomplete"], true);
    let sort: Vec<&str> = got["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["sortText"].as_str())
        .collect();
    assert_eq!(sort, ["0", "1"]);
}

#[tokio::test]
async fn sort_text_is_zero_padded_rank() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..12u64 {
        LogBuilder::new(&format!("s{i:02}"), 1_000 + i, None)
            .write(&dir.path().join(format!("s{i:02}.jsonl")));
    }
    let (mut client, _server) = in_process();
    client.start(dir.path(), "/w").await;
    client.open(&file_uri(DOC), "@").await;
    let got = complete(&mut client, 0, 1).await;
    let sort: Vec<&str> = got["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["sortText"].as_str())
        .collect();
    assert_eq!(sort.len(), 12);
    assert_eq!(sort[0], "00");
    assert_eq!(sort[11], "11");
    let mut sorted = sort.clone();
    sorted.sort();
    assert_eq!(sorted, sort);
    // Newest first.
    assert_eq!(got["items"][0]["label"], "s11");
}

#[tokio::test]
async fn resolve_adds_a_markdown_preview() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client.open(&file_uri(DOC), "@check").await;
    let got = complete(&mut client, 0, 6).await;
    let first = got["items"][0].clone();
    assert_eq!(first["label"], "test-writer");
    let resolved = client.call("completionItem/resolve", first).await;
    assert_eq!(resolved["documentation"]["kind"], "markdown");
    expect![[r#"
        **test-writer** — Tax rounding tests · hydra

        `/home/ana/shop` (same workspace) · 2025-11-29 07:06 UTC

        2 messages; 2 kept, 0 omitted — fits the budget

        - first: **user:** `Write regression tests for per-cart tax rounding.`
        - last: **assistant:** `Added tests/tax_rounding.rs with 6 cases, including a 3-item cart at 7.25% tax.`
    "#]]
    .assert_eq(resolved["documentation"]["value"].as_str().unwrap_or_default());
}

#[tokio::test]
async fn utf8_and_utf16_ranges_after_wide_characters() {
    for (encodings, column) in [
        (json!(["utf-16"]), 9u32),
        (json!(["utf-8", "utf-16"]), 16u32),
    ] {
        let store = demo_store();
        let (mut client, _server) = in_process();
        client
            .initialize(json!({
                "capabilities": {"general": {"positionEncodings": encodings}},
                "initializationOptions": {"store": store.path()},
            }))
            .await;
        // 😀 (2 UTF-16 units, 4 bytes), 漢字 (2, 6), e + U+0301 (2, 3).
        client
            .open(&file_uri(DOC), "x\r\n😀 漢字 e\u{301} @dep")
            .await;
        let got = complete(&mut client, 1, column + 4).await;
        assert_eq!(
            got["items"][0]["textEdit"]["range"],
            range(1, column, column + 4),
            "{encodings}"
        );
    }
}

#[tokio::test]
async fn at_max_references_the_other_sessions_are_marked_and_sorted_last() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/home/ana/shop").await;
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"maxReferences": 2}}}),
        )
        .await;
    let text = format!(
        "{} {}\n@",
        mention("checkout-tax", "Checkout tax rounding"),
        mention("inventory-refactor", "Inventory refactor")
    );
    client.open(&file_uri(DOC), &text).await;
    let got = complete(&mut client, 1, 1).await;
    let items = got["items"].as_array().cloned().unwrap_or_default();
    let summary: Vec<(String, bool, String)> = items
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap_or_default().to_string(),
                i["tags"] == json!([1]),
                i["sortText"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let mut by_sort = summary.clone();
    by_sort.sort_by(|a, b| a.2.cmp(&b.2));
    let order: Vec<(&str, bool)> = by_sort.iter().map(|(l, t, _)| (l.as_str(), *t)).collect();
    assert_eq!(
        order,
        vec![
            ("Checkout tax rounding", false),
            ("Inventory refactor", false),
            ("test-writer", true),
            ("deploy-2026-11-28", true),
        ],
        "{got}"
    );
    let marked = items
        .iter()
        .find(|i| i["label"] == "test-writer")
        .cloned()
        .unwrap_or_default();
    assert!(
        marked["detail"]
            .as_str()
            .unwrap_or_default()
            .starts_with("would exceed maxReferences (2) · hydra · /home/ana/shop"),
        "{marked}"
    );
}

#[tokio::test]
async fn completion_inserts_one_line_mentions_the_server_does_not_flag() {
    // Issue 18 items 8 and 10: a title with a line break, controls or a
    // bidi override is inserted under the one-line rule.
    let store = hostile_titles_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/w").await;
    client.open(&file_uri(DOC), "@").await;
    let got = complete(&mut client, 0, 1).await;
    let labels: Vec<&str> = got["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert_eq!(labels, ["[2J [31mred", "first line second linecba"]);
    let inserted: Vec<String> = got["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["textEdit"]["newText"].as_str().map(String::from))
        .collect();
    assert_eq!(
        inserted,
        [
            mention("ansi", "[2J [31mred"),
            mention("two-lines", "first line second linecba")
        ]
    );
    assert_eq!(
        got["items"][1]["data"]["label"],
        "first line second linecba"
    );
    // Accepting both: no diagnostic the server raises against itself.
    let text = inserted.join(" ");
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": file_uri(DOC), "version": 2},
                   "contentChanges": [{"text": text}]}),
        )
        .await;
    let diagnostics = client.diagnostics(&file_uri(DOC), 2).await;
    assert_eq!(diagnostics, json!([]), "{text}");
}

#[tokio::test]
async fn a_picker_gets_a_one_line_mention_beside_the_canonical_one() {
    let store = hostile_titles_store();
    let (mut client, _server) = in_process();
    client.start(store.path(), "/w").await;
    let got = client
        .call(
            "sessionReference/pickCandidates",
            json!({"textDocument": {"uri": file_uri(DOC)}}),
        )
        .await;
    assert_eq!(
        got[1]["mention"],
        mention("two-lines", "first line\nsecond line\u{202E}cba")
    );
    assert_eq!(
        got[1]["insertText"],
        mention("two-lines", "first line second linecba")
    );
    assert_eq!(got[0]["insertText"], mention("ansi", "[2J [31mred"));
    // The contract's candidates carry the canonical mention and no other.
    let contract = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": file_uri(DOC)}}),
        )
        .await;
    assert_eq!(contract[1]["mention"], got[1]["mention"]);
    assert_eq!(contract[1].get("insertText"), None, "{contract}");
}

#[tokio::test]
async fn a_session_created_in_the_future_shows_its_date_not_just_now() {
    // Issue 18 item 19.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as u64;
    let dir = tempfile::tempdir().expect("tempdir");
    LogBuilder::new("ahead", now + 400 * 86_400_000, Some("/w"))
        .write(&dir.path().join("ahead.jsonl"));
    let (mut client, _server) = in_process();
    client.start(dir.path(), "/w").await;
    client.open(&file_uri(DOC), "@").await;
    let got = complete(&mut client, 0, 1).await;
    let detail = got["items"][0]["detail"].as_str().unwrap_or_default();
    let date = detail.rsplit(" · ").next().unwrap_or_default();
    assert!(
        date.len() == 10
            && date.chars().enumerate().all(|(i, c)| if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }),
        "{detail}"
    );
}

/// A FIFO for the debug build's index gate (`HYDRA_SESSION_TEST_INDEX_GATE`):
/// the first scan waits on it before it starts and after each part but the
/// last (a store of the list, a batch of a store's logs).
fn index_gate(dir: &std::path::Path) -> std::path::PathBuf {
    let gate = dir.join("gate");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &gate,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    gate
}

/// Lets the scan past the gate once: opens it for writing (which waits for
/// the scan to stand at it) and closes it.
async fn open_gate(gate: &std::path::Path) {
    let writer = gate.to_path_buf();
    tokio::task::spawn_blocking(move || drop(std::fs::OpenOptions::new().write(true).open(writer)))
        .await
        .unwrap();
}

/// The server over stdio with `gate` as its index gate and `stores` as its
/// store list; the document "@" open.
async fn gated_server(
    gate: &std::path::Path,
    stores: Value,
) -> (ProcessClient, tokio::process::Child, Value) {
    gated_server_with(server_command(), gate, stores).await
}

/// As [`gated_server`], started by `command`.
async fn gated_server_with(
    mut command: tokio::process::Command,
    gate: &std::path::Path,
    stores: Value,
) -> (ProcessClient, tokio::process::Child, Value) {
    command.env("HYDRA_SESSION_TEST_INDEX_GATE", gate);
    let (mut client, child) = spawn(command);
    client
        .initialize(json!({
            "processId": null, "rootUri": null, "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/home/ana/shop"), "name": "ws"}],
            "initializationOptions": {"hydraSession": {"store": stores, "spillDir": ""}},
        }))
        .await;
    client.open(&file_uri(DOC), "@").await;
    let request =
        json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": 0, "character": 1}});
    (client, child, request)
}

/// While the first index is still being built (held by the debug build's
/// test gate, a FIFO the scan waits on), completion still answers, with
/// what is indexed so far and marked incomplete; once the scan goes on,
/// the sessions are listed.
#[tokio::test]
async fn completion_answers_while_the_first_index_is_built() {
    let store = demo_store();
    let dir = tempfile::tempdir().unwrap();
    let gate = index_gate(dir.path());
    let (mut client, _child, request) = gated_server(&gate, json!(store.path())).await;

    // The scan cannot have finished: it waits for a writer on the gate.
    let during = client
        .call("textDocument/completion", request.clone())
        .await;
    assert_eq!(during["isIncomplete"], true, "{during}");
    assert_eq!(during["items"], json!([]), "{during}");
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["indexing"], true, "{status}");

    // Open the gate (the scan is blocked opening it for reading) and close it.
    open_gate(&gate).await;
    // Each answer comes as soon as the index is built, or after the grace
    // time with what is indexed so far: ask until the sessions are there.
    let mut listed = 0;
    for _ in 0..30 {
        let after = client
            .call("textDocument/completion", request.clone())
            .await;
        listed = after["items"].as_array().map_or(0, Vec::len);
        if listed > 0 {
            assert_eq!(after["isIncomplete"], false, "{after}");
            break;
        }
    }
    assert!(listed > 0, "the sessions were never listed");
    client.shutdown_and_exit().await;
}

/// A first scan of two stores publishes the first store's sessions before
/// it reads the second (the gate holds it there): completion meanwhile
/// answers with them, marked incomplete, and status counts them; then
/// every session, complete.
#[tokio::test]
async fn during_the_first_scan_completion_offers_the_stores_indexed_so_far() {
    let demo = demo_store();
    let other = tempfile::tempdir().unwrap();
    LogBuilder::new("later-store", 1_000, Some("/home/ana/shop"))
        .write(&other.path().join("later-store.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    let gate = index_gate(dir.path());
    let (mut client, _child, request) =
        gated_server(&gate, json!([demo.path(), other.path()])).await;
    let demo_ids = [
        "checkout-tax",
        "checkout-tax.test-writer",
        "deploy-2026-11-28",
        "inventory-refactor",
    ];

    // Past the gate before the scan; it stops again after the first store,
    // once that store's sessions are published.
    open_gate(&gate).await;
    let during = complete_until(&mut client, &request, |a| !offered_ids(a).is_empty()).await;
    assert_eq!(offered_ids(&during), demo_ids, "{during}");
    assert_eq!(during["isIncomplete"], true, "{during}");
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["indexing"], true, "{status}");
    assert_eq!(status["sessions"], 4, "{status}");

    open_gate(&gate).await;
    let after = complete_until(&mut client, &request, |a| a["isIncomplete"] == false).await;
    let mut all: Vec<&str> = demo_ids.to_vec();
    all.push("later-store");
    all.sort();
    assert_eq!(offered_ids(&after), all, "{after}");
    assert_eq!(after["isIncomplete"], false, "{after}");
    client.shutdown_and_exit().await;
}

/// A new store list replaces the old one's sessions at once: while the
/// gate holds its first scan, completion offers none of the old list's
/// sessions (nothing is indexed of the new one yet), and a search asked
/// meanwhile waits for the new list and finds what only it holds.
#[tokio::test]
async fn a_new_store_list_is_searched_and_offered_not_the_old_one() {
    let demo = demo_store();
    let other = tempfile::tempdir().unwrap();
    LogBuilder::new("moved-store", 1_000, Some("/home/ana/shop"))
        .user("the quokka migration checklist")
        .write(&other.path().join("moved-store.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    let gate = index_gate(dir.path());
    let (mut client, _child, request) = gated_server(&gate, json!(demo.path())).await;
    open_gate(&gate).await;
    let first = complete_until(&mut client, &request, |a| a["isIncomplete"] == false).await;
    assert_eq!(offered_ids(&first).len(), 4, "{first}");

    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"store": other.path()}}}),
        )
        .await;
    // The new list's scan waits at the gate before it starts.
    let during = client
        .call("textDocument/completion", request.clone())
        .await;
    assert_eq!(offered_ids(&during), Vec::<String>::new(), "{during}");
    assert_eq!(during["isIncomplete"], true, "{during}");
    let search = client
        .send_request(
            "sessionReference/search",
            json!({"query": "quokka migration"}),
        )
        .await;
    open_gate(&gate).await;
    let found = client.response(search).await;
    let hits = found["result"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "{found}");
    assert_eq!(hits[0]["sessionId"], "moved-store", "{found}");
    let after = complete_until(&mut client, &request, |a| a["isIncomplete"] == false).await;
    assert_eq!(offered_ids(&after), ["moved-store"], "{after}");
    client.shutdown_and_exit().await;
}

/// The sessions offered by a completion answer, sorted.
fn offered_ids(answer: &Value) -> Vec<String> {
    let mut ids: Vec<String> = answer["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["data"]["sessionId"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

/// Asks for completion until `done` holds of the answer (each answer comes
/// when the first index is built or after its grace time); the last one.
async fn complete_until(
    client: &mut ProcessClient,
    request: &Value,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let mut answer = Value::Null;
    for _ in 0..30 {
        answer = client
            .call("textDocument/completion", request.clone())
            .await;
        if done(&answer) {
            break;
        }
    }
    answer
}

/// A first scan of ONE store publishes its logs in batches (here of two
/// logs, `HYDRA_SESSION_TEST_SCAN_BATCH`, then at least as many as are
/// indexed): while the gate holds the scan after the first batch,
/// completion offers exactly the first two logs' sessions (by name),
/// marked incomplete, and status counts them; after the second, four;
/// then all five, complete.
#[tokio::test]
async fn during_the_first_scan_of_one_store_completion_offers_its_first_batches() {
    let store = tempfile::tempdir().unwrap();
    let ids: Vec<String> = (0..5).map(|i| format!("batch-{i}")).collect();
    for (i, id) in ids.iter().enumerate() {
        LogBuilder::new(id, 1_000 + i as u64, Some("/home/ana/shop"))
            .write(&store.path().join(format!("{id}.jsonl")));
    }
    let dir = tempfile::tempdir().unwrap();
    let gate = index_gate(dir.path());
    let mut command = server_command();
    command.env("HYDRA_SESSION_TEST_SCAN_BATCH", "2");
    let (mut client, _child, request) =
        gated_server_with(command, &gate, json!(store.path())).await;

    // Past the gate before the scan; it stops again after each batch but
    // the last, once what is indexed so far is published.
    for shown in [2, 4] {
        open_gate(&gate).await;
        let during = complete_until(&mut client, &request, |a| offered_ids(a).len() == shown).await;
        assert_eq!(offered_ids(&during), ids[..shown], "{during}");
        assert_eq!(during["isIncomplete"], true, "{during}");
        let status = client.call("sessionReference/status", json!({})).await;
        assert_eq!(status["indexing"], true, "{status}");
        assert_eq!(status["sessions"], shown, "{status}");
    }

    open_gate(&gate).await;
    let after = complete_until(&mut client, &request, |a| a["isIncomplete"] == false).await;
    assert_eq!(offered_ids(&after), ids, "{after}");
    assert_eq!(after["isIncomplete"], false, "{after}");
    client.shutdown_and_exit().await;
}

/// The opt-in of clients whose filter is a case-sensitive prefix match on
/// `filterText` that asks again only for an incomplete list (Neovim 0.11's
/// `vim.lsp.completion`), over the built binary: with
/// `completionFiltering: "server"` every session list is incomplete and
/// each item's `filterText` is the typed `@query`, the items otherwise the
/// same; left out, `"client"` or `null`, the contract's answer.
#[tokio::test]
async fn server_filtering_is_an_opt_in_of_prefix_filtering_clients() {
    let store = demo_store();
    let mut answers = Vec::new();
    for filtering in [json!(null), json!("client"), json!("server")] {
        let (mut client, mut child) = spawn(server_command());
        // Search off: its body matches would make the first list
        // incomplete (tests/lsp/search.rs checks them).
        let mut options = json!({"store": store.path(), "spillDir": "", "searchIndex": false});
        if !filtering.is_null() {
            options["completionFiltering"] = filtering.clone();
        }
        client
            .initialize(json!({
                "processId": null, "rootUri": null, "capabilities": {},
                "workspaceFolders": [{"uri": file_uri("/home/ana/shop"), "name": "ws"}],
                "initializationOptions": {"hydraSession": options},
            }))
            .await;
        client.open(&file_uri(DOC), "Ask @che").await;
        let request = json!({"textDocument": {"uri": file_uri(DOC)}, "position": {"line": 0, "character": 8}});
        let got = client
            .call("textDocument/completion", request.clone())
            .await;
        if filtering == "server" {
            // Back to the default by `null`, without a restart.
            client
                .notify(
                    "workspace/didChangeConfiguration",
                    json!({"settings": {"hydraSession": {"completionFiltering": null}}}),
                )
                .await;
            let back = client.call("textDocument/completion", request).await;
            assert_eq!(back, answers[0], "null is the default again");
        }
        client.shutdown_and_exit().await;
        let status = child.wait().await.expect("the server's exit");
        assert!(status.success(), "{status}");
        answers.push(got);
    }
    let (default, client, server) = (&answers[0], &answers[1], &answers[2]);
    assert_eq!(client, default, "\"client\" is the default");
    assert_eq!(default["isIncomplete"], false, "{default}");
    let labels = |list: &Value| -> Vec<Value> {
        list["items"]
            .as_array()
            .map(|items| items.iter().map(|i| i["label"].clone()).collect())
            .unwrap_or_default()
    };
    assert_eq!(
        labels(default),
        [json!("test-writer"), json!("Checkout tax rounding")]
    );
    assert_eq!(
        default["items"][1]["filterText"],
        "@Checkout tax rounding checkout-tax /home/ana/shop"
    );

    assert_eq!(server["isIncomplete"], true, "{server}");
    let mut expected = default.clone();
    expected["isIncomplete"] = json!(true);
    for item in expected["items"].as_array_mut().into_iter().flatten() {
        item["filterText"] = json!("@che");
    }
    assert_eq!(server, &expected);
}
