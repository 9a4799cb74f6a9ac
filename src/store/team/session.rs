//! A published session as the store list shows it: its header from the
//! cached snapshot when there is one (cwd, creation time, label as the
//! author's log had them), else from its manifest.

use std::sync::Arc;

use super::cache;
use super::listing::Listed;
use crate::formats::{self, HeaderState, TEAM};
use crate::model::{Locator, Session, SessionHeader, Version};
use crate::reference::pin::is_sha256_hex;

/// The format a snapshot is read in: a hydra log.
pub const SNAPSHOT_FORMAT: &str = "hydra";

/// The live session of `listed` (its latest version); `None` for a
/// manifest with no entry yet.
pub fn live(listed: &Listed, store: usize) -> Option<Session> {
    let latest = listed.manifest.latest()?;
    let first = listed.manifest.entries.first()?;
    let created_at = formats::text::parse_timestamp(&first.published_at).unwrap_or(0);
    let mut session = Session {
        header: SessionHeader {
            version: 0,
            id: listed.published_id(),
            created_at,
            cwd: None,
            label: None,
        },
        locator: locator(store, &latest.sha256),
        title: latest.title.clone(),
        capacity: None,
        unreadable: None,
        skipped_lines: 0,
        stamp: Version(latest.sha256.as_bytes().to_vec()).token(),
    };
    if let Some(bytes) = cache::cache_get(&latest.sha256) {
        fill_from_snapshot(&mut session, &bytes);
    }
    Some(session)
}

/// Whether `session` is a team store's published session (a hydra
/// snapshot named by its digest, under a published id).
pub fn is_published(session: &Session) -> bool {
    session.locator.format == TEAM
        && session.id().starts_with('~')
        && std::str::from_utf8(&session.locator.name).is_ok_and(is_sha256_hex)
}

/// The session a pinned id names, given the session of its live id:
/// `None` when `live` is no team store's (a local session has no pins).
pub fn pinned_of(live: &Session, pinned_id: &str, sha: &str) -> Option<Session> {
    is_published(live).then(|| pinned(live, pinned_id, sha))
}

/// Version `sha` of the listed session `live`, under its pinned id.
pub fn pinned(live: &Session, pinned_id: &str, sha: &str) -> Session {
    let mut session = live.clone();
    session.header.id = pinned_id.to_owned();
    session.locator = locator(live.locator.store, sha);
    session.stamp = Version(sha.as_bytes().to_vec()).token();
    if let Some(bytes) = cache::cache_get(sha) {
        fill_from_snapshot(&mut session, &bytes);
    }
    session
}

/// Version `sha` of a published session no listing has shown (the store
/// is down, or was never reached): only when its snapshot is cached, so a
/// pinned mention stays usable offline.
pub fn cached_pin(store: usize, pinned_id: &str, sha: &str) -> Option<Session> {
    let bytes = cache::cache_get(sha)?;
    let mut session = Session {
        header: SessionHeader {
            id: pinned_id.to_owned(),
            ..SessionHeader::default()
        },
        locator: locator(store, sha),
        title: None,
        capacity: None,
        unreadable: None,
        skipped_lines: 0,
        stamp: Version(sha.as_bytes().to_vec()).token(),
    };
    fill_from_snapshot(&mut session, &bytes);
    Some(session)
}

fn locator(store: usize, sha: &str) -> Locator {
    Locator {
        store,
        // The store kind, so the store list hands the read to the
        // team store's reader.
        format: TEAM,
        name: Arc::from(sha.as_bytes()),
    }
}

/// The header facts of a snapshot's first lines (the id stays the
/// published one).
fn fill_from_snapshot(session: &mut Session, bytes: &[u8]) {
    let Some(format) = formats::by_name(SNAPSHOT_FORMAT) else {
        return;
    };
    let mut scanner = format.scanner();
    for line in bytes.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        scanner.line(line);
        if scanner.is_done() {
            break;
        }
    }
    if let HeaderState::Session(header) = scanner.header() {
        session.header.created_at = header.created_at;
        session.header.cwd = header.cwd;
        session.header.label = header.label;
        session.header.version = header.version;
    }
    let meta = scanner.meta();
    session.title = meta.title.or(session.title.take());
    session.capacity = meta.capacity;
}
