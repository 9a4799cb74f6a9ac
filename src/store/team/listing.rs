//! Listing a team store: every manifest below `sessions/`, paginated by
//! the backend's list, and incremental — a manifest is read again only
//! when its ETag changed since the last listing.

use std::collections::HashMap;

use futures::{StreamExt as _, TryStreamExt as _};
use object_store::path::Path;
use object_store::ObjectStoreExt as _;

use super::client::TeamClient;
use super::error::TeamError;
use super::layout;
use super::manifest::{Manifest, MAX_MANIFEST_BYTES};

/// Manifests read at once.
const CONCURRENT_GETS: usize = 16;

/// One published session as the last listing saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub publisher: String,
    /// The id on the publisher's machine.
    pub id: String,
    pub etag: Option<String>,
    pub manifest: Manifest,
}

impl Listed {
    /// The published id, `~<publisher>/<id>`.
    pub fn published_id(&self) -> String {
        layout::published_id(&self.publisher, &self.id)
    }
}

/// What one listing found: the sessions by manifest path, and the
/// manifests that could not be used (skipped, each with why).
#[derive(Debug, Default, Clone)]
pub struct Listing {
    pub sessions: HashMap<String, Listed>,
    pub skipped: Vec<TeamError>,
    /// Manifests fetched by this listing (the others were unchanged).
    pub fetched: usize,
}

/// Lists the store, reusing what `last` holds for every manifest whose
/// ETag is unchanged. An error of the list itself fails the whole listing
/// (the caller keeps the last one); a bad manifest only skips itself.
/// Each manifest read is also put in `read`, as it comes: what a listing
/// cut short by its time bound had read (kept for the next one).
pub async fn list(
    client: &TeamClient,
    last: &HashMap<String, Listed>,
    read: &std::sync::Mutex<HashMap<String, Listed>>,
) -> Result<Listing, TeamError> {
    let url = client.url_text();
    let root = layout::sessions_root(client);
    // Page by page: a failure after the first pages is a listing the
    // server stopped answering, said so in its note.
    let mut metas: Vec<object_store::ObjectMeta> = Vec::new();
    let mut pages = client.store.list(Some(&root));
    while let Some(meta) = pages
        .try_next()
        .await
        .map_err(|e| TeamError::from_store(url, root.as_ref(), &e).mid_listing(metas.len()))?
    {
        metas.push(meta);
    }
    let seen = metas.len();
    let mut listing = Listing::default();
    let mut to_get: Vec<(Path, String, String)> = Vec::new();
    for meta in metas {
        let Some((publisher, id)) = layout::parse_manifest_path(client, &meta.location) else {
            continue;
        };
        let key = meta.location.to_string();
        match last.get(&key) {
            Some(known) if known.etag.is_some() && known.etag == meta.e_tag => {
                listing.sessions.insert(key, known.clone());
            }
            _ => to_get.push((meta.location, publisher, id)),
        }
    }
    let mut got = futures::stream::iter(to_get)
        .map(|(path, publisher, id)| async move {
            let read = read_manifest(client, &path).await;
            (path, publisher, id, read)
        })
        .buffer_unordered(CONCURRENT_GETS);
    while let Some((path, publisher, id, outcome)) = got.next().await {
        match outcome {
            Ok((manifest, etag)) => {
                listing.fetched += 1;
                let expected = layout::published_id(&publisher, &id);
                if manifest.session_id != expected {
                    listing.skipped.push(TeamError::BadManifest {
                        url: url.to_owned(),
                        path: path.to_string(),
                        reason: format!("its sessionId is not {expected:?}"),
                    });
                    continue;
                }
                let listed = Listed {
                    publisher,
                    id,
                    etag,
                    manifest,
                };
                if let Ok(mut read) = read.lock() {
                    read.insert(path.to_string(), listed.clone());
                }
                listing.sessions.insert(path.to_string(), listed);
            }
            // Deleted between the list and the get: not there.
            Err(TeamError::NotFound { .. }) => {}
            Err(e) if e.is_store_down() => return Err(e.mid_listing(seen)),
            Err(e) => listing.skipped.push(e),
        }
    }
    Ok(listing)
}

