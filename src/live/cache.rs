//! Session snapshots read through a cache keyed by the store's version of
//! each log: hover, completion previews and diagnostics read a log once
//! while it is unchanged. Completion never reads logs at all.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use crate::model::{Entry, ReadSummary, Session, SessionReader, Version};
use crate::reference::budget::TargetCapacity;
use crate::reference::prepare::{read_error, unknown_session, Cancelled, SnapshotSource};
use crate::reference::snapshot::{read_snapshot, Snapshot};
use crate::reference::source::missing_among;
use crate::reference::ReferenceError;

use super::fetches::Fetches;
use super::view::View;

/// Enough for every source of a few open documents; each entry holds at
/// most about one budget of text (the projector forgets the rest).
const CAPACITY: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    version: Version,
    /// The projector's early forgetting depends on the label and budget.
    label: String,
    budget: Option<usize>,
}

#[derive(Debug, Default)]
pub struct SnapshotCache {
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    map: HashMap<Key, Arc<Snapshot>>,
    /// Insertion order, for eviction.
    order: VecDeque<Key>,
}

impl SnapshotCache {
    fn get(&self, key: &Key) -> Option<Arc<Snapshot>> {
        self.inner.lock().ok()?.map.get(key).cloned()
    }

    fn put(&self, key: Key, snapshot: Arc<Snapshot>) {
        let Ok(mut entries) = self.inner.lock() else {
            return;
        };
        if entries.map.insert(key.clone(), snapshot).is_none() {
            entries.order.push_back(key);
        }
        while entries.order.len() > CAPACITY {
            if let Some(old) = entries.order.pop_front() {
                entries.map.remove(&old);
            }
        }
    }

    /// Reads `session` through the cache.
    pub fn read(
        &self,
        reader: &dyn SessionReader,
        session: &Session,
        label: &str,
        budget: Option<usize>,
        cancelled: Cancelled<'_>,
    ) -> Result<Snapshot, ReferenceError> {
        let key = reader.version(session).map(|version| Key {
            version,
            label: label.to_string(),
            budget,
        });
        if let Some(hit) = key.as_ref().and_then(|k| self.get(k)) {
            return Ok((*hit).clone());
        }
        let snapshot =
            read_snapshot(reader, session, label, budget, cancelled).map_err(read_error)?;
        if let Some(key) = key {
            self.put(key, Arc::new(snapshot.clone()));
        }
        Ok(snapshot)
    }
}

/// The index's sessions, read through the cache: the core's
/// [`SnapshotSource`] for every face that keeps a live index.
pub struct CachedSource<'a> {
    pub view: &'a View,
    pub cache: &'a SnapshotCache,
    /// Set where nothing may wait for the network (diagnostics): a team
    /// store's snapshot not cached here is fetched in the background and
    /// answered `SESSION_REFERENCE_FETCHING` meanwhile. Unset, a read
    /// fetches it (bounded) as any read would.
    pub fetches: Option<&'a Fetches>,
}

impl SnapshotSource for CachedSource<'_> {
    fn snapshot(
        &self,
        session_id: &str,
        label: &str,
        budget: Option<usize>,
        cancelled: Cancelled<'_>,
    ) -> Result<Snapshot, ReferenceError> {
        let Some(session) = self.view.get(session_id) else {
            if self.fetches.is_some() {
                if let Some(pending) = not_listed_yet(self.view, session_id) {
                    return Err(pending);
                }
            }
            return Err(missing_among(&self.view.notes, session_id));
        };
        let reader = self
            .view
            .reader
            .as_ref()
            .ok_or_else(|| unknown_session(session_id))?;
        if let Some(pending) = self.fetches.and_then(|f| f.check(reader, &session)) {
            return Err(pending);
        }
        self.cache
            .read(reader.as_ref(), &session, label, budget, cancelled)
    }

    /// From the index, which tracks every log's capacity as it grows: no
    /// read of the target's log per request.
    fn capacity(
        &self,
        session_id: &str,
        _cancelled: Cancelled<'_>,
    ) -> Result<TargetCapacity, ReferenceError> {
        let Some(session) = self.view.get(session_id) else {
            return Ok(TargetCapacity::NotInStore);
        };
        if let Some(why) = &session.unreadable {
            return Err(ReferenceError::read_failed(format!(
                "{}: {why}",
                session.locator.display()
            )));
        }
        Ok(TargetCapacity::Known(session.capacity))
    }

    fn reread(
        &self,
        session_id: &str,
        bytes: u64,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReferenceError> {
        let session = self
            .view
            .get(session_id)
            .ok_or_else(|| unknown_session(session_id))?;
        let reader = self
            .view
            .reader
            .as_deref()
            .ok_or_else(|| unknown_session(session_id))?;
        reader
            .read_range(&session, Some(bytes), cancelled, sink)
            .map_err(read_error)
    }
}

/// `SESSION_REFERENCE_FETCHING` for a published id (`~publisher/id`,
/// pinned or not) that `view` does not list while a team store's first
/// listing is still on its way: not "not found" before the store could
/// say. The listing's arrival refreshes the diagnostics that show it.
fn not_listed_yet(view: &View, session_id: &str) -> Option<ReferenceError> {
    let from = view.listing_pending.first()?;
    let (live, sha) = match crate::reference::pin::split_pin(session_id) {
        Some((live, sha)) => (live, Some(sha)),
        None => (session_id, None),
    };
    crate::store::team::layout::split_published_id(live)?;
    Some(match sha {
        Some(sha) => ReferenceError::fetching(session_id, sha, from),
        None => ReferenceError::listing(session_id, &view.listing_pending.join(", ")),
    })
}
