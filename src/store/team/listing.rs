//! Listing a team store: the publishers' indexes (`index.rs`) — one GET
//! per publisher whose index changed since the last listing — and, when
//! due, every manifest below `sessions/`, paginated by the backend's list
//! and incremental: a manifest is read again only when its ETag is
//! neither the last listing's nor its index's.
//!
//! The list of `sessions/` (and the manifest reads it leads to) is due on
//! a cold listing (none kept), when the last one is older than
//! [`WALK_EVERY`], and when the indexes cannot be trusted to be whole: no
//! index at all (a store of publishers older than the index) or one that
//! cannot be used. It finds what an index misses: a publisher that never
//! wrote one, a publish whose index update failed.

use std::collections::HashMap;
use std::time::Duration;

use futures::{StreamExt as _, TryStreamExt as _};
use object_store::path::Path;
use object_store::ObjectStoreExt as _;

use super::client::TeamClient;
use super::error::TeamError;
use super::index::{self, newer_or_same};
use super::layout;
use super::manifest::{Manifest, MAX_MANIFEST_BYTES};

/// Manifests read at once.
const CONCURRENT_GETS: usize = 16;

/// How long the sessions of the indexes alone are trusted: past it a
/// listing lists `sessions/` again.
pub const WALK_EVERY: Duration = Duration::from_secs(300);

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

/// What a listing saw besides the sessions, for the next one.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The ETag of each usable index, by path.
    pub indexes: HashMap<String, String>,
    /// When `sessions/` was last listed whole, Unix seconds (0: never).
    pub walked_at: u64,
}

