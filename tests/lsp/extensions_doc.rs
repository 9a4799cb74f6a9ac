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

/// The files that define every param and result on the wire: the
/// requests (`lsp_ext.rs`) and the result shapes the CLI prints too.
const SHAPE_FILES: [&str; 2] = ["src/server/lsp_ext.rs", "src/proto/ext.rs"];

/// The page records the hash of the files that define the requests' types,
/// so a change of shape forces a change of the page (rust-analyzer's way).
#[test]
fn the_documented_shapes_are_those_of_lsp_ext() {
    let root = env!("CARGO_MANIFEST_DIR");
    let doc = std::fs::read_to_string(format!("{root}/docs/lsp-extensions.md")).expect("doc");
    let mut source = String::new();
    for file in SHAPE_FILES {
        source += &std::fs::read_to_string(format!("{root}/{file}")).expect(file);
    }
    let hash = short_sha256(source.replace("\r\n", "\n").as_bytes());
    let recorded = doc
        .lines()
        .find_map(|l| l.strip_prefix("<!-- lsp_ext.rs + proto/ext.rs hash: "))
        .and_then(|l| l.strip_suffix(" -->"))
        .expect("the doc records the hash of lsp_ext.rs and proto/ext.rs");
    assert_eq!(
        recorded, hash,
        "{SHAPE_FILES:?} changed: update docs/lsp-extensions.md, then its hash"
    );
}

/// The first 8 bytes of the SHA-256, in hex: enough to tell a change, and
/// short enough for a comment line (the crate the program already uses).
fn short_sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

use crate::lsp_common;

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
