//! A team store in the store list: the published sessions of its
//! manifests as a [`SessionStore`], each listed as `~<publisher>/<id>`
//! with the content of its latest version's snapshot.
//!
//! Network work never runs where a keystroke waits: a long-lived face
//! calls [`SessionStore::watch`], which starts a poller thread of the
//! store's own that lists in the background (every [`POLL`]) and wakes the
//! index; [`SessionStore::update`] then only takes the poller's last
//! listing. A one-shot command (no watch) lists once, synchronously,
//! bounded by [`net::WHOLE_TIMEOUT`].

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::client::TeamClient;
use super::error::TeamError;
use super::kept;
use super::layout;
use super::listing::{self, Listed, Listing, Seen};
use super::net;
use super::reader::TeamReader;
use super::session;
use crate::formats::TEAM;
use crate::model::{Session, SessionReader, SessionStore, StoreNote, StoreStatus, Wake};
use crate::reference::pin::split_pin;

/// How often a watched team store is listed again.
pub const POLL: Duration = Duration::from_secs(60);

/// What the poller hands `update`.
#[derive(Default)]
struct Mailbox {
    /// The latest listing's outcome not yet taken by `update`.
    fresh: Option<Result<Listing, TeamError>>,
}

pub struct TeamStore {
    index: usize,
    /// The URL as given (for notes), even when it did not parse.
    url_text: String,
    /// The sessions of the last listing, by manifest path.
    listed: HashMap<String, Listed>,
    /// What the last listing saw of the indexes, for the next one.
    seen: Seen,
    /// The sessions as listed, sorted by id.
    sessions: Vec<Session>,
    /// Why the last listing failed (the sessions are then the last good
    /// listing's, and the cached snapshots stay readable).
    down: Option<TeamError>,
    skipped: Vec<TeamError>,
    listed_once: bool,
    mailbox: Arc<Mutex<Mailbox>>,
    /// Dropping it stops the poller; a message through it has the poller
    /// list again now (the refresher holds it weakly, so that dropping the
    /// store still stops the poller).
    stop: Option<Arc<Mutex<mpsc::Sender<()>>>>,
    reader: Arc<TeamReader>,
    /// Whether listings are kept in the local cache between runs
    /// ([`kept`]): a store opened from its URL; not one over a client a
    /// test made.
    keep: bool,
}

impl TeamStore {
    /// The team store at `url` (not listed yet), position `index` in the
    /// store list. A URL that does not parse or a client that cannot be
    /// built gives a store with no sessions and that note.
    pub fn unscanned(url: &str, index: usize) -> TeamStore {
        let mut store = Self::over(url, index, TeamReader::lazy(url));
        store.keep = true;
        store
    }

    /// The store over an opened client (tests: `InMemory`).
    pub fn with_client(
        url: &str,
        index: usize,
        client: Result<TeamClient, TeamError>,
    ) -> TeamStore {
        Self::over(url, index, TeamReader::with_client(url, client))
    }

    fn over(url: &str, index: usize, reader: TeamReader) -> TeamStore {
        let reader = Arc::new(reader);
        TeamStore {
            index,
            url_text: url.to_owned(),
            listed: HashMap::new(),
            seen: Seen::default(),
            sessions: Vec::new(),
            down: None,
            skipped: Vec::new(),
            listed_once: false,
            mailbox: Arc::new(Mutex::new(Mailbox::default())),
            stop: None,
            reader,
            keep: false,
        }
    }

    /// Takes a listing's outcome; whether the sessions changed. The first
    /// one always counts as a change: until it came, the store's ids were
    /// pending ([`SessionStore::listing_pending`]), and a face that said
    /// so looks again now even if the store turned out empty.
    fn apply(&mut self, outcome: Result<Listing, TeamError>) -> bool {
        let first = !self.listed_once;
        self.listed_once = true;
        match outcome {
            Ok(listing) => {
                self.down = None;
                self.skipped = listing.skipped;
                self.seen = listing.seen;
                if listing.sessions == self.listed {
                    return first;
                }
                self.listed = listing.sessions;
                self.rebuild();
                true
            }
            Err(e) => {
                let changed = self.down.as_ref() != Some(&e);
                self.down = Some(e);
                first || changed
            }
        }
    }

    fn rebuild(&mut self) {
        let mut sessions: Vec<Session> = self
            .listed
            .values()
            .filter_map(|l| session::live(l, self.index))
            .collect();
        sessions.sort_by(|a, b| a.id().cmp(b.id()));
        self.sessions = sessions;
        self.reader.set_manifests(
            self.listed
                .values()
                .map(|l| (l.published_id(), l.manifest.clone()))
                .collect(),
        );
    }

