//! The bucket layout, relative to the store's prefix:
//!
//! - `snapshots/sha256/<64 lower hex>.jsonl`: the immutable bytes of one
//!   published version (a hydra log), named by their SHA-256;
//! - `sessions/<publisher>/<base64url of the original id>/manifest.json`:
//!   the versions of one published session;
//! - `index/<publisher>.json`: a copy of every manifest of one publisher
//!   (`index.rs`), what a listing reads instead of each manifest.
//!
//! The id is base64url-encoded (no padding) because a session id may hold
//! any character, `/` included; the publisher is limited to characters
//! every backend keeps as they are.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use object_store::path::{Path, PathPart};

use super::client::TeamClient;
use crate::reference::pin::is_sha256_hex;

pub const SNAPSHOTS: &str = "snapshots";
pub const SESSIONS: &str = "sessions";
pub const MANIFEST: &str = "manifest.json";
pub const INDEX: &str = "index";

/// Where the snapshot of digest `sha` lives; `None` when `sha` is not 64
/// lower-case hex (nothing else is ever turned into a path).
pub fn snapshot_path(client: &TeamClient, sha: &str) -> Option<Path> {
    is_sha256_hex(sha).then(|| {
        client
            .prefix
            .clone()
            .join(SNAPSHOTS)
            .join("sha256")
            .join(format!("{sha}.jsonl"))
    })
}

/// Where the manifest of `publisher`'s session `id` lives; `None` for a
/// publisher name [`valid_publisher`] refuses or an empty id.
pub fn manifest_path(client: &TeamClient, publisher: &str, id: &str) -> Option<Path> {
    if !valid_publisher(publisher) || id.is_empty() {
        return None;
    }
    Some(
        sessions_root(client)
            .join(publisher)
            .join(URL_SAFE_NO_PAD.encode(id.as_bytes()))
            .join(MANIFEST),
    )
}

/// The folder every manifest is below (what listing walks).
pub fn sessions_root(client: &TeamClient) -> Path {
    client.prefix.clone().join(SESSIONS)
}

/// The publisher and original id of a manifest's path; `None` for any
/// other object (a stray file in the bucket is skipped, not an error).
pub fn parse_manifest_path(client: &TeamClient, path: &Path) -> Option<(String, String)> {
    let parts: Vec<PathPart<'_>> = path.prefix_match(&client.prefix)?.collect();
    let [sessions, publisher, encoded, manifest] = parts.as_slice() else {
        return None;
    };
    if sessions.as_ref() != SESSIONS || manifest.as_ref() != MANIFEST {
        return None;
    }
    let publisher = publisher.as_ref();
    if !valid_publisher(publisher) {
        return None;
    }
    let id = URL_SAFE_NO_PAD.decode(encoded.as_ref()).ok()?;
    let id = String::from_utf8(id).ok()?;
    (!id.is_empty()).then(|| (publisher.to_owned(), id))
}

/// The folder the publishers' indexes are in.
pub fn index_root(client: &TeamClient) -> Path {
    client.prefix.clone().join(INDEX)
}

/// Where `publisher`'s index lives; `None` for a name [`valid_publisher`]
/// refuses.
pub fn index_path(client: &TeamClient, publisher: &str) -> Option<Path> {
    valid_publisher(publisher).then(|| index_root(client).join(format!("{publisher}.json")))
}

/// The publisher of an index's path; `None` for any other object.
pub fn parse_index_path(client: &TeamClient, path: &Path) -> Option<String> {
    let parts: Vec<PathPart<'_>> = path.prefix_match(&client.prefix)?.collect();
    let [index, name] = parts.as_slice() else {
        return None;
    };
    let publisher = name.as_ref().strip_suffix(".json")?;
    (index.as_ref() == INDEX && valid_publisher(publisher)).then(|| publisher.to_owned())
}

/// Whether `name` can be a publisher: 1 to 64 of `A-Z a-z 0-9 . _ -`, not
/// starting with `.` (a login name, kept as a path part no backend
/// rewrites).
pub fn valid_publisher(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The published id `~<publisher>/<id>`.
pub fn published_id(publisher: &str, id: &str) -> String {
    format!("~{publisher}/{id}")
}

/// The publisher and original id of a published id `~<publisher>/<id>`.
pub fn split_published_id(id: &str) -> Option<(&str, &str)> {
    let (publisher, original) = id.strip_prefix('~')?.split_once('/')?;
    (valid_publisher(publisher) && !original.is_empty()).then_some((publisher, original))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::team::client::tests::memory_client;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn paths_sit_under_the_prefix_and_parse_back() {
        let c = memory_client("team/x");
        assert_eq!(
            snapshot_path(&c, HEX).unwrap().as_ref(),
            format!("team/x/snapshots/sha256/{HEX}.jsonl")
        );
        assert!(snapshot_path(&c, "../../etc").is_none());
        let odd = "2026-12-02/with slash é";
        let m = manifest_path(&c, "ana", odd).unwrap();
        assert!(m.as_ref().starts_with("team/x/sessions/ana/"));
        assert_eq!(
            parse_manifest_path(&c, &m),
            Some(("ana".into(), odd.into()))
        );
        assert!(manifest_path(&c, "../x", "a").is_none());
        assert!(manifest_path(&c, "ana", "").is_none());
        assert!(parse_manifest_path(&c, &Path::from("team/x/sessions/ana/zz/other")).is_none());
        assert!(
            parse_manifest_path(&c, &Path::from("elsewhere/sessions/a/YQ/manifest.json")).is_none()
        );
        let index = index_path(&c, "ana.b").unwrap();
        assert_eq!(index.as_ref(), "team/x/index/ana.b.json");
        assert_eq!(parse_index_path(&c, &index).as_deref(), Some("ana.b"));
        assert!(index_path(&c, ".x").is_none());
        assert!(parse_index_path(&c, &Path::from("team/x/index/versions/ana/1.json")).is_none());
        assert!(parse_index_path(&c, &Path::from("team/x/index/ana.txt")).is_none());
    }

    #[test]
    fn published_ids_split_into_publisher_and_id() {
        assert_eq!(published_id("ana", "a/b"), "~ana/a/b");
        assert_eq!(split_published_id("~ana/a/b"), Some(("ana", "a/b")));
        assert_eq!(split_published_id("ana/a"), None);
        assert_eq!(split_published_id("~/a"), None);
        assert_eq!(split_published_id("~ana/"), None);
    }
}
