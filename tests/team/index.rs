//! The publisher's index (`index/<publisher>.json`, issue 26's listing
//! target) against a real server: `publish` writes it, a listing uses it
//! instead of reading each manifest, and a store without one (older
//! publishers) or with a corrupt one still lists every session.

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt as _, PutPayload};
use serde_json::Value;

use crate::person::{Person, Run};
use crate::weed::{runtime, Weed};

fn publish(person: &Person, url: &str, ids: &[&str]) -> Run {
    let store = person.store_arg();
    let mut args = vec!["publish", "--store", &store, "--to", url];
    args.extend_from_slice(ids);
    person.run(&args, "")
}

fn list(person: &Person, url: &str) -> String {
    person
        .run(&["candidates", "--store", url], "")
        .ok()
        .stdout()
}

fn get(client: &dyn ObjectStore, path: &str) -> Vec<u8> {
    let path = ObjectPath::from(path);
    runtime().block_on(async {
        client
            .get(&path)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
            .to_vec()
    })
}

fn put(client: &dyn ObjectStore, path: &str, bytes: Vec<u8>) {
    let path = ObjectPath::from(path);
    runtime().block_on(async { client.put(&path, PutPayload::from(bytes)).await.unwrap() });
}

/// The index of `publisher` below `prefix`, parsed.
fn index(client: &dyn ObjectStore, prefix: &str, publisher: &str) -> Value {
    serde_json::from_slice(&get(client, &format!("{prefix}/index/{publisher}.json")))
        .expect("index JSON")
}