/// Reads and parses one manifest; its ETag as read.
pub async fn read_manifest(
    client: &TeamClient,
    path: &Path,
) -> Result<(Manifest, Option<String>), TeamError> {
    let url = client.url_text();
    let got = client
        .store
        .get(path)
        .await
        .map_err(|e| TeamError::from_store(url, path.as_ref(), &e))?;
    if got.meta.size > MAX_MANIFEST_BYTES as u64 {
        return Err(TeamError::TooLarge {
            url: url.to_owned(),
            path: path.to_string(),
            limit: MAX_MANIFEST_BYTES as u64,
        });
    }
    let etag = got.meta.e_tag.clone();
    let bytes = got
        .bytes()
        .await
        .map_err(|e| TeamError::from_store(url, path.as_ref(), &e))?;
    let manifest = Manifest::parse(&bytes).map_err(|e| e.at_manifest(url, path.as_ref()))?;
    Ok((manifest, etag))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::team::client::tests::memory_client;
    use crate::store::team::manifest::ManifestEntry;
    use crate::store::team::net;
    use object_store::PutPayload;

    /// A manifest of `~publisher/id` with one entry per digest in `shas`.
    pub(crate) fn manifest_of(publisher: &str, id: &str, shas: &[&str]) -> Manifest {
        let mut m = Manifest::new(layout::published_id(publisher, id));
        for sha in shas {
            m.entries.push(ManifestEntry {
                sha256: (*sha).to_owned(),
                bytes: 1,
                published_at: "2026-12-02T09:00:00Z".into(),
                title: Some(format!("title of {id}")),
            });
        }
        m
    }

    pub(crate) fn put(client: &TeamClient, path: &Path, bytes: Vec<u8>) {
        let store = client.store.clone();
        let path = path.clone();
        net::run("m", net::WHOLE_TIMEOUT, async move {
            store
                .put(&path, PutPayload::from(bytes))
                .await
                .map_err(|e| TeamError::from_store("m", "", &e))?;
            Ok(())
        })
        .unwrap();
    }

    pub(crate) fn put_manifest(client: &TeamClient, m: &Manifest, publisher: &str, id: &str) {
        let path = layout::manifest_path(client, publisher, id).unwrap();
        put(client, &path, m.to_bytes());
    }

    fn list_now(client: &TeamClient, last: &HashMap<String, Listed>) -> Listing {
        let client = client.clone();
        let last = last.clone();
        net::run("m", net::WHOLE_TIMEOUT, async move {
            list(&client, &last, &std::sync::Mutex::default()).await
        })
        .unwrap()
    }

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn a_listing_rereads_only_changed_manifests() {
        let c = memory_client("team");
        put_manifest(&c, &manifest_of("ana", "s1", &[A]), "ana", "s1");
        put_manifest(&c, &manifest_of("bo", "x/y", &[B]), "bo", "x/y");
        // A stray object and a bad manifest are skipped, not fatal.
        put(&c, &Path::from("team/sessions/readme.txt"), b"hi".to_vec());
        put(
            &c,
            &layout::manifest_path(&c, "cy", "z").unwrap(),
            b"{".to_vec(),
        );
        let first = list_now(&c, &HashMap::new());
        assert_eq!(first.sessions.len(), 2);
        assert_eq!(first.skipped.len(), 1);
        assert_eq!(first.fetched, 2);
        let again = list_now(&c, &first.sessions);
        assert_eq!((again.sessions.len(), again.fetched), (2, 0));
        put_manifest(&c, &manifest_of("ana", "s1", &[A, B]), "ana", "s1");
        let third = list_now(&c, &again.sessions);
        assert_eq!(third.fetched, 1);
        let ana = third
            .sessions
            .values()
            .find(|l| l.publisher == "ana")
            .unwrap();
        assert_eq!(ana.manifest.latest().unwrap().sha256, B);
        assert_eq!(ana.published_id(), "~ana/s1");
    }

    #[test]
    fn a_manifest_under_another_sessions_name_is_skipped() {
        let c = memory_client("");
        put_manifest(&c, &manifest_of("ana", "other", &[A]), "ana", "s1");
        let listing = list_now(&c, &HashMap::new());
        assert!(listing.sessions.is_empty());
        assert_eq!(listing.skipped.len(), 1);
    }
}
