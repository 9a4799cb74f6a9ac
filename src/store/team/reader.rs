//! Reading a team store's session: the snapshot's bytes (cache, else the
//! store, verified by hash) read as the hydra log they are.

use std::collections::HashMap;
use std::io::{self, Read};
use std::sync::{OnceLock, RwLock};

use super::client::{self, TeamClient};
use super::error::TeamError;
use super::manifest::Manifest;
use super::session::SNAPSHOT_FORMAT;
use super::url::TeamUrl;
use super::{cache, fetch};
use crate::formats::{self, LogSource};
use crate::model::{
    Cancelled, Entry, LatestVersion, LogError, PublishedVersion, ReadError, ReadSummary, Session,
    SessionReader, Version,
};
use crate::reference::pin::split_pin;

/// Reads a team store's sessions; owns the store's client, opened on
/// first use (credential discovery may run a process: never where the
/// store list is only being configured).
pub struct TeamReader {
    client: OnceLock<Result<TeamClient, TeamError>>,
    url: String,
    /// The manifests of the last listing, by published (live) id: where a
    /// version stands among its session's versions (hover). The reader,
    /// shared with every view, holds the latest listing's.
    manifests: RwLock<HashMap<String, Manifest>>,
}

impl TeamReader {
    /// A reader of the store at `url`, its client not opened yet.
    pub fn lazy(url: &str) -> TeamReader {
        TeamReader {
            client: OnceLock::new(),
            url: url.to_owned(),
            manifests: RwLock::new(HashMap::new()),
        }
    }

    /// Keeps the manifests of a new listing, by published id.
    pub fn set_manifests(&self, manifests: HashMap<String, Manifest>) {
        if let Ok(mut kept) = self.manifests.write() {
            *kept = manifests;
        }
    }

    /// A reader over a client already opened (or failed).
    pub fn with_client(url: &str, client: Result<TeamClient, TeamError>) -> TeamReader {
        let reader = Self::lazy(url);
        let _ = reader.client.set(client);
        reader
    }

    /// The store's client, opened now if it was not.
    pub fn client(&self) -> Result<&TeamClient, &TeamError> {
        self.client
            .get_or_init(|| TeamUrl::parse(&self.url).and_then(|u| client::open(&u)))
            .as_ref()
    }

    /// The digest `session`'s locator names.
    fn sha_of(session: &Session) -> &str {
        std::str::from_utf8(&session.locator.name).unwrap_or_default()
    }

    /// The snapshot bytes of `session`'s version.
    pub fn bytes_of(&self, session: &Session) -> Result<Vec<u8>, ReadError> {
        let sha = Self::sha_of(session);
        let fail = |reason: String| {
            ReadError::Log(LogError {
                file: format!("{} {}", self.url, session.id()),
                line: None,
                reason,
            })
        };
        if let Some(bytes) = fetch::cached(sha) {
            return Ok(bytes);
        }
        let client = self.client().map_err(|e| {
            fail(format!(
                "snapshot sha256:{sha} is not cached and the store cannot be opened: {}",
                e.detail()
            ))
        })?;
        fetch::snapshot(client, sha).map_err(|e| fail(e.detail()))
    }
}

/// A snapshot's bytes as a log source, cut at `limit` when given.
struct Snapshot<'a> {
    name: &'a str,
    bytes: &'a [u8],
    limit: Option<u64>,
}

impl LogSource for Snapshot<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn open(&self, limit: Option<u64>) -> io::Result<(Box<dyn Read + '_>, u64)> {
        let size = self.bytes.len() as u64;
        let size = limit.into_iter().chain(self.limit).fold(size, u64::min);
        Ok((Box::new(self.bytes), size))
    }
}

impl SessionReader for TeamReader {
    fn read_range(
        &self,
        session: &Session,
        limit: Option<u64>,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        let bytes = self.bytes_of(session)?;
        let format = formats::by_name(SNAPSHOT_FORMAT).ok_or_else(|| {
            ReadError::Log(LogError {
                file: session.id().to_owned(),
                line: None,
                reason: "no hydra reader in this build".into(),
            })
        })?;
        let name = session.id().to_owned();
        let log = Snapshot {
            name: &name,
            bytes: &bytes,
            limit,
        };
        let mut summary = format.read(&log, cancelled, sink)?;
        // A snapshot keeps its author's id; here it is the published one.
        summary.header.id = session.header.id.clone();
        Ok(summary)
    }

    /// A version is its snapshot's digest: immutable bytes.
    fn version(&self, session: &Session) -> Option<Version> {
        Some(Version(session.locator.name.to_vec()))
    }

    fn link_target(&self, _session: &Session) -> Option<String> {
        None
    }

    /// The store's URL while the snapshot is not in the local cache.
    fn remote(&self, session: &Session) -> Option<String> {
        (!cache::is_cached(Self::sha_of(session))).then(|| self.url.clone())
    }

    fn fetch(&self, session: &Session) -> Result<(), ReadError> {
        self.bytes_of(session).map(drop)
    }

    fn published(&self, session: &Session) -> Option<PublishedVersion> {
        let sha = Self::sha_of(session);
        let id = session.id();
        let live = split_pin(id).map_or(id, |(live, _)| live);
        let manifests = self.manifests.read().ok()?;
        let Some(manifest) = manifests.get(live) else {
            return Some(PublishedVersion {
                sha256: sha.to_owned(),
                position: None,
                versions: 0,
                published_at: None,
                newer: None,
            });
        };
        Some(version_in(manifest, sha))
    }
}

/// Where version `sha` stands in `manifest`.
fn version_in(manifest: &Manifest, sha: &str) -> PublishedVersion {
    let position = manifest.entries.iter().position(|e| e.sha256 == sha);
    let newer = manifest
        .latest()
        .filter(|latest| latest.sha256 != sha)
        .map(|latest| LatestVersion {
            sha256: latest.sha256.clone(),
            published_at: latest.published_at.clone(),
        });
    PublishedVersion {
        sha256: sha.to_owned(),
        position: position.map(|i| i + 1),
        versions: manifest.entries.len(),
        published_at: position.map(|i| manifest.entries[i].published_at.clone()),
        newer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::team::manifest::ManifestEntry;

    fn entry(sha: char, at: &str) -> ManifestEntry {
        ManifestEntry {
            sha256: sha.to_string().repeat(64),
            bytes: 1,
            published_at: at.to_owned(),
            title: None,
        }
    }

    #[test]
    fn a_version_knows_its_place_and_whether_a_newer_one_exists() {
        let mut manifest = Manifest::new("~ana/s1");
        manifest.entries = vec![
            entry('a', "2026-12-01T09:00:00Z"),
            entry('b', "2026-12-02T09:00:00Z"),
        ];
        let old = version_in(&manifest, &"a".repeat(64));
        assert_eq!(old.position, Some(1));
        assert_eq!(old.versions, 2);
        assert_eq!(old.published_at.as_deref(), Some("2026-12-01T09:00:00Z"));
        assert_eq!(
            old.newer.as_ref().map(|n| n.sha256.as_str()),
            Some("b".repeat(64).as_str())
        );
        let latest = version_in(&manifest, &"b".repeat(64));
        assert_eq!((latest.position, latest.newer), (Some(2), None));
        let elsewhere = version_in(&manifest, &"c".repeat(64));
        assert_eq!((elsewhere.position, elsewhere.published_at), (None, None));
        assert!(elsewhere.newer.is_some());
    }
}
