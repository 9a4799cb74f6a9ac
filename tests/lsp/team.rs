//! Team stores over the language server (issue 26), with a `file://`
//! store and a snapshot cache of the server's own: a pinned mention not
//! fetched yet is "fetching" (not "unknown"), fetched in the background,
//! then resolves; a tampered snapshot ends as `READ_FAILED`; hover tells
//! which version a mention is; `sessionReference/publish` round-trips.

use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::lsp_common::{file_uri, mention, server_command, spawn, LogBuilder, ProcessClient};

const FETCHING: &str = "SESSION_REFERENCE_FETCHING";
const READ_FAILED: &str = "SESSION_REFERENCE_READ_FAILED";

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `~ana/s1` published twice into the store at `root`; the two digests,
/// oldest first.
fn team_store(root: &Path) -> (String, String) {
    let snaps = root.join("snapshots/sha256");
    std::fs::create_dir_all(&snaps).unwrap();
    let one = LogBuilder::new("s1", 1_764_400_000_000, Some("/home/ana/shop"))
        .user("first version of the rounding fix")
        .text();
    let two = LogBuilder::new("s1", 1_764_400_000_000, Some("/home/ana/shop"))
        .user("second version of the rounding fix")
        .text();
    let (sha1, sha2) = (hex(one.as_bytes()), hex(two.as_bytes()));
    std::fs::write(snaps.join(format!("{sha1}.jsonl")), &one).unwrap();
    std::fs::write(snaps.join(format!("{sha2}.jsonl")), &two).unwrap();
    let dir = root.join("sessions/ana").join(URL_SAFE_NO_PAD.encode("s1"));
    std::fs::create_dir_all(&dir).unwrap();
    let entry = |sha: &str, n: usize, at: &str| json!({"sha256": sha, "bytes": n, "publishedAt": at, "title": "Rounding"});
    let manifest = json!({"version": 1, "sessionId": "~ana/s1", "entries": [
        entry(&sha1, one.len(), "2026-12-01T09:00:00Z"),
        entry(&sha2, two.len(), "2026-12-02T09:00:00Z"),
    ]});
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
    (sha1, sha2)
}

/// The server over stdio with `local` and the team store at `url` as its
/// stores and a snapshot cache of its own (nothing fetched yet).
async fn start(local: &Path, url: &str, cache: &Path) -> (ProcessClient, tokio::process::Child) {
    let mut command = server_command();
    command.env("XDG_CACHE_HOME", cache);
    let (mut client, child) = spawn(command);
    client
        .start_with(
            local,
            local.to_str().unwrap(),
            json!({"searchIndex": false, "store": [local, url]}),
        )
        .await;
    (client, child)
}

fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The next diagnostics of `uri` that `pred` accepts (earlier ones, the
/// store not listed yet for instance, are passed over).
async fn diagnostics_where(
    client: &mut ProcessClient,
    uri: &str,
    what: &str,
    pred: impl Fn(&[String]) -> bool,
) -> Value {
    let message = client
        .wait_for(what, |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && pred(&codes(&m["params"]["diagnostics"]))
        })
        .await;
    message["params"]["diagnostics"].clone()
}

async fn hover(client: &mut ProcessClient, uri: &str, line: u32) -> String {
    let result = client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 3}}),
        )
        .await;
    result["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_pinned_mention_is_fetching_then_resolves_and_hover_tells_its_version() {
    let (local, team, cache) = (tempdir(), tempdir(), tempdir());
    let (sha1, sha2) = team_store(team.path());
    let url = format!("file://{}", team.path().display());
    let (mut client, _child) = start(local.path(), &url, cache.path()).await;

    let pinned = format!("~ana/s1@sha256:{sha1}");
    let doc = file_uri(&local.path().join("prompt.md").to_string_lossy());
    let text = format!(
        "{}\n{}\n",
        mention(&pinned, "old fix"),
        mention("~ana/s1", "fix")
    );
    client.open(&doc, &text).await;

    let fetching = diagnostics_where(&mut client, &doc, "a fetching diagnostic", |c| {
        c.iter().any(|c| c == FETCHING)
    })
    .await;
    let first = fetching
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == FETCHING)
        .unwrap();
    assert_eq!(first["severity"], 3, "Information: {first}");
    let message = first["message"].as_str().unwrap();
    assert!(
        message.contains("fetching") && message.contains(&url),
        "{message}"
    );
    assert!(
        !codes(&fetching).iter().any(|c| c == READ_FAILED),
        "{fetching}"
    );

    // Both versions fetched in the background: nothing left to say (the
    // diagnostics before the store's first listing, "fetching" too, are
    // passed over; tests/team/pending.rs holds that listing back to see
    // them).
    diagnostics_where(
        &mut client,
        &doc,
        "the resolved diagnostics",
        <[String]>::is_empty,
    )
    .await;
    for sha in [&sha1, &sha2] {
        let cached = cache
            .path()
            .join(format!("hydra-session-lsp/team/snapshots/{sha}.jsonl"));
        assert!(cached.is_file(), "{} not cached", cached.display());
    }

    let old = hover(&mut client, &doc, 0).await;
    assert!(
        old.contains(&format!(
            "pinned version: `sha256:{}` (1 of 2 in the manifest, published 2026-12-01T09:00:00Z)",
            &sha1[..12]
        )),
        "{old}"
    );
    assert!(
        old.contains(&format!(
            "a newer version exists: `sha256:{}` (published 2026-12-02T09:00:00Z)",
            &sha2[..12]
        )),
        "{old}"
    );
    assert!(old.contains("first version of the rounding fix"), "{old}");
    let live = hover(&mut client, &doc, 1).await;
    assert!(
        live.contains(&format!(
            "latest version: `sha256:{}` (2 of 2 in the manifest, published 2026-12-02T09:00:00Z)",
            &sha2[..12]
        )),
        "{live}"
    );
    assert!(
        live.contains("second version of the rounding fix"),
        "{live}"
    );
    assert!(!live.contains("newer version"), "{live}");
    client.shutdown_and_exit().await;
}

