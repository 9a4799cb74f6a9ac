//! One immutable view of the live index's sessions: what every face reads
//! (completion, listing, hover, `prepare`) without a lock held across work.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::model::{Session, SessionReader, SessionStore, StoreNote, StoreStatus};
use crate::reference::candidates::{Candidates, Target};
use crate::reference::table::{SessionTable, TableBuilder};
use crate::reference::ReferenceError;

/// An immutable snapshot of the store's sessions.
#[derive(Default)]
pub struct View {
    /// The sessions, compact and ready for completion.
    sessions: SessionTable,
    /// Reads the logs of these sessions.
    pub reader: Option<Arc<dyn SessionReader>>,
    /// Each store of the list, as last updated.
    pub stores: Vec<StoreStatus>,
    /// What is worth knowing about the stores (for `status`).
    pub notes: Vec<StoreNote>,
    /// Which view this is: each one the index publishes has a number of
    /// its own (the one generation counter of views), so the search index
    /// and completion's body matches know when the store changed.
    pub generation: u64,
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
        // Session by session: a large store is never held twice.
        let mut builder = TableBuilder::default();
        store.for_each_session(&mut |s| builder.push(s));
        View {
            sessions: builder.finish(),
            reader: Some(store.reader()),
            stores: store.status(),
            notes: store.status_notes(),
            generation: VIEWS.fetch_add(1, Ordering::Relaxed) + 1,
        }
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

    /// Every session (what the search index is brought up to date with).
    pub fn all(&self) -> Vec<Session> {
        self.sessions.sessions().collect()
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
