//! Reading a team store's session: the snapshot's bytes (cache, else the
//! store, verified by hash) read as the hydra log they are.

use std::io::{self, Read};
use std::sync::OnceLock;

use super::client::{self, TeamClient};
use super::error::TeamError;
use super::fetch;
use super::session::SNAPSHOT_FORMAT;
use super::url::TeamUrl;
use crate::formats::{self, LogSource};
use crate::model::{
    Cancelled, Entry, LogError, ReadError, ReadSummary, Session, SessionReader, Version,
};

/// Reads a team store's sessions; owns the store's client, opened on
/// first use (credential discovery may run a process: never where the
/// store list is only being configured).
pub struct TeamReader {
    client: OnceLock<Result<TeamClient, TeamError>>,
    url: String,
}

impl TeamReader {
    /// A reader of the store at `url`, its client not opened yet.
    pub fn lazy(url: &str) -> TeamReader {
        TeamReader {
            client: OnceLock::new(),
            url: url.to_owned(),
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

    /// The snapshot bytes of `session`'s version.
    pub fn bytes_of(&self, session: &Session) -> Result<Vec<u8>, ReadError> {
        let sha = std::str::from_utf8(&session.locator.name).unwrap_or_default();
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
}
