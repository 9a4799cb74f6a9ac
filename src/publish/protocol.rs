//! The write protocol on a store with conditional writes (S3, GCS, Azure,
//! any S3-compatible server): a snapshot is created only if absent, a
//! manifest is created only if absent or replaced only by a
//! compare-and-swap on the version it was read at. Nothing is deleted.
//!
//! Why no update is lost: every manifest write names the exact version it
//! replaces (its ETag, or GCS's generation). Two publishers that read the
//! same version both try to replace it; the store lets one through and
//! answers the other "precondition failed", and the loser reads the new
//! version — which holds the winner's entry — and appends to it. A
//! manifest is only ever replaced by a superset of itself.

use std::time::Duration;

use object_store::path::Path;
use object_store::{
    Error as StoreError, ObjectStoreExt as _, PutMode, PutOptions, PutPayload, PutResult,
    UpdateVersion,
};

use super::PublishError;
use crate::store::team::manifest::MAX_MANIFEST_BYTES;
use crate::store::team::{Manifest, ManifestEntry, TeamClient, TeamError};

/// How often a lost compare-and-swap is retried: each retry means another
/// publisher landed first, so this many in a row is a store gone wrong.
pub const MAX_ATTEMPTS: u32 = 64;

/// The object the probe writes: fixed bytes, so a server that ignores the
/// precondition rewrites it with what it held.
const PROBE: [&str; 2] = ["probe", "conditional-writes"];
const PROBE_BYTES: &[u8] = b"hydra-session-lsp checks here that the store honours preconditions\n";

fn err(client: &TeamClient, path: &Path, e: &StoreError) -> TeamError {
    TeamError::from_store(client.url_text(), path.as_ref(), e)
}

fn create() -> PutOptions {
    PutOptions {
        mode: PutMode::Create,
        ..PutOptions::default()
    }
}

/// Writes the snapshot at `path` unless it is there: its name is its hash,
/// so an existing one holds these very bytes.
pub async fn put_snapshot(
    client: &TeamClient,
    path: &Path,
    bytes: &[u8],
) -> Result<(), PublishError> {
    let payload = PutPayload::from(bytes.to_vec());
    match client.store.put_opts(path, payload, create()).await {
        Ok(_) | Err(StoreError::AlreadyExists { .. }) => Ok(()),
        Err(e) => Err(err(client, path, &e).into()),
    }
}

/// Whether the store refuses a write whose precondition fails: a
/// create-if-absent of an object that exists, and a replace of a version
/// that is not the current one, must both fail. A server that lets either
/// through would lose updates; publishing to it is refused.
pub async fn probe(client: &TeamClient) -> Result<(), PublishError> {
    let path = client.prefix.clone().join(PROBE[0]).join(PROBE[1]);
    let payload = || PutPayload::from_static(PROBE_BYTES);
    match client.store.put_opts(&path, payload(), create()).await {
        Ok(_) | Err(StoreError::AlreadyExists { .. }) => {}
        Err(e) => return Err(err(client, &path, &e).into()),
    }
    let ignored = || PublishError::NoPreconditions {
        url: client.url_text().to_owned(),
    };
    match client.store.put_opts(&path, payload(), create()).await {
        Err(StoreError::AlreadyExists { .. } | StoreError::Precondition { .. }) => {}
        Ok(_) => return Err(ignored()),
        Err(e) => return Err(err(client, &path, &e).into()),
    }
    // No real ETag or generation looks like this one.
    let stale = UpdateVersion {
        e_tag: Some("\"hydra-session-lsp-probe\"".to_owned()),
        version: Some("1".to_owned()),
    };
    let update = PutOptions {
        mode: PutMode::Update(stale),
        ..PutOptions::default()
    };
    match client.store.put_opts(&path, payload(), update).await {
        Err(StoreError::Precondition { .. } | StoreError::AlreadyExists { .. }) => Ok(()),
        Ok(_) => Err(ignored()),
        // A backend that cannot say `Update` at all is no store for us.
        Err(StoreError::NotImplemented { .. } | StoreError::NotSupported { .. }) => Err(ignored()),
        Err(e) => Err(err(client, &path, &e).into()),
    }
}

/// What a compare-and-swap makes of the object as read (`None`: absent):
/// the bytes to write in its place, or `None` when nothing needs writing.
/// One type for the manifest and the index, so the loop is built once.
pub type Change<'a> = dyn FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>, PublishError> + Send + 'a;

