//! The index of a long-running face (the MCP server, the language
//! server): opened on the first search (or when the language server
//! builds it in the background), kept for the process's life, opened
//! again when the store list changes, and brought up to date before a
//! search only when the store changed since the last time (the language
//! server's view of the store tells: an unchanged one costs nothing, a
//! changed one a `stat` per log and a read of what changed).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use super::paged::Pages;
use super::{location, ParsedQuery, Search, SearchError, SearchOptions, SessionHit, SyncReport};
use crate::model::{Cancelled, SearchStatus, SessionList, SessionReader};
use crate::store::StoreSpec;

/// The sessions a face searches, as it holds them.
pub struct Followed<'a> {
    /// The store list.
    pub specs: &'a [StoreSpec],
    /// The state of the store `sessions` lists (the language server's view
    /// generation): when it is the one the index was last brought up to
    /// date with, nothing is checked again. `None`: checked every time.
    pub state: Option<u64>,
    /// Every session, walked only when the index is to be brought up to
    /// date, one at a time (a view of 100,000 is never copied whole).
    pub sessions: &'a dyn SessionList,
    pub reader: &'a dyn SessionReader,
}

/// The index open now, the store list it is of, and the store state it
/// was last brought up to date with.
struct Opened {
    specs: Vec<StoreSpec>,
    search: Search,
    synced: Option<u64>,
}

type Open = Option<Opened>;

/// An index opened on demand, for one store list at a time.
pub struct Live {
    /// Whether the index may be kept on disk (else in memory).
    on_disk: bool,
    open: Mutex<Open>,
    /// What `status` shows: kept by every update, in a lock of its own,
    /// so a status never waits for an update (the first can take seconds).
    status: Mutex<Option<(Vec<StoreSpec>, SearchStatus)>>,
    /// The open index's read mappings, outside `open`'s lock (a build
    /// holds that for as long as it runs).
    pages: Mutex<Option<Pages>>,
    /// Searches so far ([`Live::searched`]).
    searches: AtomicU64,
}

impl Live {
    pub fn new(on_disk: bool) -> Self {
        Live {
            on_disk,
            open: Mutex::default(),
            status: Mutex::default(),
            pages: Mutex::default(),
            searches: AtomicU64::new(0),
        }
    }

