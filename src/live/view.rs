//! One immutable view of the live index's sessions: what every face reads
//! (completion, listing, hover, `prepare`) without a lock held across work.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::model::{Session, SessionList, SessionReader, SessionStore, StoreNote, StoreStatus};
use crate::reference::candidates::{Candidates, Target};
use crate::reference::table::{SessionTable, TableBuilder};
use crate::reference::ReferenceError;

/// An immutable snapshot of the store's sessions.
#[derive(Default)]
pub struct View {
    /// The sessions, compact and ready for completion; shared with the
    /// recorded view when the check found every session as recorded.
    sessions: Arc<SessionTable>,
    /// Reads the logs of these sessions.
    pub reader: Option<Arc<dyn SessionReader>>,
    /// Each store of the list, as last updated.
    pub stores: Vec<StoreStatus>,
    /// What is worth knowing about the stores (for `status`).
    pub notes: Vec<StoreNote>,
    /// The team stores whose first listing has not arrived when this view
    /// was taken ([`SessionStore::listing_pending`]), by URL.
    pub listing_pending: Vec<String>,
    /// Which view this is: each one the index publishes has a number of
    /// its own (the one generation counter of views), so the search index
    /// and completion's body matches know when the store changed.
    pub generation: u64,
    /// Listed from what an earlier run recorded (the on-disk index cache),
    /// before any log was checked: what is listed may be out of date until
    /// the checked view replaces it ([`LiveIndex::listed`]).
    ///
    /// [`LiveIndex::listed`]: super::LiveIndex::listed
    pub recorded: bool,
    /// A hash of every session as listed, so the checked view that
    /// follows a recorded one tells whether anything differs without
    /// keeping both lists (in memory only: never written). Only those two
    /// views are hashed: no update after them pays for it.
    fingerprint: Option<u64>,
}

/// The last view generation given.
static VIEWS: AtomicU64 = AtomicU64::new(0);

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View")
            .field("sessions", &self.sessions.len())
            .field("stores", &self.stores)
            .finish()
    }
}

impl View {
    pub(super) fn new(store: &dyn SessionStore) -> Self {
        Self::build(store, false)
    }

    /// The view of a store that listed what it recorded
    /// ([`SessionStore::load_recorded`]), its logs not checked yet.
    pub(super) fn recorded(store: &dyn SessionStore) -> Self {
        View {
            recorded: true,
            ..Self::build(store, true)
        }
    }

    /// The first checked view after `recorded`, hashed to be compared with
    /// it ([`View::lists_as`]). The sessions are hashed first and the
    /// table built only when they differ: a warm start of 100,000
    /// sessions otherwise held a second table of them beside the first
    /// for nothing (21 MiB; issue 29 item 6).
    pub(super) fn checked(store: &dyn SessionStore, recorded: &View) -> Self {
        let (count, fingerprint) = Self::fingerprint(store);
        if count == recorded.len() && recorded.fingerprint == Some(fingerprint) {
            return View {
                sessions: recorded.sessions.clone(),
                fingerprint: Some(fingerprint),
                ..Self::about(store)
            };
        }
        // The store did not change since it was hashed: the hash holds.
        View {
            fingerprint: Some(fingerprint),
            ..Self::build(store, false)
        }
    }

    /// How many sessions `store` lists, and their hash.
    fn fingerprint(store: &dyn SessionStore) -> (usize, u64) {
        let mut hasher = rustc_hash::FxHasher::default();
        let mut count = 0;
        store.for_each_session(&mut |s| {
            s.hash(&mut hasher);
            count += 1;
        });
        (count, hasher.finish())
    }

    /// A view of `store` without its sessions: everything but the table.
    fn about(store: &dyn SessionStore) -> Self {
        View {
            sessions: Arc::default(),
            reader: Some(store.reader()),
            stores: store.status(),
            notes: store.status_notes(),
            listing_pending: store.listing_pending(),
            generation: VIEWS.fetch_add(1, Ordering::Relaxed) + 1,
            recorded: false,
            fingerprint: None,
        }
    }

