//! `hydra-session-lsp mcp` over stdio, as the real clients drive it: the
//! handshake (with and without `server/discover`), sessions as resources
//! read as `prepare`'s context, `list_changed` after a store append, the
//! tools and their errors, and bad input answered without a crash.

#[path = "../lsp_common/mod.rs"]
mod lsp_common;
mod mcp_common;
mod next;
mod warm;

use std::path::PathBuf;

use lsp_common::{demo_store, LogBuilder};
use mcp_common::*;
use serde_json::{json, Value};

/// A store, a folder to run in and a cache, removed with the test.
struct Setup {
    store: tempfile::TempDir,
    cwd: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl Setup {
    fn demo() -> Self {
        Setup {
            store: demo_store(),
            cwd: tempfile::tempdir().expect("tempdir"),
            cache: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn empty() -> Self {
        Setup {
            store: tempfile::tempdir().expect("tempdir"),
            ..Setup::demo()
        }
    }

    fn store(&self) -> String {
        self.store.path().to_string_lossy().into_owned()
    }

    fn spill_dir(&self) -> PathBuf {
        self.cache.path().join("spills")
    }

    /// The server's flags: this store, spills under the cache.
    fn flags(&self) -> Vec<String> {
        vec![
            "--store".into(),
            self.store(),
            "--spill-dir".into(),
            self.spill_dir().to_string_lossy().into_owned(),
        ]
    }

    fn spawn(&self, extra: &[&str]) -> McpClient {
        let mut args: Vec<String> = self.flags();
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        McpClient::spawn(&args, self.cwd.path(), self.cache.path())
    }

    /// The server with the variables `env` set.
    fn spawn_env(&self, env: &[(&str, &str)]) -> McpClient {
        let args: Vec<String> = self.flags();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        McpClient::spawn_env(&args, self.cwd.path(), self.cache.path(), env)
    }

    /// The CLI with the same flags, in the same folder, on `stdin`.
    fn cli(&self, command: &str, extra: &[&str], stdin: &str) -> std::process::Output {
        use std::io::Write;
        let mut args = vec![command.to_string()];
        args.extend(self.flags().into_iter().filter(|_| command == "prepare"));
        if command != "prepare" {
            args.extend(["--store".to_string(), self.store()]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = mcp_common::command(&args, self.cwd.path(), self.cache.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the CLI runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes())
            .expect("write");
        child.wait_with_output().expect("the CLI ends")
    }

    /// `prepare`'s `additionalContext` text for `message`.
    fn prepared_context(&self, message: &str) -> String {
        let out = self.cli("prepare", &["--format", "json"], message);
        let value: Value = serde_json::from_slice(&out.stdout).expect("prepare prints JSON");
        value["additionalContext"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no context: {value}"))
            .to_string()
    }
}

/// Each tool's `outputSchema`, by name.
async fn output_schemas(client: &mut McpClient) -> std::collections::HashMap<String, Value> {
    let tools = client.call("tools/list", json!({})).await;
    tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().expect("name").to_string();
            (name, t["outputSchema"].clone())
        })
        .collect()
}

fn assert_fits(schemas: &std::collections::HashMap<String, Value>, name: &str, result: &Value) {
    let errors = schema_errors(&schemas[name], &result["structuredContent"], name);
    assert!(errors.is_empty(), "{errors:?}");
}

fn resources(result: &Value) -> Vec<Value> {
    result["resources"].as_array().expect("resources").clone()
}

/// A tool result: whether it is an error, and its text. A success is an
/// object (`structuredContent`) of one member, its text block the JSON of
/// that same object (issue 25 item 1: Gemini CLI rejects a top-level
/// array); what is given back is that member, a string as it is, anything
/// else as JSON.
fn tool(client_result: &Value) -> (bool, String) {
    let text = tool_text(client_result);
    if client_result["isError"] == json!(true) {
        return (true, text);
    }
    let structured = &client_result["structuredContent"];
    let object = structured.as_object().expect("an object structuredContent");
    assert_eq!(
        serde_json::from_str::<Value>(&text).ok().as_ref(),
        Some(structured),
        "the text is the JSON of structuredContent"
    );
    assert_eq!(object.len(), 1, "{structured}");
    let member = object.values().next().expect("one member");
    let payload = match member {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    (false, payload)
}

#[tokio::test]
async fn handshake_without_discover() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    let init = client.initialize().await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["capabilities"]["resources"]["listChanged"], true);
    assert!(init["capabilities"]["tools"].is_object());
    assert_eq!(init["serverInfo"]["name"], "hydra-session-lsp");
    let instructions = init["instructions"].as_str().expect("instructions");
    assert!(instructions.contains("untrusted"), "{instructions}");
    assert!(instructions.contains("read_session"), "{instructions}");
    // Issue 25 item 4: the agents named are the formats this build reads.
    for agent in ["Claude Code", "Gemini CLI", "OpenCode", "Qwen Code", "Zed"] {
        assert!(instructions.contains(agent), "{instructions}");
    }
    // No resource templates: Claude Code completes them to URIs it never attaches.
    let templates = client.call("resources/templates/list", json!({})).await;
    assert_eq!(templates["resourceTemplates"], json!([]));
    assert!(client.close().await.success());
}

/// With an older revision forced (`--protocol`, or the environment), the
/// path of Claude Code's fallback: its `server/discover` probe is −32601.
#[tokio::test]
async fn handshake_after_a_server_discover_probe_with_an_older_revision_forced() {
    let setup = Setup::demo();
    for forced in ["flag", "env"] {
        let mut client = if forced == "flag" {
            setup.spawn(&["--protocol", "2025-11-25"])
        } else {
            setup.spawn_env(&[("HYDRA_SESSION_MCP_PROTOCOL", "2025-11-25")])
        };
        // What Claude Code 2.1.332 sends first, then the same without `_meta`.
        for params in [
            json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"}
            }}),
            json!({}),
            Value::Null,
        ] {
            let id = client.request("server/discover", params).await;
            let answer = client.answer(id).await;
            assert_eq!(answer["error"]["code"], -32601, "{forced}: {answer}");
        }
        // Anything else before `initialize` is answered the same way; the
        // server keeps running.
        let id = client.request("resources/list", json!({})).await;
        assert_eq!(client.answer(id).await["error"]["code"], -32601);
        client.notify("notifications/initialized", json!({})).await;
        let init = client.initialize_with("2026-07-28", json!({})).await;
        assert_eq!(init["protocolVersion"], "2025-11-25");
        // A probe after the handshake too.
        let id = client.request("server/discover", json!({})).await;
        assert_eq!(client.answer(id).await["error"]["code"], -32601);
        let list = client.call("resources/list", json!({})).await;
        assert_eq!(resources(&list).len(), 4);
        assert!(list.get("ttlMs").is_none(), "{list}");
        assert!(client.close().await.success());
    }
}

