//! Two people, two `HOME`s, one bucket of a real S3-compatible server
//! (issue 26, "What it must show").

use std::time::Duration;

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStoreExt as _, PutPayload};

use crate::person::{Person, Run};
use crate::weed::{runtime, Weed, BUCKET};

const URL: &str = "s3://team/shop";

fn publish(person: &Person, extra: &[&str]) -> Run {
    let store = person.store_arg();
    let mut args = vec!["publish", "--store", &store, "--to", URL];
    args.extend_from_slice(extra);
    person.run(&args, "")
}

/// `prepare` of `message` through the local store and the team store, with
/// a fixed budget and no spill (spill paths differ per home).
fn prepare(person: &Person, message: &str) -> Run {
    let store = person.store_arg();
    person.run(
        &[
            "prepare",
            "--store",
            &store,
            "--store",
            URL,
            "--max-reference-bytes",
            "4000",
            "--no-spill",
            "-",
        ],
        message,
    )
}

fn published(run: &Run) -> (String, String) {
    let out = run.json();
    (
        out[0]["mention"].as_str().unwrap().to_owned(),
        out[0]["sha256"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn what_one_publishes_the_other_lists_searches_and_mentions() {
    let Some(weed) = Weed::or_skip() else { return };
    let ana = Person::new("ana", weed.env());
    let ben = Person::new("ben", weed.env());
    ana.write_session(
        "s1",
        "Checkout tax rounding",
        &[
            "Why is the tax off by a cent?",
            "Rounding happens per line in cart.rs.",
        ],
    );
    ben.write_session("b1", "Ben's own", &["unrelated"]);
    let (mention, sha) = published(&publish(&ana, &["s1"]).ok());

    // Ben lists it, beside his own session.
    let listed = ben
        .run(
            &["candidates", "--store", &ben.store_arg(), "--store", URL],
            "",
        )
        .ok()
        .json();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["sessionId"].as_str())
        .collect();
    assert!(ids.contains(&"~ana/s1") && ids.contains(&"b1"), "{ids:?}");
    // Ben finds it by what was said.
    let found = ben
        .run(
            &["search", "--store", URL, "--format", "json", "cart.rs"],
            "",
        )
        .ok()
        .json();
    assert_eq!(found[0]["sessionId"], "~ana/s1", "{found}");

    // The pinned mention prepares the same bytes on both machines.
    let message = format!("Look at {mention}");
    let theirs = prepare(&ana, &message).ok();
    let mine = prepare(&ben, &message).ok();
    assert_eq!(theirs.output.stdout, mine.output.stdout);
    assert!(mine.stdout().contains("Rounding happens per line"));

    // A later publish moves the live id; the pin stays where it was.
    ana.write_session(
        "s1",
        "Checkout tax rounding",
        &[
            "Why is the tax off by a cent?",
            "Rounding happens per line in cart.rs.",
            "Now round once per order.",
        ],
    );
    let (_, sha2) = published(&publish(&ana, &["s1"]).ok());
    assert_ne!(sha, sha2);
    let live = prepare(&ben, &format!("@[live]({})", live_uri(&ben)));
    let live = live.ok();
    assert!(
        live.stdout().contains("round once per order"),
        "{}",
        live.stdout()
    );
    let pinned = prepare(&ben, &message).ok();
    assert_eq!(pinned.output.stdout, mine.output.stdout);
}

#[test]
fn a_tampered_snapshot_is_refused() {
    let Some(weed) = Weed::or_skip() else { return };
    let ana = Person::new("ana", weed.env());
    let ben = Person::new("ben", weed.env());
    ana.write_session("s1", "Tax", &["the tax", "is rounded"]);
    let (mention, sha) = published(&publish(&ana, &["s1"]).ok());
    let path = ObjectPath::from(format!("shop/snapshots/sha256/{sha}.jsonl"));
    let client = weed.client();
    runtime().block_on(async {
        let got = client.get(&path).await.unwrap().bytes().await.unwrap();
        let tampered = String::from_utf8(got.to_vec())
            .unwrap()
            .replace("rounded", "ROUNDED");
        client
            .put(&path, PutPayload::from(tampered.into_bytes()))
            .await
            .unwrap();
    });
    // Ben has no cached copy: he reads the tampered bytes and refuses them.
    let run = prepare(&ben, &format!("see {mention}"));
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    assert_eq!(run.json()["error"]["code"], "SESSION_REFERENCE_READ_FAILED");
    assert!(!run.stdout().contains("ROUNDED"));
}

#[test]
fn two_concurrent_publishes_keep_both_versions() {
    let Some(weed) = Weed::or_skip() else { return };
    // Two machines of one person publish two versions of one session at once.
    let laptop = Person::new("ana", weed.env());
    let desktop = Person::new("ana", weed.env());
    laptop.write_session("s1", "Tax", &["version from the laptop"]);
    desktop.write_session("s1", "Tax", &["version from the desktop"]);
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| publish(&laptop, &["s1"]));
        let b = s.spawn(|| publish(&desktop, &["s1"]));
        (a.join().unwrap(), b.join().unwrap())
    });
    let (_, sha_a) = published(&a.ok());
    let (_, sha_b) = published(&b.ok());
    let manifest = manifest(&weed, "ana", "s1");
    let shas: Vec<&str> = manifest["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["sha256"].as_str())
        .collect();
    assert_eq!(shas.len(), 2, "{manifest}");
    assert!(shas.contains(&sha_a.as_str()) && shas.contains(&sha_b.as_str()));
}