    fn build(store: &dyn SessionStore, hashed: bool) -> Self {
        // Session by session: a large store is never held twice.
        let mut builder = TableBuilder::default();
        let mut hasher = rustc_hash::FxHasher::default();
        store.for_each_session(&mut |s| {
            if hashed {
                s.hash(&mut hasher);
            }
            builder.push(s);
        });
        View {
            sessions: Arc::new(builder.finish()),
            fingerprint: hashed.then(|| hasher.finish()),
            ..Self::about(store)
        }
    }

    /// Whether `other` lists the very sessions this view lists (up to a
    /// 64-bit hash; both views hashed): a checked view equal to the
    /// recorded one is no change to announce.
    pub(super) fn lists_as(&self, other: &View) -> bool {
        self.len() == other.len()
            && self.fingerprint.is_some()
            && self.fingerprint == other.fingerprint
    }

    /// Whether session `id`'s log is as this view lists it: what the store
    /// recorded of it (its stamp: one `stat`, no read) is what it is now.
    /// A session gone, or a store that keeps no stamp, is not.
    pub fn is_current(&self, id: &str) -> bool {
        let (Some(session), Some(reader)) = (self.get(id), self.reader.as_deref()) else {
            return false;
        };
        session.stamp != 0 && reader.stamp(&session).map(|v| v.token()) == Some(session.stamp)
    }

    /// No sessions, as a view of its own.
    pub(super) fn empty() -> Self {
        View {
            generation: VIEWS.fetch_add(1, Ordering::Relaxed) + 1,
            ..View::default()
        }
    }

    /// Number of sessions.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// No sessions (not indexed yet, or an empty store list).
    pub fn is_empty(&self) -> bool {
        self.sessions.len() == 0
    }

    /// The session `id`; a pinned id of a team store's session
    /// (`~p/id@sha256:…`, issue 26) is that version of the listed one,
    /// unless a session has that exact id.
    pub fn get(&self, id: &str) -> Option<Session> {
        self.sessions.get(id).or_else(|| {
            let (live, sha) = crate::reference::pin::split_pin(id)?;
            crate::store::team::session::pinned_of(&self.sessions.get(live)?, id, sha)
        })
    }

    /// Every session, one at a time (what the search index is brought up
    /// to date with), never copied out whole.
    pub fn sessions(&self) -> &dyn SessionList {
        &*self.sessions
    }

    /// The core's candidates (reference.md §7) over these sessions.
    pub fn candidates(
        &self,
        target: Target<'_>,
        query: &str,
        limit: usize,
    ) -> Result<Candidates, ReferenceError> {
        self.sessions.candidates(target, query, limit as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{FsStore, Scan, StoreSpec};

    fn store_of(titles: &[&str]) -> (tempfile::TempDir, FsStore) {
        let dir = tempfile::tempdir().unwrap();
        for (n, title) in titles.iter().enumerate() {
            let text = format!(
                "{{\"type\":\"session\",\"id\":\"s{n}\",\"createdAt\":1,\"cwd\":\"/w\"}}\n\
                 {{\"seq\":1,\"type\":\"session/title\",\"data\":{{\"title\":\"{title}\"}}}}\n"
            );
            std::fs::write(dir.path().join(format!("s{n}.jsonl")), text).unwrap();
        }
        let store = FsStore::open(&[StoreSpec::auto(dir.path())], Scan::Full);
        (dir, store)
    }

    #[test]
    fn a_check_that_finds_the_sessions_as_recorded_shares_their_table() {
        let (_dir, store) = store_of(&["Alpha", "Beta"]);
        let recorded = View::recorded(&store);
        let checked = View::checked(&store, &recorded);
        assert!(Arc::ptr_eq(&recorded.sessions, &checked.sessions));
        assert!(recorded.lists_as(&checked) && !checked.recorded);
        assert!(checked.generation > recorded.generation);
        assert_eq!(
            checked.get("s1").and_then(|s| s.title).as_deref(),
            Some("Beta")
        );

        let (_other, changed) = store_of(&["Alpha", "Beta, renamed"]);
        let rebuilt = View::checked(&changed, &recorded);
        assert!(!Arc::ptr_eq(&recorded.sessions, &rebuilt.sessions));
        assert!(!recorded.lists_as(&rebuilt));
        assert_eq!(
            rebuilt.get("s1").and_then(|s| s.title).as_deref(),
            Some("Beta, renamed")
        );
    }
}