#[tokio::test]
async fn an_older_client_gets_its_version() {
    let setup = Setup::demo();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let mut client = setup.spawn(&[]);
        let init = client.initialize_with(version, json!({})).await;
        assert_eq!(init["protocolVersion"], version);
        assert_eq!(
            resources(&client.call("resources/list", json!({})).await).len(),
            4
        );
        assert!(client.close().await.success());
    }
}

#[tokio::test]
async fn resources_are_one_page_named_for_people() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let result = client.call("resources/list", json!({})).await;
    assert!(result.get("nextCursor").is_none(), "{result}");
    let list = resources(&result);
    let names: Vec<&str> = list.iter().filter_map(|r| r["name"].as_str()).collect();
    // Newest first (none is in this folder); the display title wins.
    assert_eq!(
        names,
        [
            "deploy-2026-11-28",
            "test-writer",
            "Checkout tax rounding",
            "Inventory refactor"
        ]
    );
    let checkout = &list[2];
    assert_eq!(
        checkout["description"],
        "Checkout tax rounding — hydra · shop · 2025-11-29 07:06"
    );
    assert_eq!(checkout["mimeType"], "text/markdown");
    for r in &list {
        let uri = r["uri"].as_str().expect("uri");
        assert!(uri.starts_with("session:"), "{uri}");
        assert!(!uri.contains(' '), "{uri}");
        assert!(uri.ends_with(|c: char| c.is_ascii_alphanumeric()), "{uri}");
    }
    assert_eq!(
        checkout["uri"], "session:checkout-tax-rounding/checkout-tax",
        "the slug from the title; a plain id is its own key"
    );
    for r in &list {
        assert_eq!(r["title"], r["name"], "{r}");
    }
    // The setting caps the list, in pages of one (20 pages hold the bound).
    let mut small = setup.spawn(&["--limit", "2"]);
    small.initialize().await;
    let first = small.call("resources/list", json!({})).await;
    assert_eq!(resources(&first).len(), 1);
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_string();
    let second = small
        .call("resources/list", json!({"cursor": cursor}))
        .await;
    assert_eq!(resources(&second).len(), 1);
    assert!(second.get("nextCursor").is_none(), "{second}");
    assert_ne!(resources(&first)[0]["uri"], resources(&second)[0]["uri"]);
}