/// The object at `path` as read (at most `limit` bytes), with the version
/// a replace must name.
async fn read_current(
    client: &TeamClient,
    path: &Path,
    limit: usize,
) -> Result<Option<(impl AsRef<[u8]>, UpdateVersion)>, PublishError> {
    let got = match client.store.get(path).await {
        Ok(got) => got,
        Err(StoreError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(err(client, path, &e).into()),
    };
    if got.meta.size > limit as u64 {
        return Err(TeamError::TooLarge {
            url: client.url_text().to_owned(),
            path: path.to_string(),
            limit: limit as u64,
        }
        .into());
    }
    let version = UpdateVersion {
        e_tag: got.meta.e_tag.clone(),
        version: got.meta.version.clone(),
    };
    let bytes = got.bytes().await.map_err(|e| err(client, path, &e))?;
    Ok(Some((bytes, version)))
}

/// Replaces the object at `path` by what `change` makes of it: created
/// when absent, else replaced naming the version read; each lost race is
/// retried on the version it lost to. The put's result (its ETag), or
/// `None` when `change` had nothing to write.
pub async fn swap(
    client: &TeamClient,
    path: &Path,
    limit: usize,
    change: &mut Change<'_>,
) -> Result<Option<PutResult>, PublishError> {
    for attempt in 0..MAX_ATTEMPTS {
        let (bytes, mode) = match read_current(client, path, limit).await? {
            None => match change(None)? {
                Some(bytes) => (bytes, PutMode::Create),
                None => return Ok(None),
            },
            Some((current, version)) => {
                let Some(bytes) = change(Some(current.as_ref()))? else {
                    return Ok(None);
                };
                if version.e_tag.is_none() && version.version.is_none() {
                    return Err(PublishError::NoPreconditions {
                        url: client.url_text().to_owned(),
                    });
                }
                (bytes, PutMode::Update(version))
            }
        };
        let options = PutOptions {
            mode,
            ..PutOptions::default()
        };
        match client.store.put_opts(path, bytes.into(), options).await {
            Ok(put) => return Ok(Some(put)),
            Err(StoreError::AlreadyExists { .. } | StoreError::Precondition { .. }) => {
                // Another publisher landed first: read its version and try
                // again, a little later each time so that racers spread.
                tokio::time::sleep(backoff(attempt)).await;
            }
            Err(e) => return Err(err(client, path, &e).into()),
        }
    }
    Err(PublishError::Contended {
        url: client.url_text().to_owned(),
        path: path.to_string(),
    })
}

/// The [`Change`] that appends `entry` to a manifest of `session_id`
/// (`None` when it already is the latest); the manifest made goes to
/// `made`. Shared by both protocols.
pub fn append<'a>(
    url: &'a str,
    path: &'a str,
    session_id: &'a str,
    entry: &'a ManifestEntry,
    made: &'a mut Option<Manifest>,
) -> impl FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>, PublishError> + Send + 'a {
    move |current| {
        let mut manifest = match current {
            None => Manifest::new(session_id),
            Some(bytes) => Manifest::parse(bytes).map_err(|e| e.at_manifest(url, path))?,
        };
        if manifest.latest().is_some_and(|l| l.sha256 == entry.sha256) {
            return Ok(None);
        }
        manifest.entries.push(entry.clone());
        let bytes = manifest.to_bytes();
        *made = Some(manifest);
        Ok(Some(bytes))
    }
}

/// Appends `entry` to the manifest of `session_id` at `path` (creating it
/// when absent), by [`swap`]. An entry that already is the latest is not
/// appended again. The manifest written and its ETag, when one was.
pub async fn append_entry(
    client: &TeamClient,
    path: &Path,
    session_id: &str,
    entry: &ManifestEntry,
) -> Result<Option<(Manifest, Option<String>)>, PublishError> {
    let mut made = None;
    let (url, at) = (client.url_text(), path.to_string());
    let mut change = append(url, &at, session_id, entry, &mut made);
    let put = swap(client, path, MAX_MANIFEST_BYTES, &mut change).await?;
    drop(change);
    Ok(put.and_then(|put| Some((made?, put.e_tag))))
}

/// Up to 5 ms per lost attempt plus a jitter from the clock, capped.
pub fn backoff(attempt: u32) -> Duration {
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() % 7_000_000);
    Duration::from_nanos(u64::from(attempt.min(40)) * 5_000_000 + u64::from(jitter))
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use object_store::memory::InMemory;

    use super::*;
    use crate::store::team::TeamUrl;

    /// The `i`th entry of a test manifest: its own hash and size (the
    /// file store's tests too, which stand on this protocol).
    pub(crate) fn entry(i: usize) -> ManifestEntry {
        ManifestEntry {
            sha256: format!("{i:064x}"),
            bytes: i as u64,
            published_at: "2026-12-02T10:00:00Z".into(),
            title: None,
        }
    }

    fn client() -> TeamClient {
        let url = TeamUrl::parse("s3://mem/team").unwrap();
        TeamClient::over(Arc::new(InMemory::new()), "team", url, true)
    }

    #[tokio::test]
    async fn a_store_that_honours_preconditions_passes_the_probe() {
        let c = client();
        probe(&c).await.unwrap();
        // Twice: the probe object exists by then.
        probe(&c).await.unwrap();
    }

    #[tokio::test]
    async fn a_snapshot_that_exists_is_success_and_is_not_rewritten() {
        let c = client();
        let path = c.prefix.clone().join("snapshots").join("x.jsonl");
        put_snapshot(&c, &path, b"one").await.unwrap();
        put_snapshot(&c, &path, b"one").await.unwrap();
        let got = c.store.get(&path).await.unwrap().bytes().await.unwrap();
        assert_eq!(&got[..], b"one");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_appends_all_land() {
        let c = client();
        let path = Path::from("team/sessions/ana/czE/manifest.json");
        let mut tasks = Vec::new();
        for i in 1..=24 {
            let (c, path) = (c.clone(), path.clone());
            tasks.push(tokio::spawn(async move {
                append_entry(&c, &path, "~ana/s1", &entry(i)).await
            }));
        }
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let bytes = c.store.get(&path).await.unwrap().bytes().await.unwrap();
        let manifest = Manifest::parse(&bytes).unwrap();
        let mut shas: Vec<_> = manifest.entries.iter().map(|e| e.sha256.clone()).collect();
        shas.sort();
        shas.dedup();
        assert_eq!(shas.len(), 24);
        // The latest again adds nothing.
        append_entry(&c, &path, "~ana/s1", manifest.latest().unwrap())
            .await
            .unwrap();
        let again =
            Manifest::parse(&c.store.get(&path).await.unwrap().bytes().await.unwrap()).unwrap();
        assert_eq!(again.entries.len(), 24);
    }
}