    /// The last listing's session of published id `id`.
    fn listed_session(&self, id: &str) -> Option<&Session> {
        self.sessions
            .binary_search_by(|s| s.id().cmp(id))
            .ok()
            .map(|i| &self.sessions[i])
    }
}

impl SessionStore for TeamStore {
    fn sessions(&self) -> Vec<Session> {
        self.sessions.clone()
    }

    fn for_each_session(&self, f: &mut dyn FnMut(Session)) {
        for s in &self.sessions {
            f(s.clone());
        }
    }

    /// A listed id, or a pinned id of a listed session (`~p/id@sha256:…`):
    /// that version, read from the cache or the store.
    fn get(&self, id: &str) -> Option<Session> {
        if let Some(s) = self.listed_session(id) {
            return Some(s.clone());
        }
        let (live, sha) = split_pin(id)?;
        match self.listed_session(live) {
            Some(listed) => session::pinned_of(listed, id, sha),
            None if layout::split_published_id(live).is_some() => {
                session::cached_pin(self.index, id, sha)
            }
            None => None,
        }
    }

    fn reader(&self) -> Arc<dyn SessionReader> {
        self.reader.clone()
    }

    fn watch(&mut self, wake: Wake) {
        let (stop, stopped) = mpsc::channel::<()>();
        let mailbox = self.mailbox.clone();
        let reader = self.reader.clone();
        let keep = self.keep;
        let spawned = std::thread::Builder::new()
            .name("team-store-poll".into())
            .spawn(move || poll(&reader, keep, mailbox, wake, stopped));
        if spawned.is_ok() {
            self.stop = Some(Arc::new(Mutex::new(stop)));
        }
    }

    fn refresher(&self) -> Option<Wake> {
        let stop = Arc::downgrade(self.stop.as_ref()?);
        Some(Arc::new(move || {
            if let Some(poke) = stop.upgrade() {
                if let Ok(poke) = poke.lock() {
                    let _ = poke.send(());
                }
            }
        }))
    }

    /// Watched, and the poller's first listing not taken yet.
    fn listing_pending(&self) -> Vec<String> {
        if self.stop.is_some() && !self.listed_once {
            vec![self.url_text.clone()]
        } else {
            Vec::new()
        }
    }

    fn update(&mut self) -> bool {
        if self.stop.is_some() {
            // Watched: what the poller found, if anything new.
            let fresh = self.mailbox.lock().ok().and_then(|mut m| m.fresh.take());
            return fresh.is_some_and(|outcome| self.apply(outcome));
        }
        if self.listed_once {
            // A one-shot store lists once; nothing tells it of changes.
            return false;
        }
        let outcome = match self.reader.client() {
            Ok(client) => list_blocking(client, &self.listed, &self.seen, self.keep),
            Err(e) => Err(e.clone()),
        };
        self.apply(outcome);
        true
    }

    fn status(&self) -> Vec<StoreStatus> {
        vec![StoreStatus {
            path: self.url_text.clone(),
            format: TEAM.to_owned(),
            sessions: self.sessions.len(),
            skipped_lines: 0,
            errors: self.down.iter().map(ToString::to_string).collect(),
        }]
    }

    fn notes(&self) -> Vec<StoreNote> {
        let mut notes: Vec<StoreNote> = self
            .down
            .iter()
            .map(|e| StoreNote::Unreadable {
                store: self.url_text.clone(),
                error: format!(
                    "{}; showing the {} session(s) listed before (cached snapshots stay readable)",
                    e.detail(),
                    self.sessions.len()
                ),
            })
            .collect();
        notes.extend(self.skipped.iter().map(|e| StoreNote::NotASession {
            rel: self.url_text.clone(),
            why: e.detail(),
        }));
        notes
    }
}

impl Drop for TeamStore {
    fn drop(&mut self) {
        // The poller sees the channel close and ends.
        self.stop.take();
    }
}