#[tokio::test]
async fn this_workspace_ranks_first_the_clients_roots_over_the_cwd() {
    let setup = Setup::empty();
    let here = std::fs::canonicalize(setup.cwd.path()).expect("canonical cwd");
    let here = here.to_string_lossy().into_owned();
    let store = setup.store.path();
    LogBuilder::new("old-here", 1_000, Some(&here))
        .user("here")
        .write(&store.join("a.jsonl"));
    LogBuilder::new("no-cwd", 3_000, None)
        .user("nowhere")
        .write(&store.join("b.jsonl"));
    LogBuilder::new("new-elsewhere", 2_000, Some("/elsewhere/shop"))
        .user("there")
        .write(&store.join("c.jsonl"));
    let order = |list: &[Value]| -> Vec<String> {
        list.iter()
            .filter_map(|r| r["name"].as_str().map(String::from))
            .collect()
    };

    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let list = resources(&client.call("resources/list", json!({})).await);
    assert_eq!(order(&list), ["old-here", "no-cwd", "new-elsewhere"]);

    // A client with roots: its first root is the workspace.
    let mut client = setup.spawn(&[]);
    client
        .initialize_with("2025-11-25", json!({"roots": {"listChanged": true}}))
        .await;
    let asked = client.wait_for("roots/list").await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": asked["id"],
            "result": {"roots": [{"uri": "file:///elsewhere/shop/", "name": "shop"}]}}))
        .await;
    client
        .wait_for("notifications/resources/list_changed")
        .await;
    let list = resources(&client.call("resources/list", json!({})).await);
    assert_eq!(order(&list), ["new-elsewhere", "no-cwd", "old-here"]);
}

#[tokio::test]
async fn a_resource_reads_as_prepares_context_spill_included() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let list = resources(&client.call("resources/list", json!({})).await);
    // The mentions `candidates` gives, by id.
    let out = setup.cli("candidates", &[], "");
    let candidates: Vec<Value> = serde_json::from_slice(&out.stdout).expect("candidates JSON");
    let listed = client
        .call(
            "tools/call",
            json!({"name": "list_sessions", "arguments": {}}),
        )
        .await;
    assert!(
        listed["structuredContent"]["sessions"].is_array(),
        "{listed}"
    );
    let listed: Vec<Value> = serde_json::from_str(&tool(&listed).1).expect("list JSON");
    // Every read through MCP first: the CLI's `prepare` (the expected
    // text) writes the same spill folder, so the spill is checked before
    // the CLI runs, or it would hold with no MCP spill at all.
    let mut read_back = Vec::new();
    for r in &list {
        let uri = r["uri"].as_str().expect("uri");
        let entry = listed
            .iter()
            .find(|l| l["uri"] == uri)
            .expect("list_sessions lists every resource");
        let id = entry["id"].as_str().expect("id");
        let candidate = candidates
            .iter()
            .find(|c| c["sessionId"] == id)
            .expect("a candidate");
        assert_eq!(entry["mention"], candidate["mention"]);
        let read = client.call("resources/read", json!({"uri": uri})).await;
        assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
        assert_eq!(read["contents"][0]["uri"], uri);
        let text = read_text(&read);
        // The canonical forms read the same, unlisted.
        let mut others = Vec::new();
        for other in [
            hydra_session_lsp::reference::uri::encode(id),
            format!("session://hydra/{id}"),
            format!(
                "session:any-slug-at-all/{}",
                uri.rsplit('/').next().unwrap_or("")
            ),
        ] {
            let read = client.call("resources/read", json!({"uri": other})).await;
            others.push((other, read_text(&read)));
        }
        let mention = candidate["mention"].as_str().expect("mention").to_owned();
        read_back.push((uri.to_owned(), mention, text, others));
    }
    // The large session was cut to the automatic budget and its full
    // snapshot stored, by the MCP server alone, where `prepare` stores it.
    let spilled: Vec<_> = std::fs::read_dir(setup.spill_dir())
        .expect("the MCP server made the spill dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(
        spilled.len(),
        1,
        "the same snapshot, stored once: {spilled:?}"
    );
    let mut truncated = 0;
    for (uri, mention, text, others) in &read_back {
        if text.contains("\"fullSnapshot\":{\"path\":") {
            truncated += 1;
            let named = spilled[0].to_string_lossy().replace('\\', "\\\\");
            assert!(text.contains(&*named), "the read names its spill: {text}");
        }
        let expected = setup.prepared_context(mention);
        assert_eq!(text, &expected, "{uri}");
        for (other, read) in others {
            assert_eq!(read, &expected, "{other}");
        }
    }
    assert_eq!(truncated, 1);
    let after = std::fs::read_dir(setup.spill_dir())
        .expect("spill dir")
        .count();
    assert_eq!(after, 1, "the CLI stored the same snapshot again");
}