#[tokio::test]
async fn a_tampered_snapshot_is_fetching_then_read_failed() {
    let (local, team, cache) = (tempdir(), tempdir(), tempdir());
    let (sha1, _) = team_store(team.path());
    let path = team.path().join(format!("snapshots/sha256/{sha1}.jsonl"));
    std::fs::write(&path, "tampered\n").unwrap();
    let url = format!("file://{}", team.path().display());
    let (mut client, _child) = start(local.path(), &url, cache.path()).await;

    let doc = file_uri(&local.path().join("prompt.md").to_string_lossy());
    let pinned = format!("~ana/s1@sha256:{sha1}");
    client
        .open(&doc, &format!("{}\n", mention(&pinned, "old fix")))
        .await;
    diagnostics_where(&mut client, &doc, "a fetching diagnostic", |c| {
        c == [FETCHING]
    })
    .await;
    // (Before the store's first listing the pin is "fetching" as well:
    // passed over by asking for the failure that names the hash.)
    let failed = client
        .wait_for("the failed fetch", |m| {
            let d = &m["params"]["diagnostics"];
            m["method"] == "textDocument/publishDiagnostics"
                && codes(d) == [READ_FAILED]
                && d[0]["message"]
                    .as_str()
                    .is_some_and(|t| t.contains("do not have that hash"))
        })
        .await["params"]["diagnostics"]
        .clone();
    let message = failed[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("failed to read referenced session")
            && message.contains(&format!("sha256:{sha1} do not have that hash")),
        "{message}"
    );
    // The failure stays (no fetch loop): hover says the same.
    let shown = hover(&mut client, &doc, 0).await;
    assert!(shown.contains("do not have that hash"), "{shown}");
    client.shutdown_and_exit().await;
}

#[tokio::test]
async fn publish_over_the_lsp_writes_the_store_and_the_pin_resolves_at_once() {
    let (local, team, cache) = (tempdir(), tempdir(), tempdir());
    LogBuilder::new("checkout-fix", 1_764_400_000_000, Some("/home/ana/shop"))
        .user("round the tax per line")
        .assistant("done: per-line rounding")
        .title("Checkout rounding")
        .write(&local.path().join("checkout-fix.jsonl"));
    let url = format!("file://{}", team.path().display());
    let (mut client, _child) = start(local.path(), &url, cache.path()).await;

    let published = client
        .call(
            "sessionReference/publish",
            json!({"to": url, "sessions": ["checkout-fix"], "as": "ana"}),
        )
        .await;
    let one = &published[0];
    assert_eq!(one["sessionId"], "~ana/checkout-fix", "{published}");
    let sha = one["sha256"].as_str().unwrap();
    let snapshot = std::fs::read(team.path().join(format!("snapshots/sha256/{sha}.jsonl")))
        .expect("the snapshot in the store");
    assert_eq!(hex(&snapshot), sha);
    assert_eq!(one["bytes"], snapshot.len());
    let manifest = team.path().join(format!(
        "sessions/ana/{}/manifest.json",
        URL_SAFE_NO_PAD.encode("checkout-fix")
    ));
    let manifest: Value = serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    assert_eq!(manifest["entries"][0]["sha256"], sha, "{manifest}");
    let mention_text = one["mention"].as_str().unwrap();
    assert!(
        mention_text
            .contains(&URL_SAFE_NO_PAD.encode(format!("\"~ana/checkout-fix@sha256:{sha}\""))),
        "{mention_text}"
    );

    // Publishing filled the cache, and had the team store listed again:
    // the pin resolves (no poll to wait for) and needs no fetch.
    let cached = cache
        .path()
        .join(format!("hydra-session-lsp/team/snapshots/{sha}.jsonl"));
    assert!(cached.is_file(), "{} not cached", cached.display());
    let doc = file_uri(&local.path().join("prompt.md").to_string_lossy());
    client.open(&doc, &format!("{mention_text}\n")).await;
    diagnostics_where(&mut client, &doc, "the pin resolved", <[String]>::is_empty).await;
    let before = client.drain("textDocument/publishDiagnostics").await;
    assert!(
        before.iter().all(|m| !codes(&m["params"]["diagnostics"])
            .iter()
            .any(|c| c == FETCHING)),
        "{before:?}"
    );
    let shown = hover(&mut client, &doc, 0).await;
    assert!(
        shown.contains(&format!("pinned version: `sha256:{}` (1 of 1", &sha[..12]))
            && shown.contains("no newer version")
            && shown.contains("per-line rounding"),
        "{shown}"
    );
    client.shutdown_and_exit().await;
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}