    /// Counts a search done; the number to give [`Live::let_go_if_idle`].
    pub fn searched(&self) -> u64 {
        self.searches.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Lets go of the index's resident pages (`paged.rs`) when no search
    /// came after the one numbered `search`: a person typing keeps what
    /// their searches read mapped (up to [`super::SEARCH_PAGES_KEPT`]),
    /// and an idle face holds none of it.
    pub fn let_go_if_idle(&self, search: u64) {
        if self.searches.load(Ordering::SeqCst) != search {
            return;
        }
        let pages = self.pages.lock().ok().and_then(|p| p.clone());
        if let Some(pages) = pages {
            pages.release();
        }
    }

    /// Searches the sessions of `followed` after bringing the index up to
    /// date with them when they changed; `note` hears what a person should
    /// know (a broken index rebuilt, a full disk). `wait`: how long to wait
    /// for another process's build of the index (an explicit search waits
    /// [`super::WAIT_FOR_BUILD`], completion's body matches not at all and
    /// search what was committed last).
    pub fn search(
        &self,
        followed: &Followed<'_>,
        query: &ParsedQuery,
        options: SearchOptions<'_>,
        cancelled: Cancelled<'_>,
        wait: Option<Duration>,
        note: &mut dyn FnMut(String),
    ) -> Result<Vec<SessionHit>, SearchError> {
        let mut quiet = |_, _| {};
        let mut open = self.updated(followed, cancelled, wait, note, &mut quiet)?;
        let Some(opened) = open.as_mut() else {
            return Err(unavailable());
        };
        match opened.search.search(query, options) {
            // Corrupt under an intact footer (its checksums say so): moved
            // aside, built again, searched once more.
            Err(SearchError::Broken(why)) => {
                let sessions = followed.sessions;
                let done = opened
                    .search
                    .repair(&why, sessions, followed.reader, cancelled)?;
                opened.synced = None;
                note(done);
                self.remember_pages(&opened.search);
                let result = opened.search.search(query, options);
                self.keep(
                    followed.specs,
                    opened.search.status(sessions, followed.reader),
                );
                result
            }
            other => other,
        }
    }

    /// Brings the index of `followed` up to date without searching (the
    /// language server's first index, built in the background);
    /// `progress(done, total)` after each changed session.
    pub fn update(
        &self,
        followed: &Followed<'_>,
        cancelled: Cancelled<'_>,
        note: &mut dyn FnMut(String),
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), SearchError> {
        self.updated(followed, cancelled, None, note, progress)
            .map(drop)
    }

    /// The index's status for `specs` as the last update left it (while
    /// one runs, how far it has come); `None` before the first.
    pub fn status(&self, specs: &[StoreSpec]) -> Option<SearchStatus> {
        let status = self.status.lock().ok()?;
        let (of, status) = status.as_ref()?;
        (of.as_slice() == specs).then(|| status.clone())
    }

    /// The open index of `followed`, up to date as far as it can be.
    fn updated(
        &self,
        followed: &Followed<'_>,
        cancelled: Cancelled<'_>,
        wait: Option<Duration>,
        note: &mut dyn FnMut(String),
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<MutexGuard<'_, Open>, SearchError> {
        let specs = followed.specs;
        let mut open = self.open.lock().map_err(|_| unavailable())?;
        if open.as_ref().is_none_or(|o| o.specs != specs) {
            // Another store list: its own index (the old one is closed
            // first, so its writer lock is free).
            *open = None;
            let (search, notes) = match Search::open_for(specs, self.on_disk, super::now_ms()) {
                Ok(opened) => opened,
                Err(e) => {
                    // `status` says why (a full disk turns search off)
                    // rather than "not built yet" for ever.
                    self.keep(specs, failed(specs, followed.sessions.count(), &e));
                    return Err(e);
                }
            };
            notes.into_iter().for_each(&mut *note);
            *open = Some(Opened {
                specs: specs.to_vec(),
                search,
                synced: None,
            });
        }
        let Some(opened) = open.as_mut() else {
            return Err(unavailable());
        };
        if followed.state.is_some() && opened.synced == followed.state {
            // The store has not changed since: nothing to check.
            return Ok(open);
        }
        let sessions = followed.sessions;
        let mut behind = 0;
        let mut synced = sync(
            &opened.search,
            sessions,
            followed,
            cancelled,
            wait,
            &mut |search, done, total| {
                behind = total - done;
                self.progressed(specs, search, sessions.count(), behind);
                progress(done, total);
            },
        );
        if let Err(SearchError::Broken(why)) = &synced {
            // Found corrupt by the build's own check: moved aside, again.
            synced = opened
                .search
                .repair(why, sessions, followed.reader, cancelled)
                .map(|done| {
                    note(done);
                    SyncReport::default()
                });
        }
        let failure = match synced {
            Err(e @ SearchError::StillIndexing(_)) => return Err(e),
            // Cancelled half way: the next search goes on from there.
            Ok(_) if cancelled() => None,
            Ok(_) => {
                opened.synced = followed.state;
                None
            }
            // Another process is writing: what it committed is read, and
            // the next search tries again.
            Err(SearchError::Busy) => opened.search.reload().err(),
            Err(e) => Some(e),
        };
        let search = &opened.search;
        // A full disk turns search off: what was committed last is still
        // searched, and `status` says why nothing newer is.
        let enabled = !matches!(failure, Some(SearchError::DiskFull(_)));
        let text = failure.map(|e| e.to_string());
        let index = search.index();
        let status = SearchStatus {
            enabled,
            path: index.dir().map(|d| d.display().to_string()),
            bytes: index.size(),
            sessions: sessions.count() - behind,
            behind,
            note: text.clone(),
        };
        self.keep(specs, status);
        if let Some(text) = text {
            note(text);
        }
        // After the opening, and after a repair: a rebuilt index is
        // another folder with mappings of its own.
        self.remember_pages(search);
        Ok(open)
    }

    /// Where [`Live::let_go_if_idle`] finds the open index's mappings.
    fn remember_pages(&self, search: &Search) {
        if let Ok(mut pages) = self.pages.lock() {
            *pages = Some(search.index().pages());
        }
    }

    /// An update of `search` has all but `behind` of `sessions` (its
    /// size is counted at the end: that lists the folder).
    fn progressed(&self, specs: &[StoreSpec], search: &Search, sessions: usize, behind: usize) {
        let Ok(mut slot) = self.status.lock() else {
            return;
        };
        match slot.as_mut() {
            Some((of, status)) if of.as_slice() == specs => {
                status.sessions = sessions - behind;
                status.behind = behind;
            }
            _ => {
                *slot = Some((
                    specs.to_vec(),
                    SearchStatus {
                        enabled: true,
                        path: search.index().dir().map(|d| d.display().to_string()),
                        bytes: 0,
                        sessions: sessions - behind,
                        behind,
                        note: None,
                    },
                ))
            }
        }
    }

    fn keep(&self, specs: &[StoreSpec], status: SearchStatus) {
        if let Ok(mut slot) = self.status.lock() {
            *slot = Some((specs.to_vec(), status));
        }
    }
}

/// `search` brought up to date with `sessions`, waiting `wait` for
/// another process's build when given.
fn sync(
    search: &Search,
    sessions: &dyn SessionList,
    followed: &Followed<'_>,
    cancelled: Cancelled<'_>,
    wait: Option<Duration>,
    progress: &mut dyn FnMut(&Search, usize, usize),
) -> Result<SyncReport, SearchError> {
    let mut progress = |done, total| progress(search, done, total);
    match wait {
        Some(wait) => {
            search.sync_waiting(sessions, followed.reader, cancelled, &mut progress, wait)
        }
        None => search.sync(sessions, followed.reader, cancelled, &mut progress),
    }
}

/// Where the index of `specs` would be, and that it is not built yet
/// (the status before the first update).
pub fn not_built(specs: &[StoreSpec], sessions: usize) -> SearchStatus {
    SearchStatus {
        enabled: true,
        path: location::default_for(specs).map(|d| d.display().to_string()),
        bytes: 0,
        sessions: 0,
        behind: sessions,
        note: Some("not built yet".into()),
    }
}

/// The status of an index of `specs` that could not be opened.
fn failed(specs: &[StoreSpec], sessions: usize, e: &SearchError) -> SearchStatus {
    SearchStatus {
        enabled: !matches!(e, SearchError::DiskFull(_)),
        note: Some(e.to_string()),
        ..not_built(specs, sessions)
    }
}

fn unavailable() -> SearchError {
    SearchError::Io("the search index is unavailable".into())
}