fn ids(index: &Value) -> Vec<String> {
    let mut ids: Vec<String> = index["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["id"].as_str().expect("an id").to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn publish_writes_the_index_and_a_listing_reads_it_instead_of_the_manifests() {
    let Some(weed) = Weed::or_skip() else { return };
    let client = weed.client();
    let url = "s3://team/idx";
    let ana = Person::new("ana", weed.env());
    ana.write_session("s1", "First title", &["the rounding fix"]);
    ana.write_session("s2", "Other title", &["the tax table"]);
    publish(&ana, url, &["s1", "s2"]).ok();

    let written = index(client.as_ref(), "idx", "ana");
    assert_eq!(written["version"], 1);
    assert_eq!(ids(&written), ["s1", "s2"]);
    // Each entry carries its manifest's ETag as the server gives it.
    let s1 = &written["sessions"][0];
    assert_eq!(s1["manifest"]["sessionId"], "~ana/s1");
    let manifest = ObjectPath::from("idx/sessions/ana/czE/manifest.json");
    let head = runtime().block_on(async { client.head(&manifest).await.expect("the manifest") });
    assert_eq!(s1["etag"].as_str(), head.e_tag.as_deref());

    // An index whose copy says another title, the ETag unchanged: a cold
    // listing shows the index's title, so it did not read the manifest.
    let text = String::from_utf8(get(client.as_ref(), "idx/index/ana.json")).unwrap();
    put(
        client.as_ref(),
        "idx/index/ana.json",
        text.replace("First title", "Index title").into_bytes(),
    );
    let ben = Person::new("ben", weed.env());
    let cold = list(&ben, url);
    assert!(
        cold.contains("Index title") && !cold.contains("First title"),
        "{cold}"
    );
    assert!(cold.contains("~ana/s2"), "{cold}");

    // A new version: the index has it, and the next (warm) listing too.
    ana.write_session("s1", "Second title", &["the rounding fix", "per line"]);
    publish(&ana, url, &["s1"]).ok();
    let updated = index(client.as_ref(), "idx", "ana");
    assert_eq!(ids(&updated), ["s1", "s2"]);
    let entries = updated["sessions"][0]["manifest"]["entries"]
        .as_array()
        .unwrap();
    assert_eq!(entries.len(), 2, "{updated}");
    let warm = list(&ben, url);
    assert!(
        warm.contains("Second title") && warm.contains("~ana/s2"),
        "{warm}"
    );
}

#[test]
fn a_store_without_an_index_or_with_a_corrupt_one_still_lists_every_session() {
    let Some(weed) = Weed::or_skip() else { return };
    let client = weed.client();
    let ana = Person::new("ana", weed.env());
    ana.write_session("s1", "First title", &["the rounding fix"]);
    ana.write_session("s2", "Other title", &["the tax table"]);
    publish(&ana, "s3://team/new", &["s1", "s2"]).ok();

    // The older layout: the same objects under another prefix, but no
    // index (what a publisher before the index wrote).
    let objects: Vec<ObjectPath> = runtime().block_on(async {
        use futures::TryStreamExt as _;
        let prefix = ObjectPath::from("new");
        let metas: Vec<_> = client.list(Some(&prefix)).try_collect().await.unwrap();
        metas.into_iter().map(|m| m.location).collect()
    });
    let mut copied = 0;
    for path in &objects {
        let Some(rest) = path.as_ref().strip_prefix("new/") else {
            continue;
        };
        if rest.starts_with("index/") {
            continue;
        }
        put(
            client.as_ref(),
            &format!("old/{rest}"),
            get(client.as_ref(), path.as_ref()),
        );
        copied += 1;
    }
    assert!(copied >= 4, "{objects:?}");
    let ben = Person::new("ben", weed.env());
    let old = list(&ben, "s3://team/old");
    assert!(old.contains("~ana/s1") && old.contains("~ana/s2"), "{old}");

    // A corrupt index: the manifests are listed, before and after the
    // reader's listing was kept.
    let cat = Person::new("cat", weed.env());
    assert!(list(&cat, "s3://team/new").contains("~ana/s2"));
    put(
        client.as_ref(),
        "new/index/ana.json",
        b"{ not json".to_vec(),
    );
    for who in [&cat, &Person::new("dan", weed.env())] {
        let listed = list(who, "s3://team/new");
        assert!(
            listed.contains("~ana/s1") && listed.contains("~ana/s2"),
            "{listed}"
        );
    }
    // The next publish makes the index usable again.
    ana.write_session("s3", "Third", &["later"]);
    publish(&ana, "s3://team/new", &["s3"]).ok();
    assert_eq!(ids(&index(client.as_ref(), "new", "ana")), ["s3"]);
    let after = list(&Person::new("eve", weed.env()), "s3://team/new");
    for id in ["~ana/s1", "~ana/s2", "~ana/s3"] {
        assert!(after.contains(id), "{id}: {after}");
    }
}

#[test]
fn two_concurrent_publishes_by_one_publisher_both_land_in_the_index() {
    let Some(weed) = Weed::or_skip() else { return };
    let client = weed.client();
    let url = "s3://team/both";
    let ana = Person::new("ana", weed.env());
    ana.write_session("s1", "One", &["first"]);
    ana.write_session("s2", "Two", &["second"]);
    std::thread::scope(|s| {
        let one = s.spawn(|| publish(&ana, url, &["s1"]).ok());
        let two = s.spawn(|| publish(&ana, url, &["s2"]).ok());
        one.join().expect("the first publish");
        two.join().expect("the second publish");
    });
    assert_eq!(ids(&index(client.as_ref(), "both", "ana")), ["s1", "s2"]);
    let listed = list(&Person::new("ben", weed.env()), url);
    assert!(
        listed.contains("~ana/s1") && listed.contains("~ana/s2"),
        "{listed}"
    );
}

#[test]
fn on_a_folder_the_index_is_written_by_the_rename_protocol_and_read_by_a_listing() {
    let team = tempfile::tempdir().expect("a team folder");
    let url = format!("file://{}", team.path().display());
    let ana = Person::new("ana", vec![]);
    ana.write_session("s1", "First title", &["the rounding fix"]);
    ana.write_session("s2", "Other title", &["the tax table"]);
    publish(&ana, &url, &["s1"]).ok();
    publish(&ana, &url, &["s2"]).ok();
    let file = team.path().join("index/ana.json");
    let text = std::fs::read_to_string(&file).expect("the index");
    let written: Value = serde_json::from_str(&text).expect("index JSON");
    assert_eq!(ids(&written), ["s1", "s2"]);
    let versions = std::fs::read_dir(team.path().join("index/versions/ana"))
        .expect("its versions")
        .count();
    assert_eq!(versions, 2);
    // The manifests' ETags as the folder gives them: the index's copy is
    // what a cold listing shows.
    std::fs::write(&file, text.replace("First title", "Index title")).expect("the index");
    let listed = list(&Person::new("ben", vec![]), &url);
    assert!(
        listed.contains("Index title") && listed.contains("~ana/s2"),
        "{listed}"
    );
}
