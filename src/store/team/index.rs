//! A publisher's index, `index/<publisher>.json`: a copy of every manifest
//! that publisher wrote, each with the ETag the manifest got when it was
//! written. A listing reads one index per publisher instead of one
//! manifest per session (10,000 GETs are 10 s and more on a local server).
//!
//! The manifest stays the source of truth: an index entry is used only
//! while its ETag is the manifest's (a listing of `sessions/` says so), or
//! — between those listings — when it is newer than what the last listing
//! held. Manifests only ever grow (a compare-and-swap replaces one with a
//! superset), so of two copies of one manifest the longer is the newer.
//!
//! JSON, camelCase: `{"version":1,"publisher":"ana","sessions":[{"id",
//! "etag","manifest":{…}}]}`, the manifest as `manifest.rs` writes it.

use std::collections::HashMap;

use futures::StreamExt as _;
use object_store::path::Path;
use object_store::ObjectStoreExt as _;
use serde::{Deserialize, Serialize};

use super::client::TeamClient;
use super::error::TeamError;
use super::layout;
use super::manifest::Manifest;

/// The one index version this program writes and reads.
pub const INDEX_VERSION: u32 = 1;

/// The largest index read: about 250 bytes a session and version, so
/// hundreds of thousands of them.
pub const MAX_INDEX_BYTES: usize = 64 << 20;