/// What one listing found: the sessions by manifest path, and the
/// manifests that could not be used (skipped, each with why).
#[derive(Debug, Default, Clone)]
pub struct Listing {
    pub sessions: HashMap<String, Listed>,
    pub skipped: Vec<TeamError>,
    /// Manifests fetched by this listing (the others were unchanged).
    pub fetched: usize,
    pub seen: Seen,
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Puts `listed` at `key` unless the copy there is newer.
fn merge(sessions: &mut HashMap<String, Listed>, key: String, listed: Listed) {
    match sessions.get(&key) {
        Some(old) if !newer_or_same(&listed.manifest, &old.manifest) => {}
        _ => {
            sessions.insert(key, listed);
        }
    }
}

/// Lists the store, reusing what `last` holds for every manifest whose
/// ETag is unchanged. An error of a list itself fails the whole listing
/// (the caller keeps the last one); a bad manifest only skips itself, a
/// bad index has the manifests listed. Each session read is also put in
/// `read`, as it comes: what a listing cut short by its time bound had
/// read (kept for the next one).
pub async fn list(
    client: &TeamClient,
    last: &HashMap<String, Listed>,
    seen: &Seen,
    read: &std::sync::Mutex<HashMap<String, Listed>>,
) -> Result<Listing, TeamError> {
    let now = now_secs();
    let due = last.is_empty()
        || seen.walked_at == 0
        || now
            .checked_sub(seen.walked_at)
            .is_none_or(|age| age >= WALK_EVERY.as_secs());
    // Both at once when both are due: the indexes are small, the list of
    // `sessions/` is one page per 1,000 sessions.
    let (indexes, walked) = futures::join!(index::read_changed(client, &seen.indexes), async {
        if due {
            Some(walk(client).await)
        } else {
            None
        }
    });
    let indexes = indexes?;
    let copies: HashMap<String, Listed> = indexes
        .sessions
        .into_iter()
        .map(|(key, (publisher, entry))| {
            let listed = Listed {
                publisher,
                id: entry.id,
                etag: Some(entry.etag),
                manifest: entry.manifest,
            };
            (key, listed)
        })
        .collect();
    if let Ok(mut read) = read.lock() {
        read.extend(copies.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let metas = match walked {
        Some(metas) => Some(metas?),
        None if indexes.unusable || indexes.etags.is_empty() => Some(walk(client).await?),
        None => None,
    };
    let mut listing = Listing {
        seen: Seen {
            indexes: indexes.etags,
            walked_at: if metas.is_some() { now } else { seen.walked_at },
        },
        ..Listing::default()
    };
    let Some(metas) = metas else {
        // The indexes alone: the last listing, and what changed since.
        listing.sessions = last.clone();
        for (key, listed) in copies {
            merge(&mut listing.sessions, key, listed);
        }
        return Ok(listing);
    };
    let seen_count = metas.len();
    let url = client.url_text();
    let mut to_get: Vec<(Path, String, String)> = Vec::new();
    for meta in metas {
        let Some((publisher, id)) = layout::parse_manifest_path(client, &meta.location) else {
            continue;
        };
        let key = meta.location.to_string();
        let same = |l: &&Listed| l.etag.is_some() && l.etag == meta.e_tag;
        match last
            .get(&key)
            .filter(same)
            .or(copies.get(&key).filter(same))
        {
            Some(known) => {
                listing.sessions.insert(key, known.clone());
            }
            None => to_get.push((meta.location, publisher, id)),
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
            Err(e) if e.is_store_down() => return Err(e.mid_listing(seen_count)),
            Err(e) => listing.skipped.push(e),
        }
    }
    // Published after the list, or a newer copy than the manifest read.
    for (key, listed) in copies {
        merge(&mut listing.sessions, key, listed);
    }
    Ok(listing)
}

/// Every object below `sessions/`, page by page: a failure after the
/// first pages is a listing the server stopped answering, said so in its
/// note.
async fn walk(client: &TeamClient) -> Result<Vec<object_store::ObjectMeta>, TeamError> {
    let root = layout::sessions_root(client);
    let mut metas: Vec<object_store::ObjectMeta> = Vec::new();
    let mut pages = client.store.list(Some(&root));
    while let Some(meta) = pages.try_next().await.map_err(|e| {
        TeamError::from_store(client.url_text(), root.as_ref(), &e).mid_listing(metas.len())
    })? {
        metas.push(meta);
    }
    Ok(metas)
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
        list_seen(client, last, &Seen::default())
    }

    fn list_seen(client: &TeamClient, last: &HashMap<String, Listed>, seen: &Seen) -> Listing {
        let (client, last, seen) = (client.clone(), last.clone(), seen.clone());
        net::run("m", net::WHOLE_TIMEOUT, async move {
            list(&client, &last, &seen, &std::sync::Mutex::default()).await
        })
        .unwrap()
    }

    /// Writes `m` as `ana`'s manifest of `id`; its ETag.
    fn put_ana(client: &TeamClient, m: &Manifest, id: &str) -> String {
        put_manifest(client, m, "ana", id);
        let (store, path) = (
            client.store.clone(),
            layout::manifest_path(client, "ana", id).unwrap(),
        );
        net::run("m", net::WHOLE_TIMEOUT, async move {
            let meta = store
                .head(&path)
                .await
                .map_err(|e| TeamError::from_store("m", "", &e))?;
            Ok(meta.e_tag.unwrap())
        })
        .unwrap()
    }

    fn put_index(client: &TeamClient, entries: Vec<index::IndexEntry>) {
        let mut i = index::Index::new("ana");
        for e in entries {
            i.merge(e);
        }
        put(
            client,
            &layout::index_path(client, "ana").unwrap(),
            i.to_bytes(),
        );
    }

    #[test]
    fn the_index_spares_the_manifest_reads_while_its_etags_are_the_manifests() {
        let c = memory_client("team");
        let etag = put_ana(&c, &manifest_of("ana", "s1", &[A]), "s1");
        let mut copy = manifest_of("ana", "s1", &[A]);
        copy.entries[0].title = Some("from the index".into());
        let entry = |etag: &str, m: &Manifest| index::IndexEntry {
            id: "s1".into(),
            etag: etag.into(),
            manifest: m.clone(),
        };
        put_index(&c, vec![entry(&etag, &copy)]);
        // Cold: `sessions/` listed too, but the manifest not read.
        let cold = list_now(&c, &HashMap::new());
        assert_eq!((cold.sessions.len(), cold.fetched), (1, 0));
        // The one session's entries.
        let entries_of = |l: &Listing| l.sessions.values().next().unwrap().manifest.entries.clone();
        let title = entries_of(&cold)[0].title.clone();
        assert_eq!(title.as_deref(), Some("from the index"));
        assert!(cold.seen.walked_at > 0 && cold.seen.indexes.len() == 1);
        // A publish whose index update failed: the manifest moved on, the
        // index did not. Within WALK_EVERY the last listing stands; past
        // it the manifest is read.
        put_ana(&c, &manifest_of("ana", "s1", &[A, B]), "s1");
        let warm = list_seen(&c, &cold.sessions, &cold.seen);
        assert_eq!(
            (warm.fetched, warm.seen.walked_at),
            (0, cold.seen.walked_at)
        );
        let old = Seen {
            walked_at: 1,
            ..cold.seen.clone()
        };
        let walked = list_seen(&c, &warm.sessions, &old);
        assert_eq!(walked.fetched, 1);
        let entries = entries_of(&walked);
        assert_eq!(
            entries[1].sha256, B,
            "the longer manifest, not the index's copy"
        );
    }

    #[test]
    fn a_bad_index_or_none_has_the_manifests_listed() {
        let c = memory_client("");
        put_ana(&c, &manifest_of("ana", "s1", &[A]), "s1");
        put_manifest(&c, &manifest_of("bo", "s2", &[B]), "bo", "s2");
        let fresh = Seen {
            indexes: HashMap::new(),
            walked_at: now_secs(),
        };
        let some = list_now(&c, &HashMap::new()).sessions;
        // No index at all (an older publisher): listed, even when recent.
        let none = list_seen(&c, &some, &fresh);
        assert_eq!((none.sessions.len(), none.fetched), (2, 0));
        put(&c, &layout::index_path(&c, "ana").unwrap(), b"{".to_vec());
        let bad = list_seen(&c, &HashMap::new(), &fresh);
        assert_eq!((bad.sessions.len(), bad.fetched), (2, 2));
        assert!(bad.seen.indexes.is_empty(), "a bad index is read again");
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
