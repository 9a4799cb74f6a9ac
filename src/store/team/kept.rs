//! A team store's last listing, kept in the local cache between runs
//! (`$XDG_CACHE_HOME/hydra-session-lsp/team/listings/<sha256 of the
//! URL>.json`, folder 0700, file 0600): each manifest read, by path, with
//! the ETag it was read at. A new process starts its listing from it, so a
//! manifest whose ETag is unchanged is not read again — the warm listing
//! of a large store is its LIST alone — and the manifests a listing cut
//! short by its time bound had read are not read again by the next one.
//! It also keeps each index's ETag and when `sessions/` was last listed
//! whole (`listing.rs`: when a listing of it is due).
//! A manifest holds no secret (ids, digests, titles, dates); a file that
//! is not ours, a link or one that does not parse is ignored.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::cache;
use super::listing::{Listed, Seen};
use super::manifest::Manifest;
use crate::fsio::{self, Links};

/// The largest kept listing read back (10,000 sessions take a few MB).
const MAX_KEPT_BYTES: u64 = 256 << 20;

#[derive(Serialize, Deserialize)]
struct Kept {
    version: u32,
    url: String,
    sessions: Vec<KeptSession>,
    /// Absent from a listing kept before the indexes: as never walked.
    #[serde(default)]
    indexes: HashMap<String, String>,
    #[serde(default)]
    walked_at: u64,
}

#[derive(Serialize, Deserialize)]
struct KeptSession {
    path: String,
    publisher: String,
    id: String,
    etag: String,
    manifest: Manifest,
}

/// The folder listings are kept in.
fn listings_dir() -> Option<PathBuf> {
    Some(cache::cache_dir()?.parent()?.join("listings"))
}

/// Where the listing of `url` is kept in `dir`.
fn file_in(dir: &Path, url: &str) -> PathBuf {
    dir.join(format!("{}.json", cache::sha256_hex(url.as_bytes())))
}

/// The kept listing of `url` (empty when there is none or it is unusable).
pub fn load(url: &str) -> (HashMap<String, Listed>, Seen) {
    listings_dir()
        .map(|dir| load_in(&dir, url))
        .unwrap_or_default()
}

/// Keeps `sessions` as the listing of `url`.
pub fn save(url: &str, sessions: &HashMap<String, Listed>, seen: &Seen) -> io::Result<()> {
    let dir = listings_dir().ok_or_else(|| io::Error::other("no cache directory"))?;
    save_in(&dir, url, sessions, seen)
}

/// [`load`] from `dir`.
fn load_in(dir: &Path, url: &str) -> (HashMap<String, Listed>, Seen) {
    read(&file_in(dir, url))
        .filter(|kept| kept.version == 1 && kept.url == url)
        .map(|kept| {
            let seen = Seen {
                indexes: kept.indexes,
                walked_at: kept.walked_at,
            };
            let sessions = kept
                .sessions
                .into_iter()
                .map(|s| {
                    let listed = Listed {
                        publisher: s.publisher,
                        id: s.id,
                        etag: Some(s.etag),
                        manifest: s.manifest,
                    };
                    (s.path, listed)
                })
                .collect();
            (sessions, seen)
        })
        .unwrap_or_default()
}

fn read(path: &Path) -> Option<Kept> {
    let file = fsio::open_regular(path, Links::NoFollow).ok()?;
    if !fsio::owned_by_me(&file.metadata().ok()?) {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_KEPT_BYTES).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// [`save`] into `dir`: the sessions with an ETag (the others could never
/// be trusted again), replacing the kept listing.
fn save_in(
    dir: &Path,
    url: &str,
    sessions: &HashMap<String, Listed>,
    seen: &Seen,
) -> io::Result<()> {
    let path = file_in(dir, url);
    fsio::make_private_dir(dir).map_err(io::Error::other)?;
    let kept = Kept {
        version: 1,
        url: url.to_owned(),
        sessions: sessions
            .iter()
            .filter_map(|(path, l)| {
                Some(KeptSession {
                    path: path.clone(),
                    publisher: l.publisher.clone(),
                    id: l.id.clone(),
                    etag: l.etag.clone()?,
                    manifest: l.manifest.clone(),
                })
            })
            .collect(),
        indexes: seen.indexes.clone(),
        walked_at: seen.walked_at,
    };
    let bytes = serde_json::to_vec(&kept).map_err(io::Error::other)?;
    let mut temp = fsio::private_temp_file(dir, ".listing-", ".tmp")?;
    temp.write_all(&bytes)?;
    // Replaced whole by a rename: a reader sees the old or the new one.
    temp.persist(&path).map(drop).map_err(|e| e.error)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::store::team::listing::tests::manifest_of;

    #[test]
    fn a_listing_is_kept_owner_only_and_read_back_for_its_url_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("listings");
        let mut sessions = HashMap::new();
        let listed = |etag: Option<&str>| Listed {
            publisher: "ana".into(),
            id: "s1".into(),
            etag: etag.map(str::to_owned),
            manifest: manifest_of("ana", "s1", &["a".repeat(64).as_str()]),
        };
        sessions.insert(
            "sessions/ana/czE/manifest.json".to_owned(),
            listed(Some("e1")),
        );
        sessions.insert("sessions/ana/bm8/manifest.json".to_owned(), listed(None));
        let seen = Seen {
            indexes: HashMap::from([("index/ana.json".to_owned(), "i1".to_owned())]),
            walked_at: 7,
        };
        save_in(&dir, "s3://b/p", &sessions, &seen).unwrap();
        let (back, seen_back) = load_in(&dir, "s3://b/p");
        assert_eq!(seen_back, seen);
        assert_eq!(back.len(), 1, "no ETag, not kept");
        assert_eq!(back["sessions/ana/czE/manifest.json"], listed(Some("e1")));
        assert!(load_in(&dir, "s3://b/other").0.is_empty());
        use std::os::unix::fs::PermissionsExt;
        let file = file_in(&dir, "s3://b/p");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