#[tokio::test]
async fn unreadable_and_unknown_resources_answer_with_a_reason() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    for uri in ["session:gone/no-such-session", "hydra-session:Im5vcGUi"] {
        let read = client.call("resources/read", json!({"uri": uri})).await;
        let text = read_text(&read);
        assert!(text.contains("SESSION_REFERENCE_READ_FAILED"), "{text}");
        assert!(text.contains("not found"), "{text}");
    }
    // A URI of no accepted form is a protocol error, answered.
    for uri in [
        "file:///etc/passwd",
        "session:no-key",
        "hydra-session:ImEiIA",
        "",
    ] {
        let id = client.request("resources/read", json!({"uri": uri})).await;
        let answer = client.answer(id).await;
        // MCP's "resource not found" (never any code, a crash's included).
        assert_eq!(answer["error"]["code"], -32002, "{uri}: {answer}");
    }
    assert!(client.close().await.success());
}

#[tokio::test]
async fn list_changed_follows_a_store_append() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    assert_eq!(
        resources(&client.call("resources/list", json!({})).await).len(),
        4
    );
    LogBuilder::new("fresh", 1_764_400_009_000, Some("/home/ana/shop"))
        .user("a new session")
        .title("Fresh work")
        .write(&setup.store.path().join("fresh.jsonl"));
    client
        .wait_for("notifications/resources/list_changed")
        .await;
    let list = resources(&client.call("resources/list", json!({})).await);
    assert_eq!(list.len(), 5);
    assert_eq!(list[0]["name"], "Fresh work");
    assert!(client.close().await.success());
}

#[tokio::test]
async fn a_new_title_renames_a_resource_but_keeps_its_uri() {
    let setup = Setup::empty();
    let log = setup.store.path().join("s.jsonl");
    LogBuilder::new("s", 1_000, None)
        .user("hello")
        .title("First title")
        .write(&log);
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let before = resources(&client.call("resources/list", json!({})).await);
    assert_eq!(before[0]["uri"], "session:first-title/s");
    LogBuilder::new("s", 1_000, None)
        .user("hello")
        .title("First title")
        .title("A better title")
        .write(&log);
    client
        .wait_for("notifications/resources/list_changed")
        .await;
    let after = resources(&client.call("resources/list", json!({})).await);
    assert_eq!(after[0]["name"], "A better title");
    // A mention typed from the earlier list still matches a listed URI.
    assert_eq!(after[0]["uri"], before[0]["uri"]);
    assert!(client.close().await.success());
}

#[tokio::test]
async fn tools_are_read_only_with_schemas() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let tools = client.call("tools/list", json!({})).await;
    let tools = tools["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "list_sessions",
            "read_session",
            "prepare",
            "search_sessions"
        ]
    );
    for t in &tools {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
    for (t, member) in tools
        .iter()
        .zip(["sessions", "context", "text", "sessions"])
    {
        let out = &t["outputSchema"];
        assert_eq!(out["type"], "object", "{t}");
        assert_eq!(out["anyOf"][0]["required"], json!([member]), "{t}");
        assert_eq!(out["anyOf"][1]["required"], json!(["error"]), "{t}");
    }
    assert_eq!(tools[1]["inputSchema"]["required"], json!(["session"]));
    assert_eq!(tools[2]["inputSchema"]["required"], json!(["text"]));
}