/// Indexes read at once.
const CONCURRENT_GETS: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Index {
    pub version: u32,
    pub publisher: String,
    pub sessions: Vec<IndexEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexEntry {
    /// The id on the publisher's machine.
    pub id: String,
    /// The manifest's ETag as written.
    pub etag: String,
    pub manifest: Manifest,
}

/// Whether copy `a` of a manifest is newer than copy `b` (or as new).
pub fn newer_or_same(a: &Manifest, b: &Manifest) -> bool {
    a.entries.len() >= b.entries.len()
}

impl Index {
    pub fn new(publisher: &str) -> Index {
        Index {
            version: INDEX_VERSION,
            publisher: publisher.to_owned(),
            sessions: Vec::new(),
        }
    }

    /// Parses and checks the index of `publisher`: version 1, its
    /// publisher, each manifest checked as a manifest and under its id.
    /// The error names what is wrong.
    pub fn parse(bytes: &[u8], publisher: &str) -> Result<Index, String> {
        if bytes.len() > MAX_INDEX_BYTES {
            return Err(format!("larger than {MAX_INDEX_BYTES} bytes"));
        }
        let index: Index =
            serde_json::from_slice(bytes).map_err(|e| format!("not index JSON ({e})"))?;
        if index.version != INDEX_VERSION {
            return Err(format!("unknown version {}", index.version));
        }
        if index.publisher != publisher {
            return Err(format!("its publisher is not {publisher:?}"));
        }
        for entry in &index.sessions {
            entry.manifest.check()?;
            if entry.manifest.session_id != layout::published_id(publisher, &entry.id) {
                return Err(format!("the manifest of {:?} is another's", entry.id));
            }
        }
        Ok(index)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        // Serializing a struct of strings and numbers cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Puts `entry` in place of its session's, unless the copy there is
    /// newer; whether the index changed.
    pub fn merge(&mut self, entry: IndexEntry) -> bool {
        match self.sessions.iter_mut().find(|e| e.id == entry.id) {
            Some(old) if *old == entry || !newer_or_same(&entry.manifest, &old.manifest) => false,
            Some(old) => {
                *old = entry;
                true
            }
            None => {
                self.sessions.push(entry);
                true
            }
        }
    }
}

/// What the indexes of a store said.
#[derive(Debug, Default)]
pub struct Indexes {
    /// The sessions of the indexes read (changed since the last listing),
    /// each with its publisher, by manifest path.
    pub sessions: HashMap<String, (String, IndexEntry)>,
    /// The ETag of every usable index, read or unchanged, by path.
    pub etags: HashMap<String, String>,
    /// Whether an index could not be used (bad JSON, unknown version, too
    /// large): only a listing of the manifests finds its sessions then.
    pub unusable: bool,
}

/// Lists `index/` and reads each index whose ETag is not the one in
/// `known` (the last listing's). An error of the list or a store that
/// stopped answering fails it; a bad index only counts as unusable.
pub async fn read_changed(
    client: &TeamClient,
    known: &HashMap<String, String>,
) -> Result<Indexes, TeamError> {
    let url = client.url_text();
    let root = layout::index_root(client);
    // Only the objects right below `index/`: on `file://` the versions
    // of the indexes are below it too.
    let listed = client
        .store
        .list_with_delimiter(Some(&root))
        .await
        .map_err(|e| TeamError::from_store(url, root.as_ref(), &e))?;
    let mut out = Indexes::default();
    let mut to_get = Vec::new();
    for meta in listed.objects {
        let Some(publisher) = layout::parse_index_path(client, &meta.location) else {
            continue;
        };
        let key = meta.location.to_string();
        match meta.e_tag {
            Some(etag) if known.get(&key) == Some(&etag) => {
                out.etags.insert(key, etag);
            }
            _ => to_get.push((meta.location, publisher)),
        }
    }
    let mut got = futures::stream::iter(to_get)
        .map(|(path, publisher)| async move {
            let read = read_one(client, &path, &publisher).await;
            (path, publisher, read)
        })
        .buffer_unordered(CONCURRENT_GETS);
    while let Some((path, publisher, read)) = got.next().await {
        match read {
            Ok((index, etag)) => {
                for entry in index.sessions {
                    let Some(manifest_path) = layout::manifest_path(client, &publisher, &entry.id)
                    else {
                        continue;
                    };
                    out.sessions
                        .insert(manifest_path.to_string(), (publisher.clone(), entry));
                }
                if let Some(etag) = etag {
                    out.etags.insert(path.to_string(), etag);
                }
            }
            Err(Some(e)) if e.is_store_down() => return Err(e),
            // Gone between the list and the get: nothing to use.
            Err(Some(TeamError::NotFound { .. })) => {}
            Err(e) => {
                tracing::debug!("{url}: index {path} unusable: {e:?}");
                out.unusable = true;
            }
        }
    }
    Ok(out)
}

/// One index and its ETag; `Err(None)` for bytes that are no index.
async fn read_one(
    client: &TeamClient,
    path: &Path,
    publisher: &str,
) -> Result<(Index, Option<String>), Option<TeamError>> {
    let url = client.url_text();
    let store_err = |e: object_store::Error| Some(TeamError::from_store(url, path.as_ref(), &e));
    let got = client.store.get(path).await.map_err(store_err)?;
    if got.meta.size > MAX_INDEX_BYTES as u64 {
        return Err(None);
    }
    let etag = got.meta.e_tag.clone();
    let bytes = got.bytes().await.map_err(store_err)?;
    let index = Index::parse(&bytes, publisher).map_err(|reason| {
        tracing::debug!("{url}: {path}: {reason}");
        None
    })?;
    Ok((index, etag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::team::manifest::ManifestEntry;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    fn entry(id: &str, etag: &str, shas: &[&str]) -> IndexEntry {
        IndexEntry {
            id: id.into(),
            etag: etag.into(),
            manifest: Manifest {
                version: 1,
                session_id: layout::published_id("ana", id),
                entries: shas
                    .iter()
                    .map(|sha| ManifestEntry {
                        sha256: (*sha).to_owned(),
                        bytes: 1,
                        published_at: "2026-12-02T09:00:00Z".into(),
                        title: None,
                    })
                    .collect(),
            },
        }
    }

    #[test]
    fn an_index_round_trips_and_keeps_the_newer_copy_of_each_manifest() {
        let mut index = Index::new("ana");
        assert!(index.merge(entry("s1", "e2", &[A, B])));
        assert!(index.merge(entry("s/2", "e1", &[A])));
        // An older copy (a publish whose index update came late) loses.
        assert!(!index.merge(entry("s1", "e1", &[A])));
        assert!(!index.merge(entry("s1", "e2", &[A, B])));
        assert!(index.merge(entry("s/2", "e3", &[A, B])));
        let bytes = index.to_bytes();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with(r#"{"version":1,"publisher":"ana","sessions":[{"id":"s1","etag":"e2","manifest":{"version":1,"sessionId":"~ana/s1""#), "{text}");
        let back = Index::parse(&bytes, "ana").unwrap();
        assert_eq!(back, index);
        assert_eq!(back.sessions[1].manifest.entries.len(), 2);
    }

    #[test]
    fn bad_indexes_are_refused_with_a_reason() {
        let good = {
            let mut i = Index::new("ana");
            i.merge(entry("s1", "e", &[A]));
            String::from_utf8(i.to_bytes()).unwrap()
        };
        assert!(Index::parse(good.as_bytes(), "ana").is_ok());
        let cases = [
            ("{", "not index JSON"),
            (
                &good.replacen("\"version\":1", "\"version\":2", 1),
                "unknown version 2",
            ),
            (&good, "publisher"),
            (&good.replace("~ana/s1", "~ana/other"), "another's"),
            (&good.replace(A, "A"), "64 lower-case hex"),
        ];
        for (i, (bytes, why)) in cases.iter().enumerate() {
            let publisher = if i == 2 { "bo" } else { "ana" };
            let err = Index::parse(bytes.as_bytes(), publisher).unwrap_err();
            assert!(err.contains(why), "{err}");
        }
        assert!(Index::parse(&vec![b' '; MAX_INDEX_BYTES + 1], "ana").is_err());
    }
}
