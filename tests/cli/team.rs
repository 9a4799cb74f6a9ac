//! A team store at a `file://` URL (issue 26): a manifest and snapshots
//! written by the test itself, listed by `candidates` and read by
//! `prepare` under the live and the pinned id.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::Value;
use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn snapshot(text: &str) -> Vec<u8> {
    format!(
        "{{\"type\":\"session\",\"version\":1,\"id\":\"s1\",\"createdAt\":1764400000000,\"cwd\":\"/home/ana/shop\"}}\n\
         {{\"seq\":1,\"type\":\"user/message\",\"data\":{{\"id\":\"u1\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}}}\n"
    )
    .into_bytes()
}

/// A store with two versions of `~ana/s1`; their digests, oldest first.
fn team_store(root: &Path) -> (String, String) {
    let snaps = root.join("snapshots/sha256");
    std::fs::create_dir_all(&snaps).unwrap();
    let (one, two) = (snapshot("first version"), snapshot("second version"));
    let (sha1, sha2) = (hex(&one), hex(&two));
    std::fs::write(snaps.join(format!("{sha1}.jsonl")), &one).unwrap();
    std::fs::write(snaps.join(format!("{sha2}.jsonl")), &two).unwrap();
    let dir = root.join("sessions/ana").join(URL_SAFE_NO_PAD.encode("s1"));
    std::fs::create_dir_all(&dir).unwrap();
    let entry = |sha: &str, n: usize| {
        format!(
            r#"{{"sha256":"{sha}","bytes":{n},"publishedAt":"2026-12-02T09:00:00Z","title":"Rounding"}}"#
        )
    };
    let manifest = format!(
        r#"{{"version":1,"sessionId":"~ana/s1","entries":[{},{}]}}"#,
        entry(&sha1, one.len()),
        entry(&sha2, two.len())
    );
    std::fs::write(dir.join("manifest.json"), manifest).unwrap();
    (sha1, sha2)
}

fn run(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(args)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env("XDG_CACHE_HOME", cache)
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .expect("binary runs")
}

fn mention(id: &str) -> String {
    let json = serde_json::to_string(id).unwrap();
    format!("@[x](hydra-session:{})", URL_SAFE_NO_PAD.encode(json))
}

fn context(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let v: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    v["additionalContext"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_file_team_store_lists_and_prepares_the_live_and_the_pinned_id() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (sha1, _) = team_store(root.path());
    let url = format!("file://{}", root.path().display());
    let listed = run(&["candidates", "--store", &url], cache.path());
    assert_eq!(listed.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(list[0]["sessionId"], "~ana/s1", "{list}");

    let prompt = root.path().join("prompt.md");
    std::fs::write(&prompt, format!("See {}.\n", mention("~ana/s1"))).unwrap();
    let live = context(&run(
        &["prepare", "--store", &url, prompt.to_str().unwrap()],
        cache.path(),
    ));
    assert!(
        live.contains("second version") && !live.contains("first version"),
        "{live}"
    );

    let pinned = format!("~ana/s1@sha256:{sha1}");
    std::fs::write(&prompt, format!("See {}.\n", mention(&pinned))).unwrap();
    let old = context(&run(
        &["prepare", "--store", &url, prompt.to_str().unwrap()],
        cache.path(),
    ));
    assert!(
        old.contains("first version") && !old.contains("second version"),
        "{old}"
    );

    // The store gone: the pinned version read once is in the cache.
    std::fs::remove_dir_all(root.path().join("sessions")).unwrap();
    std::fs::remove_dir_all(root.path().join("snapshots")).unwrap();
    let offline = context(&run(
        &["prepare", "--store", &url, prompt.to_str().unwrap()],
        cache.path(),
    ));
    assert_eq!(offline, old);
}

#[test]
fn a_tampered_snapshot_is_refused_and_a_missing_store_is_a_note() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (_, sha2) = team_store(root.path());
    let path = root.path().join(format!("snapshots/sha256/{sha2}.jsonl"));
    std::fs::write(&path, snapshot("tampered")).unwrap();
    let url = format!("file://{}", root.path().display());
    let prompt = root.path().join("prompt.md");
    std::fs::write(&prompt, format!("See {}.\n", mention("~ana/s1"))).unwrap();
    let out = run(
        &["prepare", "--store", &url, prompt.to_str().unwrap()],
        cache.path(),
    );
    assert_ne!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("SESSION_REFERENCE_READ_FAILED"), "{text}");

    let gone = run(
        &["candidates", "--store", "file:///nonexistent/team"],
        cache.path(),
    );
    assert_eq!(gone.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&gone.stderr);
    assert!(stderr.contains("file:///nonexistent/team"), "{stderr}");
}