/// One listing, waited for (bounded), starting from `last` — or, when
/// this process has listed nothing yet, from the listing the cache kept
/// ([`kept`]). What it read is kept for the next run, a listing that
/// failed (its time bound) included: a store too large to list in one
/// bound lists in a few.
fn list_blocking(
    client: &TeamClient,
    last: &HashMap<String, Listed>,
    seen: &Seen,
    keep: bool,
) -> Result<Listing, TeamError> {
    let client = client.clone();
    let url = client.url_text().to_owned();
    let (last, seen) = if last.is_empty() && keep {
        kept::load(&url)
    } else {
        (last.clone(), seen.clone())
    };
    let read = Arc::new(Mutex::new(HashMap::new()));
    let outcome = {
        let (last, seen, read) = (last.clone(), seen.clone(), read.clone());
        net::run(&url, net::WHOLE_TIMEOUT, async move {
            listing::list(&client, &last, &seen, &read).await
        })
    };
    // A listing cut short keeps what it read, and the last one's `seen`:
    // it listed neither the indexes nor `sessions/` whole.
    let kept_now = match &outcome {
        _ if !keep => None,
        Ok(listing) => Some((listing.sessions.clone(), listing.seen.clone())),
        Err(_) => read.lock().ok().and_then(|read| {
            (!read.is_empty()).then(|| {
                let mut all = last;
                all.extend(read.iter().map(|(k, v)| (k.clone(), v.clone())));
                (all, seen)
            })
        }),
    };
    if let Some((listing, seen)) = kept_now {
        if let Err(e) = kept::save(&url, &listing, &seen) {
            tracing::debug!("{url}: the listing cannot be kept: {e}");
        }
    }
    outcome
}

/// The poller: lists, hands the outcome over, wakes the index, waits
/// [`POLL`] or until the store is dropped.
fn poll(
    reader: &TeamReader,
    keep: bool,
    mailbox: Arc<Mutex<Mailbox>>,
    wake: Wake,
    stopped: mpsc::Receiver<()>,
) {
    let mut last: HashMap<String, Listed> = HashMap::new();
    let mut seen = Seen::default();
    loop {
        let outcome = match reader.client() {
            Ok(client) => list_blocking(client, &last, &seen, keep),
            Err(e) => Err(e.clone()),
        };
        if let Ok(listing) = &outcome {
            last = listing.sessions.clone();
            seen = listing.seen.clone();
        }
        match mailbox.lock() {
            Ok(mut m) => m.fresh = Some(outcome),
            Err(_) => return,
        }
        wake();
        match stopped.recv_timeout(POLL) {
            // Asked to look again now (a publish), or time to.
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::team::cache;
    use crate::store::team::client::tests::memory_client;
    use crate::store::team::layout;
    use crate::store::team::listing::tests::{manifest_of, put, put_manifest};

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    #[test]
    fn a_one_shot_store_lists_published_sessions_and_their_pins() {
        let c = memory_client("t");
        put_manifest(&c, &manifest_of("ana", "s1", &[A]), "ana", "s1");
        let mut store = TeamStore::with_client("s3://mem/t", 3, Ok(c));
        assert!(store.update());
        let sessions = store.sessions();
        assert_eq!(sessions.len(), 1);
        assert_eq!(sessions[0].id(), "~ana/s1");
        assert_eq!(sessions[0].locator.store, 3);
        assert_eq!(sessions[0].title.as_deref(), Some("title of s1"));
        let pinned = store.get(&format!("~ana/s1@sha256:{A}")).unwrap();
        assert_eq!(pinned.id(), format!("~ana/s1@sha256:{A}"));
        assert!(store.get("~ana/none").is_none());
        assert!(store.notes().is_empty());
        assert!(!store.update());
    }

    #[test]
    fn a_store_that_cannot_be_opened_says_so_naming_its_url() {
        let mut store = TeamStore::unscanned("file:///nonexistent/team", 0);
        assert!(store.update());
        assert!(store.sessions().is_empty());
        let notes: Vec<String> = store.notes().iter().map(ToString::to_string).collect();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("file:///nonexistent/team"), "{notes:?}");
        assert_eq!(store.status()[0].errors.len(), 1);
    }

    #[test]
    fn a_watched_store_lists_in_the_background_and_wakes_the_index() {
        let c = memory_client("");
        let bytes = b"x".to_vec();
        let sha = cache::sha256_hex(&bytes);
        put(&c, &layout::snapshot_path(&c, &sha).unwrap(), bytes);
        put_manifest(&c, &manifest_of("bo", "s", &[&sha]), "bo", "s");
        let c2 = c.clone();
        let mut store = TeamStore::with_client("s3://mem", 0, Ok(c));
        let (tx, rx) = mpsc::channel();
        store.watch(Arc::new(move || {
            let _ = tx.send(());
        }));
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(store.update());
        assert_eq!(store.sessions().len(), 1);
        // Published meanwhile: the refresher has it listed now, not at
        // the next poll.
        put_manifest(&c2, &manifest_of("bo", "t", &[&sha]), "bo", "t");
        let refresh = store.refresher().unwrap();
        refresh();
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(store.update());
        assert_eq!(store.sessions().len(), 2);
        // Dropped: the poller ends, and the refresher does nothing.
        drop(store);
        refresh();
    }
}
