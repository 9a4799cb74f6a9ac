//! The live index on a warm start: the first view is the one listed from
//! the on-disk index cache, and the checked index after it is a change to
//! announce only when the store changed since.

use std::path::Path;
use std::sync::Arc;

use super::index::{IndexEvent, LiveIndex};
use crate::store::{FsStore, Scan, StoreSpec};

fn log(root: &Path, id: &str, title: &str) {
    let text = format!(
        "{{\"type\":\"session\",\"id\":\"{id}\",\"createdAt\":1,\"cwd\":\"/w\"}}\n\
         {{\"seq\":1,\"type\":\"session/title\",\"data\":{{\"title\":\"{title}\"}}}}\n"
    );
    std::fs::write(root.join(format!("{id}.jsonl")), text).unwrap();
}

/// Starts an index of `specs` through the index cache in `cache` and
/// waits for its first index: the index, and the `Changed` events it sent
/// by then (it sends its events before it says it is ready).
async fn started(specs: Vec<StoreSpec>, cache: &Path) -> (Arc<LiveIndex>, usize) {
    let (index, mut events) = LiveIndex::new();
    let fs = FsStore::unscanned(&specs, Scan::Full).with_index_cache(&specs, cache);
    index.start(Box::new(fs), specs);
    index.listed().await;
    index.ready().await;
    let mut changed = 0;
    while let Ok(event) = events.try_recv() {
        changed += usize::from(matches!(event, IndexEvent::Changed));
    }
    (index, changed)
}

/// Starts an index of `store` through the cache in `cache` (one run of a
/// cached store before it leaves the cache); the `Changed` events heard
/// once the first index is built, and that index's titles.
async fn warm_start(store: &Path, cache: &Path, between: impl FnOnce()) -> (usize, Vec<String>) {
    let specs = vec![StoreSpec::auto(store)];
    drop(FsStore::open_cached(&specs, Scan::Full, cache));
    between();
    let (index, changed) = started(specs, cache).await;
    let view = index.view();
    assert!(
        !view.recorded,
        "the checked index replaced the recorded one"
    );
    let mut titles: Vec<String> = (0..view.sessions().count())
        .filter_map(|place| view.sessions().at(place)?.into_owned().title)
        .collect();
    titles.sort();
    (changed, titles)
}

#[tokio::test]
async fn an_unchanged_store_is_announced_once() {
    let (store, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    log(store.path(), "a", "Alpha");
    log(store.path(), "b", "Beta");
    let (changed, titles) = warm_start(store.path(), cache.path(), || {}).await;
    // The recorded view is the first index; the check found nothing new.
    assert_eq!(changed, 1);
    assert_eq!(titles, ["Alpha", "Beta"]);
}

#[tokio::test]
async fn a_store_changed_since_the_cache_is_announced_after_the_check() {
    let (store, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    log(store.path(), "a", "Alpha");
    log(store.path(), "b", "Beta");
    let (changed, titles) = warm_start(store.path(), cache.path(), || {
        log(store.path(), "a", "Alpha, renamed");
        std::fs::remove_file(store.path().join("b.jsonl")).unwrap();
    })
    .await;
    assert_eq!(changed, 2, "the recorded view, then the checked one");
    assert_eq!(titles, ["Alpha, renamed"]);
}

#[tokio::test]
async fn without_a_cache_the_first_index_is_the_one_change() {
    let (store, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    log(store.path(), "a", "Alpha");
    let specs = vec![StoreSpec::auto(store.path())];
    let (index, changed) = started(specs, cache.path()).await;
    assert_eq!(changed, 1);
    assert_eq!(index.view().len(), 1);
}
