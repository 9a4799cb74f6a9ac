//! docs/lsp-extensions.md stays in step with the server's route table.

use std::collections::BTreeSet;

use hydra_session_lsp::server::CUSTOM_METHODS;

#[test]
fn every_custom_method_is_documented_and_nothing_else() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/lsp-extensions.md"
    ))
    .expect("doc");
    let documented: BTreeSet<&str> = doc
        .lines()
        .filter_map(|line| line.strip_prefix("## `"))
        .filter_map(|rest| rest.strip_suffix('`'))
        .collect();
    let routed: BTreeSet<&str> = CUSTOM_METHODS.iter().copied().collect();
    assert_eq!(documented, routed);
}

mod lsp_common;

/// And every listed method is really routed (not MethodNotFound).
#[tokio::test]
async fn every_listed_method_is_routed() {
    let store = lsp_common::demo_store();
    let (mut client, _server) = lsp_common::in_process();
    client.start(store.path(), "/w").await;
    let uri = lsp_common::file_uri("/w/p.md");
    client.open(&uri, "").await;
    for method in CUSTOM_METHODS {
        let response = client
            .request(method, serde_json::json!({"textDocument": {"uri": uri}}))
            .await;
        assert_ne!(response["error"]["code"], -32601, "{method} is not routed");
    }
}
