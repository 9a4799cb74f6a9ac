//! The language server's search surfaces (issue 16): `workspace/symbol`,
//! `sessionReference/search` and completion's body matches. A test that
//! looks at what is written to its cache runs the built binary with a
//! cache folder of its own; the others share the process's
//! ([`cache_home`]).

use crate::lsp_common;

use std::collections::HashSet;

use lsp_common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn sessions_are_found_by_content_as_symbols_and_by_the_search_request() {
    let cache = tempfile::tempdir().expect("tempdir");
    let store = demo_store();
    let mut command = server_command();
    command.env("XDG_CACHE_HOME", cache.path());
    let (mut client, mut server) = spawn(command);
    client.start_searching(store.path(), "/home/ana/shop").await;

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

    // The status says where the index is and that it is up to date (a
    // search brings it up to date first).
    let status = client.call("sessionReference/status", json!({})).await;
    let search = &status["search"];
    assert_eq!(search["enabled"], true, "{status}");
    let path = search["path"].as_str().unwrap_or_default();
    let index_dir = cache.path().join("hydra-session/search/index-");
    assert!(path.starts_with(index_dir.to_str().unwrap()), "{path}");
    assert!(std::path::Path::new(path).is_dir());
    assert!(search["bytes"].as_u64().is_some_and(|b| b > 0), "{search}");
    assert_eq!(search["sessions"], 4);
    assert_eq!(search["behind"], 0);
    assert!(search.get("note").is_none(), "{search}");

    let bad = client
        .request("sessionReference/search", json!({"query": "tax \"open"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(bad["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("malformed search query")));
    // Issue 27 item 3: 1 MB of punctuation made a 1 MB error message.
    let punctuation = ".,;".repeat(350_000);
    let bad = client
        .request("sessionReference/search", json!({"query": punctuation}))
        .await;
    let message = bad["error"]["message"].as_str().unwrap_or_default();
    // Issue 27 item 4: over 16 KiB a query is refused as too long, before
    // its words are looked at; the message still quotes only 300 bytes.
    assert!(message.contains("is too long"), "{message}");
    assert!(message.contains("(cut from 1050000 bytes)"), "{message}");
    assert!(message.len() < 1000, "{} bytes", message.len());

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

/// A store where `rounding` is in one title and in the messages of seven
/// sessions that have none, and a workspace with a file of that name.
fn rounding_store() -> (tempfile::TempDir, tempfile::TempDir) {
    let store = tempfile::tempdir().expect("tempdir");
    let workspace = tempfile::tempdir().expect("tempdir");
    let cwd = workspace.path().to_str().expect("utf-8").to_string();
    LogBuilder::new("titled", 9_000, Some(&cwd))
        .user("the totals drift by a cent")
        .title("Tax rounding")
        .write(&store.path().join("titled.jsonl"));
    for i in 0..7 {
        LogBuilder::new(&format!("said-{i}"), 1_000 + i, Some(&cwd))
            .user(&format!("why is cart {i} off by a cent?"))
            .assistant("The tax was rounded per line; rounding once per cart fixes it.")
            .write(&store.path().join(format!("said-{i}.jsonl")));
    }
    std::fs::write(workspace.path().join("rounding.md"), "notes\n").expect("write");
    (store, workspace)
}

fn is_body_match(item: &Value) -> bool {
    item["data"]["match"] == "body"
}

async fn complete_at(client: &mut InProcess, uri: &str, character: u32) -> Value {
    client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": character}}),
        )
        .await
}

/// Asks again, as a client does, while the list is incomplete.
async fn complete_until_complete(client: &mut InProcess, uri: &str, character: u32) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let got = complete_at(client, uri, character).await;
        if got["isIncomplete"] == false {
            return got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still incomplete: {got}"
        );
    }
}

#[tokio::test]
async fn completion_adds_body_matches_after_the_candidates_without_waiting() {
    let (store, workspace) = rounding_store();
    let cwd = workspace.path().to_str().expect("utf-8");
    let (mut client, _server) = in_process();
    client.start_searching(store.path(), cwd).await;
    let uri = file_uri(&format!("{cwd}/prompt.md"));
    client.open(&uri, "@roun\n").await;

    // The first answer does not wait for the search: the contract's items
    // and the files, marked incomplete.
    let first = complete_at(&mut client, &uri, 5).await;
    assert_eq!(first["isIncomplete"], true, "{first}");
    let items = first["items"].as_array().expect("items");
    assert!(!items.iter().any(is_body_match), "{first}");
    assert_eq!(items[0]["data"]["sessionId"], "titled");

    let got = complete_until_complete(&mut client, &uri, 5).await;
    let items = got["items"].as_array().expect("items");
    // The contract's item first, as it was; then five body matches; then
    // the file.
    assert_eq!(items[0], first["items"][0]);
    let body: Vec<&Value> = items.iter().filter(|i| is_body_match(i)).collect();
    assert_eq!(body.len(), 5, "{got}");
    let ids: HashSet<&str> = body
        .iter()
        .filter_map(|i| i["data"]["sessionId"].as_str())
        .collect();
    assert_eq!(ids.len(), 5);
    assert!(ids.iter().all(|id| id.starts_with("said-")), "{ids:?}");
    for item in &body {
        assert_eq!(item["labelDetails"]["description"], "in messages");
        let detail = item["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("rounding once per cart"), "{detail}");
        let id = item["data"]["sessionId"].as_str().unwrap_or_default();
        assert_eq!(item["textEdit"]["newText"], mention(id, id));
    }
    let kinds: Vec<&str> = items
        .iter()
        .map(|i| {
            if is_body_match(i) {
                "body"
            } else if i["data"]["path"].is_string() || i["label"] == "rounding.md" {
                "file"
            } else {
                "title"
            }
        })
        .collect();
    assert_eq!(
        kinds,
        ["title", "body", "body", "body", "body", "body", "file"],
        "{got}"
    );
    let sorts: Vec<&str> = items
        .iter()
        .filter_map(|i| i["sortText"].as_str())
        .collect();
    assert!(sorts.windows(2).all(|w| w[0] < w[1]), "{sorts:?}");

    // Two characters: no body matches, nothing to wait for.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "@ro\n"}]}),
        )
        .await;
    let short = complete_at(&mut client, &uri, 3).await;
    assert_eq!(short["isIncomplete"], false, "{short}");
    assert!(!short["items"]
        .as_array()
        .expect("items")
        .iter()
        .any(is_body_match));

    // Search turned off: the contract's items only.
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"searchIndex": false}}}),
        )
        .await;
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": "@roun\n"}]}),
        )
        .await;
    let off = complete_at(&mut client, &uri, 5).await;
    assert_eq!(off["isIncomplete"], false, "{off}");
    let items = off["items"].as_array().expect("items");
    assert!(!items.iter().any(is_body_match), "{off}");
    assert_eq!(items[0], first["items"][0]);
    client.shutdown_and_exit().await;
}

