//! A warm start (issues 25 and 28): the server lists from the on-disk
//! index cache before it checks a log, reads a session whose log is as
//! recorded at once, and once every log is checked announces what changed
//! while it was down (`list_changed`) and lists that. The check is held by
//! the debug build's index gate (`HYDRA_SESSION_TEST_INDEX_GATE`, a FIFO
//! the first index waits on before it starts and after its recorded view
//! is published), so the test knows which view answers without timing.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::lsp_common::LogBuilder;
use super::mcp_common::*;
use super::{resources, Setup};

/// A FIFO for the index gate, in `dir`.
fn index_gate(dir: &Path) -> PathBuf {
    let gate = dir.join("gate");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &gate,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
    gate
}

/// Lets the first index past the gate once: opening the FIFO for writing
/// waits until the index stands at it; closing it lets the index go on.
async fn open_gate(gate: &Path) {
    let writer = gate.to_path_buf();
    tokio::task::spawn_blocking(move || drop(std::fs::OpenOptions::new().write(true).open(writer)))
        .await
        .expect("the gate opens");
}

/// The listed resources' names and URIs, in order.
async fn listed(client: &mut McpClient) -> Vec<(String, String)> {
    resources(&client.call("resources/list", json!({})).await)
        .iter()
        .map(|r| {
            let text = |v: &Value| v.as_str().expect("a string").to_string();
            (text(&r["name"]), text(&r["uri"]))
        })
        .collect()
}

fn uri_of<'a>(list: &'a [(String, String)], name: &str) -> &'a str {
    &list
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} is not listed: {list:?}"))
        .1
}

async fn read(client: &mut McpClient, uri: &str) -> String {
    read_text(&client.call("resources/read", json!({"uri": uri})).await)
}

#[tokio::test]
async fn a_warm_start_lists_from_the_cache_then_announces_what_changed() {
    let setup = Setup::empty();
    let at = |name: &str| setup.store.path().join(format!("{name}.jsonl"));
    LogBuilder::new("kept", 1_000, None)
        .user("nothing changes here")
        .title("Kept as it was")
        .write(&at("kept"));
    LogBuilder::new("renamed", 2_000, None)
        .user("hello")
        .title("First title")
        .write(&at("renamed"));
    LogBuilder::new("gone", 3_000, None)
        .user("soon deleted")
        .title("Deleted while down")
        .write(&at("gone"));

    // A first run indexes every log and leaves the cache.
    let mut cold = setup.spawn(&[]);
    cold.initialize().await;
    let before = listed(&mut cold).await;
    assert_eq!(before.len(), 3, "{before:?}");
    let kept_text = read(&mut cold, uri_of(&before, "Kept as it was")).await;
    assert!(kept_text.contains("nothing changes here"), "{kept_text}");
    assert!(cold.close().await.success());

    // While no server runs: one log gets a new title, one goes.
    LogBuilder::new("renamed", 2_000, None)
        .user("hello")
        .title("First title")
        .title("A better title")
        .write(&at("renamed"));
    std::fs::remove_file(at("gone")).expect("remove");

    let gate = index_gate(setup.cache.path());
    let gate_env = gate.to_string_lossy().into_owned();
    let mut warm = setup.spawn_env(&[("HYDRA_SESSION_TEST_INDEX_GATE", &gate_env)]);
    warm.initialize().await;
    // Past the gate before the cache is read; the index then holds at the
    // gate again with the recorded view published, no log checked.
    open_gate(&gate).await;
    let recorded = listed(&mut warm).await;
    assert_eq!(recorded, before, "the first page is the cache's");
    // A log as recorded is read at once, with the same bytes as before.
    let kept = uri_of(&recorded, "Kept as it was").to_string();
    assert_eq!(read(&mut warm, &kept).await, kept_text);

    // A log gone since the record: its read waits for the check and then
    // says what it says of any session not in the store.
    let gone = uri_of(&recorded, "Deleted while down").to_string();
    let asked = warm.request("resources/read", json!({"uri": gone})).await;
    open_gate(&gate).await;
    let answer = warm.answer(asked).await;
    let text = read_text(&answer["result"]);
    assert!(text.contains("SESSION_REFERENCE_READ_FAILED"), "{text}");
    assert!(text.contains("not found"), "{text}");

    // The check found the changes: announced, and listed.
    warm.wait_for("notifications/resources/list_changed").await;
    let checked = listed(&mut warm).await;
    let names: Vec<&str> = checked.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["A better title", "Kept as it was"], "{checked:?}");
    // The URI a client saw in the first page still names the session.
    assert_eq!(
        uri_of(&checked, "A better title"),
        uri_of(&recorded, "First title")
    );
    assert!(warm.close().await.success());
}