#[tokio::test]
async fn search_sessions_finds_by_what_was_said_and_fails_on_a_bad_query() {
    let call = |query: &str| json!({"name": "search_sessions", "arguments": {"query": query}});
    for (extra, on_disk) in [(&[][..], true), (&["--no-search-index"][..], false)] {
        let setup = Setup::demo();
        let mut client = setup.spawn(extra);
        client.initialize().await;
        let found = client.call("tools/call", call("regression tests")).await;
        let (error, text) = tool(&found);
        assert!(!error, "{text}");
        let schemas = output_schemas(&mut client).await;
        assert_fits(&schemas, "search_sessions", &found);
        let hits: Vec<Value> = serde_json::from_str(&text).expect("JSON");
        assert_eq!(hits[0]["sessionId"], "checkout-tax.test-writer");
        assert_eq!(hits[0]["agent"], "hydra");
        assert!(hits[0]["mention"]
            .as_str()
            .is_some_and(|m| m.starts_with("@[")));
        let snippet = &hits[0]["snippets"][0];
        assert!(snippet["text"]
            .as_str()
            .is_some_and(|t| t.contains("regression tests")));
        let bad = client.call("tools/call", call("tax \"open")).await;
        let (error, text) = tool(&bad);
        assert!(error, "{text}");
        assert!(text.contains("malformed search query: a quote"), "{text}");
        let index = setup.cache.path().join("hydra-session/search");
        assert_eq!(index.exists(), on_disk, "{extra:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn each_tool_answers_and_fails_with_a_code() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    let schemas = output_schemas(&mut client).await;

    let listed = client
        .call(
            "tools/call",
            call("list_sessions", json!({"query": "TAX", "limit": 5})),
        )
        .await;
    let (error, text) = tool(&listed);
    assert!(!error);
    assert_fits(&schemas, "list_sessions", &listed);
    let listed: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    let ids: Vec<&str> = listed.iter().filter_map(|l| l["id"].as_str()).collect();
    assert_eq!(ids, ["checkout-tax.test-writer", "checkout-tax"]);
    let checkout = &listed[1];
    assert_eq!(checkout["title"], "Checkout tax rounding");
    assert_eq!(checkout["agent"], "hydra");
    assert_eq!(checkout["cwd"], "/home/ana/shop");
    assert_eq!(checkout["createdAt"], "2025-11-29T07:06:41Z");
    assert_eq!(
        checkout["uri"],
        "session:checkout-tax-rounding/checkout-tax"
    );
    let mention = checkout["mention"].as_str().expect("mention").to_string();

    // read_session takes every form; all read the resource's text.
    let expected = setup.prepared_context(&mention);
    for session in [
        "session:checkout-tax-rounding/checkout-tax".to_string(),
        mention.clone(),
        "hydra-session:ImNoZWNrb3V0LXRheCI".to_string(),
        "checkout-tax".to_string(),
    ] {
        let read = client
            .call(
                "tools/call",
                call("read_session", json!({"session": session})),
            )
            .await;
        assert_eq!(tool(&read), (false, expected.clone()), "{session}");
        assert_fits(&schemas, "read_session", &read);
    }

    // prepare: the text form of `prepare`.
    let message = format!("Compare with {mention} please.");
    let prepared = client
        .call("tools/call", call("prepare", json!({"text": message})))
        .await;
    assert_fits(&schemas, "prepare", &prepared);
    let cli = setup.cli("prepare", &["--format", "text"], &message);
    assert_eq!(
        tool(&prepared),
        (false, String::from_utf8(cli.stdout).expect("UTF-8"))
    );

    // Errors are results with isError and the code.
    let four: String = ["a", "b", "c", "d"]
        .iter()
        .map(|id| lsp_common::mention(id, id))
        .collect();
    for (name, arguments, code) in [
        (
            "read_session",
            json!({"session": "no-such-session"}),
            "SESSION_REFERENCE_READ_FAILED",
        ),
        (
            "read_session",
            json!({"session": "session:x"}),
            "SESSION_REFERENCE_INVALID_REFERENCE",
        ),
        (
            "read_session",
            json!({"session": "@[a](hydra-session:!)"}),
            "SESSION_REFERENCE_INVALID_REFERENCE",
        ),
        (
            "read_session",
            json!({}),
            "SESSION_REFERENCE_INVALID_REFERENCE",
        ),
        (
            "read_session",
            json!({"session": 7}),
            "SESSION_REFERENCE_INVALID_REFERENCE",
        ),
        (
            "list_sessions",
            json!({"limit": 0}),
            "SESSION_REFERENCE_INVALID_REFERENCE",
        ),
        (
            "list_sessions",
            json!({"limit": -1}),
            "SESSION_REFERENCE_INVALID_REFERENCE",
        ),
        (
            "list_sessions",
            json!({"bogus": true}),
            "SESSION_REFERENCE_INVALID_REFERENCE",
        ),
        (
            "prepare",
            json!({"text": four}),
            "SESSION_REFERENCE_TOO_MANY",
        ),
        (
            "prepare",
            json!({"text": lsp_common::mention("nope", "nope")}),
            "SESSION_REFERENCE_READ_FAILED",
        ),
    ] {
        let result = client
            .call("tools/call", call(name, arguments.clone()))
            .await;
        let (error, text) = tool(&result);
        assert!(error, "{name} {arguments}: {result}");
        assert!(text.starts_with(code), "{name} {arguments}: {text}");
        assert_eq!(result["structuredContent"]["error"]["code"], code);
        let errors = schema_errors(&schemas[name], &result["structuredContent"], name);
        assert!(errors.is_empty(), "{errors:?}");
    }
    // An unknown tool is a protocol error.
    let id = client
        .request("tools/call", call("write_session", json!({})))
        .await;
    let answer = client.answer(id).await;
    // MCP's code for an unknown tool: invalid params.
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(client.close().await.success());
}

#[tokio::test]
async fn bad_input_is_answered_never_a_crash() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    // Garbage before the handshake: answered, never fatal.
    client.send_raw(b"not json at all\n\n[1,2]\n{}\n").await;
    client.initialize().await;
    client
        .send_raw(b"\xff\xfe garbage\n{\"jsonrpc\":\"2.0\",\"id\":\"x\"}\nnull\n{\"jsonrpc\":\"2.0\",\"method\":\"no/such\"}\n")
        .await;
    let id = client.request("no/such/method", json!({})).await;
    assert_eq!(client.answer(id).await["error"]["code"], -32601);
    // A line that is not JSON (or not UTF-8) is −32700 without an id; JSON
    // that is not a message (`[1,2]`, `{}`, `null`) −32600 without one, an
    // id without a method −32600 with it; a notification never answered.
    assert!(
        client.backlog.iter().all(|m| m.get("id").is_some()),
        "`\"id\": null`, never no id: {:?}",
        client.backlog
    );
    let codes: Vec<(i64, Value)> = client
        .backlog
        .iter()
        .map(|m| (m["error"]["code"].as_i64().unwrap_or(0), m["id"].clone()))
        .collect();
    assert_eq!(
        codes,
        vec![
            (-32700, Value::Null),
            (-32600, Value::Null),
            (-32600, Value::Null),
            (-32700, Value::Null),
            (-32600, json!("x")),
            (-32600, Value::Null),
        ],
        "{:?}",
        client.backlog
    );
    client.backlog.clear();

    // A 10 MB argument: a session that is not there, a message without
    // mentions (given back whole).
    let huge = "x".repeat(10 << 20);
    let read = client
        .call(
            "tools/call",
            json!({"name": "read_session", "arguments": {"session": huge}}),
        )
        .await;
    let (error, text) = tool(&read);
    assert!(error && text.len() < 1000, "the id is not echoed whole");
    let prepared = client
        .call(
            "tools/call",
            json!({"name": "prepare", "arguments": {"text": huge}}),
        )
        .await;
    let (error, text) = tool(&prepared);
    assert!(!error);
    assert_eq!(text.len(), huge.len() + 1);
    let read = client
        .call(
            "resources/read",
            json!({"uri": format!("session:x/{huge}")}),
        )
        .await;
    assert!(read_text(&read).len() < 1000);

    // Still serving, and it ends with its input.
    assert_eq!(
        resources(&client.call("resources/list", json!({})).await).len(),
        4
    );
    client.call("ping", json!({})).await;
    assert!(client.close().await.success());
}

/// Issue 27 item 1: params that do not fit their method were answered
/// −32601 "method not found", or (`params` not an object) not at all.
/// Each is −32602 with its id; a bad argument *value* stays a tool result.
#[tokio::test]
async fn params_that_do_not_fit_their_method_are_invalid_params() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let bad = [
        (
            "tools/call",
            json!({"name": "list_sessions", "arguments": [1]}),
        ),
        ("tools/call", json!({"arguments": {}})),
        ("tools/call", json!("list_sessions")),
        ("resources/read", json!({"uri": 12})),
        ("resources/read", json!({})),
        ("resources/read", json!("session:x/y")),
        ("resources/list", json!("x")),
        ("tools/list", json!(7)),
        ("no/such/method", json!("x")),
    ];
    for (method, params) in bad {
        let id = client.request(method, params.clone()).await;
        let answer = client.answer(id).await;
        assert_eq!(
            answer["error"]["code"], -32602,
            "{method} {params}: {answer}"
        );
    }
    // Every one answered once: nothing else came.
    assert!(client.backlog.is_empty(), "{:?}", client.backlog);
    let value = client
        .call(
            "tools/call",
            json!({"name": "list_sessions", "arguments": {"limit": "many"}}),
        )
        .await;
    assert_eq!(value["isError"], true, "{value}");
    // A request with an id no answer can carry: −32600 without an id.
    client
        .send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n")
        .await;
    let pinged = client.request("ping", json!({})).await;
    client.answer(pinged).await;
    let invalid: Vec<&Value> = client.backlog.iter().collect();
    assert_eq!(invalid.len(), 1, "{invalid:?}");
    assert_eq!(invalid[0]["error"]["code"], -32600);
    assert!(invalid[0]["id"].is_null());
    assert!(client.close().await.success());
}

