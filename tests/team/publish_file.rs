//! `publish` to a `file://` team store: no server needed. The output, the
//! layout, the cache `publish` fills, and the secret scan's refusal.

use std::path::Path;

use crate::person::Person;

fn file_url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

fn manifest_of(store: &Path, publisher: &str, id: &str) -> serde_json::Value {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(id);
    let path = store.join(format!("sessions/{publisher}/{encoded}/manifest.json"));
    serde_json::from_slice(&std::fs::read(&path).expect("the manifest")).expect("JSON")
}

#[test]
fn publish_writes_a_snapshot_a_manifest_entry_and_the_cache() {
    let ana = Person::new("ana", vec![]);
    ana.write_session(
        "s1",
        "Checkout tax rounding",
        &["Why is tax off?", "Rounding per line."],
    );
    let team = tempfile::tempdir().unwrap();
    let url = file_url(team.path());
    let run = ana
        .run(
            &["publish", "--store", &ana.store_arg(), "--to", &url, "s1"],
            "",
        )
        .ok();
    let out = run.json();
    let [one] = out.as_array().unwrap().as_slice() else {
        panic!("one session: {out}")
    };
    assert_eq!(one["sessionId"], "~ana/s1");
    let sha = one["sha256"].as_str().unwrap();
    assert_eq!(sha.len(), 64);
    let mention = one["mention"].as_str().unwrap();
    assert!(
        mention.starts_with("@[Checkout tax rounding](hydra-session:"),
        "{mention}"
    );
    // The mention parses back to the pinned id.
    let parsed = ana.run(&["parse", "-"], mention).ok().json();
    assert_eq!(
        parsed["references"][0]["sessionId"],
        format!("~ana/s1@sha256:{sha}")
    );
    let snapshot =
        std::fs::read(team.path().join(format!("snapshots/sha256/{sha}.jsonl"))).unwrap();
    assert_eq!(snapshot.len() as u64, one["bytes"].as_u64().unwrap());
    let cached = ana.home().join(format!(
        ".cache/hydra-session-lsp/team/snapshots/{sha}.jsonl"
    ));
    assert_eq!(std::fs::read(cached).unwrap(), snapshot);
    let manifest = manifest_of(team.path(), "ana", "s1");
    assert_eq!(manifest["sessionId"], "~ana/s1");
    assert_eq!(manifest["entries"][0]["sha256"], sha);

    // The same surface again is the same version; a changed one is appended.
    ana.run(
        &["publish", "--store", &ana.store_arg(), "--to", &url, "s1"],
        "",
    )
    .ok();
    ana.write_session(
        "s1",
        "Checkout tax rounding",
        &["Why is tax off?", "Rounding per line.", "Fix it."],
    );
    let again = ana
        .run(
            &[
                "publish",
                "--store",
                &ana.store_arg(),
                "--to",
                &url,
                "--format",
                "mention",
                "s1",
            ],
            "",
        )
        .ok();
    assert_eq!(again.stdout().lines().count(), 1);
    let entries = manifest_of(team.path(), "ana", "s1")["entries"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(entries, 2);
}

#[test]
fn a_session_is_named_by_id_uri_or_mention_and_as_whom() {
    let ana = Person::new("ana", vec![]);
    ana.write_session("s/2", "Two", &["hello"]);
    let team = tempfile::tempdir().unwrap();
    let url = file_url(team.path());
    let uri = ana.run(&["uri", "encode", "s/2"], "").ok().json();
    let uri = uri.as_str().unwrap().to_owned();
    let mention = format!("@[Two]({uri})");
    for arg in ["s/2", uri.as_str(), mention.as_str()] {
        let out = ana
            .run(
                &[
                    "publish",
                    "--store",
                    &ana.store_arg(),
                    "--to",
                    &url,
                    "--as",
                    "ana-laptop",
                    arg,
                ],
                "",
            )
            .ok()
            .json();
        assert_eq!(out[0]["sessionId"], "~ana-laptop/s/2", "{arg}");
    }
    let bad = ana.run(
        &[
            "publish",
            "--store",
            &ana.store_arg(),
            "--to",
            &url,
            "--as",
            "../x",
            "s/2",
        ],
        "",
    );
    assert_eq!(bad.code(), Some(1));
    assert_eq!(
        bad.json()["error"]["code"],
        "SESSION_REFERENCE_INVALID_CONFIG"
    );
    let unknown = ana.run(
        &["publish", "--store", &ana.store_arg(), "--to", &url, "nope"],
        "",
    );
    assert_eq!(unknown.code(), Some(1), "{}", unknown.stdout());
}

#[test]
fn a_secret_stops_the_publish_and_allow_secret_lets_it_through() {
    let ana = Person::new("ana", vec![]);
    let key = format!("AKIA{}", "Z7QX3MVB2KLP9WRT");
    let said = format!("my key is {key}");
    ana.write_session("s1", "Deploy", &["deploy please", &said]);
    let team = tempfile::tempdir().unwrap();
    let url = file_url(team.path());
    let refused = ana.run(
        &["publish", "--store", &ana.store_arg(), "--to", &url, "s1"],
        "",
    );
    assert_eq!(refused.code(), Some(1));
    assert!(!refused.stdout().contains(&key) && !refused.stderr().contains(&key));
    let error = &refused.json()["error"];
    assert_eq!(error["code"], "SESSION_REFERENCE_SECRET");
    assert!(error["message"]
        .as_str()
        .unwrap()
        .contains("aws-access-key-id"));
    assert_eq!(
        error["findings"],
        serde_json::json!([{"session": "s1", "turn": 2, "kind": "aws-access-key-id"}])
    );
    // Nothing left the machine.
    assert_eq!(std::fs::read_dir(team.path()).unwrap().count(), 0);
    let wrong_kind = ana.run(
        &[
            "publish",
            "--store",
            &ana.store_arg(),
            "--to",
            &url,
            "--allow-secret",
            "jwt",
            "s1",
        ],
        "",
    );
    assert_eq!(
        wrong_kind.json()["error"]["code"],
        "SESSION_REFERENCE_SECRET"
    );
    let unknown_kind = ana.run(
        &[
            "publish",
            "--store",
            &ana.store_arg(),
            "--to",
            &url,
            "--allow-secret",
            "nonsense",
            "s1",
        ],
        "",
    );
    assert_eq!(
        unknown_kind.json()["error"]["code"],
        "SESSION_REFERENCE_INVALID_CONFIG"
    );
    ana.run(
        &[
            "publish",
            "--store",
            &ana.store_arg(),
            "--to",
            &url,
            "--allow-secret",
            "aws-access-key-id",
            "s1",
        ],
        "",
    )
    .ok();
}

#[test]
fn every_secret_kind_is_in_the_doc() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/team-store.md"))
            .expect("docs/team-store.md");
    for kind in hydra_session_lsp::publish::secrets::kinds() {
        assert!(
            doc.contains(&format!("`{kind}`")),
            "docs/team-store.md lists no `{kind}`"
        );
    }
}
