//! MCP 2026-07-28 (issue 25 item 7): `server/discover`, the lifecycle in
//! every request's `_meta`, the caching hints on list and read results,
//! `subscriptions/listen`; and the template offered only to the clients
//! that attach templated URIs (item 6).

use super::*;

/// The `_meta` a 2026-07-28 request carries, from client `name`.
fn meta(name: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"}
    })
}

/// `params` with the 2026-07-28 `_meta` of client `name` added.
fn with_meta(name: &str, mut params: Value) -> Value {
    params["_meta"] = meta(name);
    params
}

#[tokio::test]
async fn discover_then_requests_that_carry_their_own_meta() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    let discovered = client
        .call("server/discover", json!({"_meta": meta("claude-code")}))
        .await;
    let versions = discovered["supportedVersions"]
        .as_array()
        .expect("versions");
    for version in ["2026-07-28", "2025-11-25", "2025-06-18"] {
        assert!(versions.contains(&json!(version)), "{discovered}");
    }
    assert_eq!(discovered["capabilities"]["resources"]["listChanged"], true);
    assert!(
        discovered["instructions"].as_str().is_some(),
        "{discovered}"
    );
    // A request without its `_meta` is refused, and the server goes on.
    let id = client.request("resources/list", json!({})).await;
    assert_eq!(client.answer(id).await["error"]["code"], -32602);
    // With it: the list, with its caching hints, every resource titled.
    let list = client
        .call("resources/list", with_meta("claude-code", json!({})))
        .await;
    assert_eq!(list["ttlMs"], 5000, "{list}");
    assert_eq!(list["cacheScope"], "private", "{list}");
    let listed = resources(&list);
    assert_eq!(listed.len(), 4);
    for r in &listed {
        assert!(r["title"].is_string() && r["name"].is_string(), "{r}");
    }
    let uri = listed[2]["uri"].clone();
    let read = client
        .call(
            "resources/read",
            with_meta("claude-code", json!({"uri": uri})),
        )
        .await;
    assert_eq!(read["ttlMs"], 5000, "{read}");
    assert_eq!(read["cacheScope"], "private", "{read}");
    assert!(read_text(&read).contains("Checkout"), "{read}");
    let tools = client
        .call("tools/list", with_meta("claude-code", json!({})))
        .await;
    assert!(tools["ttlMs"].as_u64().is_some_and(|t| t > 0), "{tools}");
    let called = client
        .call(
            "tools/call",
            with_meta(
                "claude-code",
                json!({"name": "list_sessions", "arguments": {"limit": 1}}),
            ),
        )
        .await;
    assert_eq!(called["isError"], false, "{called}");
    // An unknown session's read is −32602 in this revision (−32002 before).
    let id = client
        .request(
            "resources/read",
            with_meta("claude-code", json!({"uri": "file:///etc/passwd"})),
        )
        .await;
    assert_eq!(client.answer(id).await["error"]["code"], -32602);
    assert!(client.close().await.success());
}

#[tokio::test]
async fn a_subscription_hears_of_a_store_append() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    let list = client
        .call("resources/list", with_meta("claude-code", json!({})))
        .await;
    assert_eq!(resources(&list).len(), 4);
    let listen = client
        .request(
            "subscriptions/listen",
            with_meta(
                "claude-code",
                json!({"notifications": {"resourcesListChanged": true, "toolsListChanged": true}}),
            ),
        )
        .await;
    let acknowledged = client
        .wait_for("notifications/subscriptions/acknowledged")
        .await;
    // Only what the server sends is accepted.
    assert_eq!(
        acknowledged["params"]["notifications"],
        json!({"resourcesListChanged": true}),
        "{acknowledged}"
    );
    LogBuilder::new("fresh", 1_764_400_009_000, Some("/home/ana/shop"))
        .user("a new session")
        .title("Fresh work")
        .write(&setup.store.path().join("fresh.jsonl"));
    let changed = client
        .wait_for("notifications/resources/list_changed")
        .await;
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(listen),
        "{changed}"
    );
    let list = client
        .call("resources/list", with_meta("claude-code", json!({})))
        .await;
    assert_eq!(resources(&list)[0]["name"], "Fresh work");
    client
        .notify(
            "notifications/cancelled",
            json!({"requestId": listen, "reason": "done"}),
        )
        .await;
    assert!(client.close().await.success());
}

#[tokio::test]
async fn the_template_and_its_completion_only_for_clients_that_attach_it() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    for (name, offered) in [("qwen-cli-mcp-client-hydra", true), ("claude-code", false)] {
        let templates = client
            .call("resources/templates/list", with_meta(name, json!({})))
            .await;
        let listed = templates["resourceTemplates"].as_array().expect("a list");
        assert_eq!(listed.len(), usize::from(offered), "{name}: {templates}");
    }
    let template = json!({"type": "ref/resource", "uri": "session:{slug}/{id}"});
    let slugs = client
        .call(
            "completion/complete",
            with_meta(
                "qwen-cli-mcp-client-hydra",
                json!({"ref": template, "argument": {"name": "slug", "value": "checkout"}}),
            ),
        )
        .await;
    // The titles and the ids: `test-writer`'s id is checkout-tax.test-writer.
    let values = slugs["completion"]["values"].as_array().expect("values");
    assert!(values.contains(&json!("checkout-tax-rounding")), "{slugs}");
    assert!(values.contains(&json!("test-writer")), "{slugs}");
    assert!(!values.contains(&json!("inventory-refactor")), "{slugs}");
    let ids = client
        .call(
            "completion/complete",
            with_meta(
                "qwen-cli-mcp-client-hydra",
                json!({"ref": template, "argument": {"name": "id", "value": "checkout"},
                       "context": {"arguments": {"slug": "checkout-tax-rounding"}}}),
            ),
        )
        .await;
    assert_eq!(ids["completion"]["values"], json!(["checkout-tax"]));
    // The completed URI reads as the listed one.
    let read = client
        .call(
            "resources/read",
            with_meta(
                "qwen-cli-mcp-client-hydra",
                json!({"uri": "session:checkout-tax-rounding/checkout-tax"}),
            ),
        )
        .await;
    assert!(read_text(&read).contains("Checkout"), "{read}");
    assert!(client.close().await.success());
    // Over the handshake, by the initialize's clientInfo.
    let mut old = setup.spawn(&[]);
    old.initialize().await;
    let templates = old.call("resources/templates/list", json!({})).await;
    assert_eq!(templates["resourceTemplates"], json!([]));
    assert!(old.close().await.success());
}

#[tokio::test]
async fn a_bad_cursor_is_invalid_params() {
    let setup = Setup::demo();
    let mut client = setup.spawn(&[]);
    client.initialize().await;
    let id = client
        .request("resources/list", json!({"cursor": "at:7"}))
        .await;
    assert_eq!(client.answer(id).await["error"]["code"], -32602);
    assert!(client.close().await.success());
}
