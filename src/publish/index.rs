//! Updating the publisher's index (`store/team/index.rs`) once a publish's
//! manifests are written: one compare-and-swap for every session of the
//! command, by the manifests' own protocol (`protocol::swap`, and
//! `file_manifest::swap` on `file://`), so two publishers' updates both
//! land. Of two copies of one manifest the index keeps the longer (the
//! newer): an update that comes late never takes a version away.
//!
//! The index is a cache of the manifests: an update that fails loses
//! nothing (the manifest has the version, and a listing of `sessions/`
//! finds it), so it is not the publish's failure.

use super::{file_manifest, protocol, PublishError};
use crate::store::team::index::{Index, IndexEntry, MAX_INDEX_BYTES};
use crate::store::team::layout;
use crate::store::team::listing::read_manifest;
use crate::store::team::url::Scheme;
use crate::store::team::{Manifest, TeamClient};

/// The index entry of `publisher`'s session `id` whose manifest is at
/// `path`: the manifest as written and its ETag, or — when nothing was
/// written (the version was already the latest) or the store gave no
/// ETag — the manifest as read now, which is a pair the store vouches for.
pub async fn entry_of(
    client: &TeamClient,
    path: &object_store::path::Path,
    id: &str,
    written: Option<(Manifest, Option<String>)>,
) -> Option<IndexEntry> {
    let (manifest, etag) = match written {
        Some((manifest, Some(etag))) => (manifest, etag),
        _ => match read_manifest(client, path).await {
            Ok((manifest, Some(etag))) => (manifest, etag),
            _ => return None,
        },
    };
    Some(IndexEntry {
        id: id.to_owned(),
        etag,
        manifest,
    })
}

/// Merges `entries` into `publisher`'s index; a failure is logged only.
pub async fn update(client: &TeamClient, publisher: &str, entries: Vec<IndexEntry>) {
    if let Err(e) = try_update(client, publisher, entries).await {
        tracing::debug!(
            "{}: the index of {publisher} not updated: {e}",
            client.url_text()
        );
    }
}

async fn try_update(
    client: &TeamClient,
    publisher: &str,
    entries: Vec<IndexEntry>,
) -> Result<(), PublishError> {
    let Some(path) = layout::index_path(client, publisher).filter(|_| !entries.is_empty()) else {
        return Ok(());
    };
    let mut change = |current: Option<&[u8]>| -> Result<Option<Vec<u8>>, PublishError> {
        // An index that cannot be read is rebuilt from this publish: the
        // listing finds the rest in the manifests.
        let mut index = current
            .and_then(|bytes| Index::parse(bytes, publisher).ok())
            .unwrap_or_else(|| Index::new(publisher));
        let mut changed = false;
        for entry in &entries {
            changed |= index.merge(entry.clone());
        }
        Ok(changed.then(|| index.to_bytes()))
    };
    if client.url.scheme == Scheme::File {
        let target = file_manifest::file_path(&client.url, &path);
        let versions = file_manifest::file_path(&client.url, &layout::index_root(client))
            .join(file_manifest::VERSIONS)
            .join(publisher);
        file_manifest::swap(
            client.url_text(),
            &target,
            &versions,
            MAX_INDEX_BYTES,
            &mut change,
        )
    } else {
        protocol::swap(client, &path, MAX_INDEX_BYTES, &mut change)
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use object_store::memory::InMemory;
    use object_store::ObjectStoreExt as _;

    use super::*;
    use crate::store::team::listing::tests::manifest_of;
    use crate::store::team::TeamUrl;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    fn entry(id: &str, shas: &[&str]) -> IndexEntry {
        IndexEntry {
            id: id.into(),
            etag: format!("e{}", shas.len()),
            manifest: manifest_of("ana", id, shas),
        }
    }

    async fn read(client: &TeamClient) -> Index {
        let path = layout::index_path(client, "ana").unwrap();
        let bytes = client
            .store
            .get(&path)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        Index::parse(&bytes, "ana").unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_updates_all_land_and_a_late_older_copy_changes_nothing() {
        let url = TeamUrl::parse("s3://mem/team").unwrap();
        let c = TeamClient::over(Arc::new(InMemory::new()), "team", url, true);
        let mut tasks = Vec::new();
        for i in 0..12 {
            let c = c.clone();
            tasks.push(tokio::spawn(async move {
                try_update(&c, "ana", vec![entry(&format!("s{i}"), &[A, B])]).await
            }));
        }
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        assert_eq!(read(&c).await.sessions.len(), 12);
        try_update(&c, "ana", vec![entry("s3", &[A])])
            .await
            .unwrap();
        let index = read(&c).await;
        let s3 = index.sessions.iter().find(|e| e.id == "s3").unwrap();
        assert_eq!(s3.manifest.entries.len(), 2, "the newer copy stays");
    }
}