#[tokio::test]
async fn the_search_index_is_built_at_start_with_a_progress_of_its_own() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client
        .initialize(json!({
            "capabilities": {"window": {"workDoneProgress": true}},
            "initializationOptions": {"store": store.path(), "spillDir": ""},
        }))
        .await;
    let token = json!("hydra-session/search");
    let ours = |m: &Value| m["method"] == "$/progress" && m["params"]["token"] == token;
    client
        .wait_for("the search progress's token", |m| {
            m["method"] == "window/workDoneProgress/create" && m["params"]["token"] == token
        })
        .await;
    let begin = client.wait_for("its begin", ours).await;
    assert_eq!(begin["params"]["value"]["kind"], "begin", "{begin}");
    assert_eq!(
        begin["params"]["value"]["title"],
        "Indexing messages for search"
    );
    let mut percentages = Vec::new();
    let end = loop {
        let next = client.wait_for("its reports and end", ours).await;
        match next["params"]["value"]["kind"].as_str() {
            Some("report") => percentages.push(next["params"]["value"]["percentage"].clone()),
            _ => break next,
        }
    };
    assert_eq!(
        end["params"]["value"],
        json!({"kind": "end", "message": "4 sessions searchable"})
    );
    assert_eq!(percentages, [json!(25), json!(50), json!(75), json!(100)]);
    client.shutdown_and_exit().await;
}

#[tokio::test]
async fn no_progress_is_sent_to_a_client_that_cannot_show_it() {
    let store = demo_store();
    let (mut client, _server) = in_process();
    client.start_searching(store.path(), "/home/ana/shop").await;
    // The search waits for the index being built at start.
    let found = client
        .call("sessionReference/search", json!({"query": "staging"}))
        .await;
    assert_eq!(found[0]["sessionId"], "deploy-2026-11-28");
    assert_eq!(
        client.drain("window/workDoneProgress/create").await,
        Vec::<Value>::new()
    );
    assert_eq!(client.drain("$/progress").await, Vec::<Value>::new());
    client.shutdown_and_exit().await;
}

#[tokio::test]
async fn with_search_off_nothing_is_written_to_the_cache() {
    // The flag, then the setting.
    for (args, settings) in [
        (vec!["lsp", "--no-search-index"], json!({})),
        (vec![], json!({"searchIndex": false})),
    ] {
        let cache = tempfile::tempdir().expect("tempdir");
        let store = demo_store();
        let mut command = server_command();
        command.args(&args).env("XDG_CACHE_HOME", cache.path());
        let (mut client, mut server) = spawn(command);
        client
            .start_with(store.path(), "/home/ana/shop", settings.clone())
            .await;
        let uri = file_uri("/home/ana/shop/prompt.md");
        client.open(&uri, "@staging").await;
        let listed = client
            .call(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 8}}),
            )
            .await;
        assert_eq!(
            listed,
            json!({"isIncomplete": false, "items": []}),
            "{args:?}"
        );

        let refused = client
            .request("sessionReference/search", json!({"query": "staging"}))
            .await;
        assert_eq!(refused["error"]["code"], -32803, "{refused}");
        assert_eq!(
            refused["error"]["data"]["code"],
            "SESSION_REFERENCE_INVALID_CONFIG"
        );
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("search is off"), "{message}");

        // The symbol picker still finds sessions by id, cwd and title.
        let symbols = client
            .call("workspace/symbol", json!({"query": "deploy"}))
            .await;
        assert_eq!(symbols[0]["name"], "deploy-2026-11-28", "{symbols}");
        assert!(symbols[0]["containerName"]
            .as_str()
            .is_some_and(|c| c.starts_with("hydra · /home/ana/ops · ")));
        let none = client
            .call("workspace/symbol", json!({"query": "smoke tests"}))
            .await;
        assert_eq!(none, json!([]), "message bodies are not searched");

        let status = client.call("sessionReference/status", json!({})).await;
        assert_eq!(status["search"]["enabled"], false, "{status}");
        assert!(status["search"]["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("search is off")));
        client.shutdown_and_exit().await;
        assert!(server.wait().await.expect("exit").success());
        let written: Vec<_> = std::fs::read_dir(cache.path())
            .expect("the cache folder")
            .collect();
        assert!(written.is_empty(), "{args:?} {settings}: {written:?}");
    }
}