fn manifest(weed: &Weed, publisher: &str, id: &str) -> serde_json::Value {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(id);
    let path = ObjectPath::from(format!("shop/sessions/{publisher}/{encoded}/manifest.json"));
    let client = weed.client();
    let bytes =
        runtime().block_on(async { client.get(&path).await.unwrap().bytes().await.unwrap() });
    serde_json::from_slice(&bytes).unwrap()
}

#[test]
fn a_secret_stops_a_publish_and_nothing_is_uploaded() {
    let Some(weed) = Weed::or_skip() else { return };
    let ana = Person::new("ana", weed.env());
    let token = format!("ghp_{}", "Qz3xK9mW2pL7vB4nR8tYabcdefghij123456");
    ana.write_session("s1", "Tokens", &[&format!("use {token} for the API")]);
    let refused = publish(&ana, &["s1"]);
    assert_eq!(refused.code(), Some(1));
    assert_eq!(
        refused.json()["error"]["findings"][0]["kind"],
        "github-token"
    );
    let client = weed.client();
    let listed = runtime().block_on(async { listing::all_objects(client.as_ref(), "shop").await });
    assert!(listed.is_empty(), "{listed:?}");
    publish(&ana, &["--allow-secret", "github-token", "s1"]).ok();
}

/// Listing without the `futures` crate: one page of a delimited listing
/// is enough for the few objects a test writes.
mod listing {
    use object_store::path::Path;
    use object_store::ObjectStore;

    pub async fn all_objects(store: &dyn ObjectStore, prefix: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut todo = vec![Path::from(prefix)];
        while let Some(dir) = todo.pop() {
            let Ok(page) = store.list_with_delimiter(Some(&dir)).await else {
                continue;
            };
            out.extend(page.objects.into_iter().map(|o| o.location.to_string()));
            todo.extend(page.common_prefixes);
        }
        out
    }
}

/// Completion from the local store while the team store is broken: a
/// clear note naming its URL and saying `what` happened, soon, and the
/// local sessions all there.
fn local_completion_survives(person: &Person, why: &str, what: &str) {
    let run = person.run(
        &["candidates", "--store", &person.store_arg(), "--store", URL],
        "",
    );
    assert!(
        run.took < Duration::from_secs(10),
        "{why}: took {:?}",
        run.took
    );
    let run = run.ok();
    let ids: Vec<String> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["sessionId"].as_str().map(str::to_owned))
        .collect();
    assert!(ids.contains(&"mine".to_owned()), "{why}: {ids:?}");
    let stderr = run.stderr();
    assert!(
        stderr.contains(URL),
        "{why}: no note naming {URL}: {stderr}"
    );
    assert!(
        stderr.contains(what) && stderr.contains("showing the 0 session(s) listed before"),
        "{why}: the note does not say {what:?}: {stderr}"
    );
    assert!(!stderr.contains(crate::weed::SECRET_KEY), "{stderr}");
}

#[test]
fn a_broken_team_store_is_a_note_and_local_completion_goes_on() {
    let Some(mut weed) = Weed::or_skip() else {
        return;
    };
    let ana = Person::new("ana", weed.env());
    ana.write_session("s1", "Tax", &["the tax"]);
    publish(&ana, &["s1"]).ok();

    let mut bad_key = weed.env();
    bad_key.retain(|(k, _)| k != "AWS_SECRET_ACCESS_KEY");
    bad_key.push(("AWS_SECRET_ACCESS_KEY".into(), "wrong".into()));
    let ben = Person::new("ben", bad_key);
    ben.write_session("mine", "Mine", &["local"]);
    local_completion_survives(&ben, "bad credentials", "bad credentials: access denied");

    let mut wrong_endpoint = weed.env();
    wrong_endpoint.retain(|(k, _)| k != "AWS_ENDPOINT");
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    wrong_endpoint.push(("AWS_ENDPOINT".into(), format!("http://127.0.0.1:{port}")));
    let cat = Person::new("cat", wrong_endpoint);
    cat.write_session("mine", "Mine", &["local"]);
    local_completion_survives(
        &cat,
        "wrong endpoint",
        "the server cannot be reached (connection refused)",
    );

    let dan = Person::new("dan", weed.env());
    dan.write_session("mine", "Mine", &["local"]);
    weed.stop();
    local_completion_survives(
        &dan,
        "server stopped",
        "the server cannot be reached (connection refused)",
    );
    let _ = BUCKET;
}

/// The canonical URI of the live id `~ana/s1`, as `uri encode` gives it.
fn live_uri(person: &Person) -> String {
    person
        .run(&["uri", "encode", "~ana/s1"], "")
        .ok()
        .json()
        .as_str()
        .unwrap()
        .to_owned()
}