#[tokio::test]
async fn the_server_ends_at_the_end_of_its_input_before_a_handshake() {
    let setup = Setup::demo();
    let client = setup.spawn(&[]);
    // Nothing was ever sent: not a crash, an ended session.
    let status = client.close().await;
    // Exit 1 (no session was held), never a panic's 101 or a signal.
    assert_eq!(status.code(), Some(1), "{status:?}");
}

#[test]
fn print_config_names_absolute_stores_for_every_client() {
    let setup = Setup::demo();
    std::fs::create_dir_all(setup.cwd.path().join("rel")).expect("mkdir");
    let here = std::fs::canonicalize(setup.cwd.path()).expect("canonical");
    let absolute = here.join("rel");
    for client in [
        "claude-code",
        "codex",
        "gemini",
        "qwen-code",
        "copilot-cli",
        "opencode",
        "kilo",
        "cursor",
        "vscode",
        "cline",
        "continue",
        "goose",
        "crush",
        "zed",
    ] {
        let out = mcp_common::command(
            &["mcp", "--print-config", client, "--store", "rel"],
            &here,
            setup.cache.path(),
        )
        .output()
        .expect("runs");
        assert!(out.status.success(), "{client}");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        assert!(
            text.contains(&*absolute.to_string_lossy()),
            "{client}: {text}"
        );
        if client == "claude-code" {
            assert!(text.contains("claude mcp add"), "{text}");
            assert!(text.contains("mcp__hydra__read_session"), "{text}");
        }
    }
    // Issue 27 item 18: a path that is not UTF-8 printed as another path
    // (`st\u{FFFD}\u{FFFD}`), exit 0. It is refused.
    {
        use std::os::unix::ffi::OsStrExt;
        let odd = std::ffi::OsStr::from_bytes(b"st\xff\xfe");
        for flag in ["--store", "--spill-dir"] {
            let out = mcp_common::command(
                &["mcp", "--print-config", "gemini"],
                &here,
                setup.cache.path(),
            )
            .arg(flag)
            .arg(odd)
            .output()
            .expect("runs");
            assert_eq!(out.status.code(), Some(2), "{flag}");
            assert!(out.stdout.is_empty(), "{flag}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("is not UTF-8") && stderr.contains(flag),
                "{stderr}"
            );
        }
    }
    let out = mcp_common::command(
        &["mcp", "--print-config", "emacs"],
        &here,
        setup.cache.path(),
    )
    .output()
    .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// Issue 27 item 15: a whole document (Gemini CLI's, Copilot Chat's) seen
/// half-written and then completed in place under a stamp that cannot tell
/// (`lsp_common::in_place`) is listed once its write is heard, not only
/// after some other file changes. Another document written after each
/// step is the sign that the server has seen that step.
#[tokio::test]
async fn a_document_completed_in_place_under_an_equal_stamp_is_listed() {
    use lsp_common::in_place::{documents, InPlace};
    for i in 0..2 {
        let setup = Setup::empty();
        let root = setup.store.path();
        let (format, path, text) = documents(root, "whole", "the whole doc").swap_remove(i);
        let mut client = setup.spawn(&["--store-format", format]);
        client.initialize().await;
        let mut doc = InPlace::half(&path, &text);
        let (_, one, one_text) = documents(root, "one", "first sign").swap_remove(i);
        std::fs::write(one, one_text).expect("write");
        let names = listed_once(&mut client, "first sign").await;
        assert!(
            !names.contains(&"the whole doc".to_string()),
            "{format}: {names:?}"
        );
        assert!(
            doc.complete(),
            "the completion must leave the stat as it was (the case under test)"
        );
        let (_, two, two_text) = documents(root, "two", "second sign").swap_remove(i);
        std::fs::write(two, two_text).expect("write");
        let names = listed_once(&mut client, "second sign").await;
        assert!(
            names.contains(&"the whole doc".to_string()),
            "{format}: the completed document is missing: {names:?}"
        );
        assert!(client.close().await.success());
    }
}

/// The resources' names once one is named `name` (polled, with a deadline:
/// file events come when they come).
async fn listed_once(client: &mut McpClient, name: &str) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + lsp_common::PATIENCE;
    loop {
        let list = resources(&client.call("resources/list", json!({})).await);
        let names: Vec<String> = list
            .iter()
            .filter_map(|r| r["name"].as_str().map(String::from))
            .collect();
        if names.iter().any(|n| n == name) {
            return names;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} never listed: {names:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Issue 27, tests that prove what they say: the MCP server's search is
/// fresh. A word in a message appended to a watched log after the first
/// search is found by `search_sessions` (polled with a deadline: file
/// events come when they come), with the index on disk and without one.
#[tokio::test]
async fn search_sessions_finds_a_word_appended_to_a_watched_log() {
    use std::io::Write;
    let call = |query: &str| json!({"name": "search_sessions", "arguments": {"query": query}});
    for extra in [&[][..], &["--no-search-index"][..]] {
        let setup = Setup::empty();
        let log = setup.store.path().join("growing.jsonl");
        let builder = LogBuilder::new("growing", 1_764_400_011_000, Some("/home/ana/shop"))
            .user("start the ledger")
            .assistant("ledger started");
        builder.write(&log);
        let mut client = setup.spawn(extra);
        client.initialize().await;
        let hits = |found: &Value| -> Vec<Value> {
            let (error, text) = tool(found);
            assert!(!error || text.contains("still indexing"), "{text}");
            serde_json::from_str(&text).unwrap_or_default()
        };
        let found = client.call("tools/call", call("ledger")).await;
        assert_eq!(hits(&found).len(), 1, "{extra:?}: {found}");
        let none = client.call("tools/call", call("zanzibarite")).await;
        assert!(hits(&none).is_empty(), "{extra:?}: {none}");
        let before = builder.text();
        let grown = builder
            .user("reconcile the quarterly zanzibarite totals")
            .text();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .expect("open the log")
            .write_all(&grown.as_bytes()[before.len()..])
            .expect("append");
        let deadline = tokio::time::Instant::now() + lsp_common::PATIENCE;
        loop {
            let found = client.call("tools/call", call("zanzibarite")).await;
            let hits = hits(&found);
            if let [hit] = &hits[..] {
                assert_eq!(hit["sessionId"], "growing");
                assert!(hit["snippets"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("quarterly zanzibarite")));
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{extra:?}: the appended word was never found: {found}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(client.close().await.success());
    }
}