/// A full disk, for real, under the server: its cache is a filled 64 KiB
/// tmpfs in a mount namespace of the test's own (`unshare -Urm`, as the
/// CLI's test does). A search is refused with the reason, `status` says
/// search is off and why, and completion and the symbol picker still
/// answer from the sessions.
#[tokio::test]
async fn a_full_disk_turns_the_servers_search_off_and_the_rest_answers() {
    let probe = std::process::Command::new("unshare")
        .args(["-Urm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        crate::skip::skipped("no mount namespace here (`unshare -Urm` + tmpfs)");
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let store = demo_store();
    let script = "mount -t tmpfs -o size=64k,mode=0700 tmpfs \"$XDG_CACHE_HOME\" || exit 97
        dd if=/dev/zero of=\"$XDG_CACHE_HOME/fill\" bs=4k 2>/dev/null
        exec \"$SERVER\"";
    let mut command = server_command_of("unshare");
    command
        .args(["-Urm", "sh", "-c", script])
        .env("SERVER", env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .env("XDG_CACHE_HOME", cache.path());
    let (mut client, mut child) = spawn(command);
    client.start_searching(store.path(), "/home/ana/shop").await;

    let refused = client
        .request(
            "sessionReference/search",
            json!({"query": "regression tests"}),
        )
        .await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no space left"), "{refused}");
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["search"]["enabled"], false, "{status}");
    assert!(
        status["search"]["note"]
            .as_str()
            .is_some_and(|n| n.contains("no space left")),
        "{status}"
    );
    assert_eq!(status["sessions"], 4, "{status}");

    let uri = file_uri("/home/ana/shop/prompt.md");
    client.open(&uri, "@deploy").await;
    let listed = client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 7}}),
        )
        .await;
    assert_eq!(
        listed["items"][0]["data"]["sessionId"], "deploy-2026-11-28",
        "{listed}"
    );
    let symbols = client
        .call("workspace/symbol", json!({"query": "deploy"}))
        .await;
    assert_eq!(symbols[0]["name"], "deploy-2026-11-28", "{symbols}");
    client.shutdown_and_exit().await;
    assert!(child.wait().await.expect("exit").success());
    // The small disk was the namespace's alone.
    assert_eq!(std::fs::read_dir(cache.path()).expect("cache").count(), 0);
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
    client.start_searching(store.path(), "/home/ana/shop").await;
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

/// With search on, the server starts from the index cache its last run
/// wrote, as the CLI and the MCP server do: the second start lists the
/// same sessions, and a log added between the runs is found too.
#[tokio::test]
async fn a_second_start_lists_from_the_index_cache_and_sees_what_changed() {
    let cache = tempfile::tempdir().expect("tempdir");
    let store = demo_store();
    let statuses = |status: &Value| status["sessions"].as_u64();
    let mut counts = Vec::new();
    for run in 0..2 {
        if run == 1 {
            let cached: Vec<_> = std::fs::read_dir(cache.path().join("hydra-session"))
                .expect("the cache folder")
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".bin"))
                .collect();
            assert_eq!(cached.len(), 1, "one index cache: {cached:?}");
            LogBuilder::new("added-between-runs", 9, Some("/home/ana/shop"))
                .title("Written while no server ran")
                .write(&store.path().join("added.jsonl"));
        }
        let mut command = server_command();
        command.env("XDG_CACHE_HOME", cache.path());
        let (mut client, mut server) = spawn(command);
        client.start_searching(store.path(), "/home/ana/shop").await;
        while client.call("sessionReference/status", json!({})).await["indexing"] == true {}
        counts.push(statuses(
            &client.call("sessionReference/status", json!({})).await,
        ));
        let symbols = client
            .call("workspace/symbol", json!({"query": "no server ran"}))
            .await;
        assert_eq!(symbols.as_array().map(Vec::len), Some(run), "{symbols}");
        client.shutdown_and_exit().await;
        assert!(server.wait().await.expect("exit").success());
    }
    let first = counts[0].expect("a count");
    assert_eq!(counts, [Some(first), Some(first + 1)]);
}
