//! The index of a long-running face (the MCP server, the language
//! server): opened on the first search, kept for the process's life,
//! opened again when the store list changes, and brought up to date before
//! a search only when the store changed since the last time (the language
//! server's view of the store tells: an unchanged one costs nothing, a
//! changed one a `stat` per log and a read of what changed).

use std::sync::Mutex;

use super::{ParsedQuery, Search, SearchError, SearchOptions, SessionHit};
use crate::model::{Cancelled, Session, SessionReader};
use crate::store::StoreSpec;

/// The sessions a face searches, as it holds them.
pub struct Followed<'a> {
    /// The store list.
    pub specs: &'a [StoreSpec],
    /// The state of the store `sessions` lists (the language server's view
    /// generation): when it is the one the index was last brought up to
    /// date with, nothing is checked again. `None`: checked every time.
    pub state: Option<u64>,
    /// Every session, asked only when the index is to be brought up to
    /// date (listing 100,000 sessions costs more than a search).
    pub sessions: &'a dyn Fn() -> Vec<Session>,
    pub reader: &'a dyn SessionReader,
}

/// An index opened on demand, for one store list at a time.
pub struct Live {
    /// Whether the index may be kept on disk (else in memory).
    on_disk: bool,
    open: Mutex<Option<Opened>>,
}

struct Opened {
    specs: Vec<StoreSpec>,
    search: Search,
    /// The store state last brought up to date with.
    synced: Option<u64>,
}

impl Live {
    pub fn new(on_disk: bool) -> Self {
        Live {
            on_disk,
            open: Mutex::default(),
        }
    }

    /// Searches the sessions of `followed` after bringing the index up to
    /// date with them when they changed; `note` hears what a person should
    /// know (a broken index rebuilt, a full disk).
    pub fn search(
        &self,
        followed: &Followed<'_>,
        query: &ParsedQuery,
        options: SearchOptions<'_>,
        cancelled: Cancelled<'_>,
        note: &mut dyn FnMut(String),
    ) -> Result<Vec<SessionHit>, SearchError> {
        let mut open = self
            .open
            .lock()
            .map_err(|_| SearchError::Io("the search index is unavailable".into()))?;
        if open.as_ref().is_none_or(|o| o.specs != followed.specs) {
            // Another store list: its own index (the old one is closed
            // first, so its writer lock is free).
            *open = None;
            let (search, notes) = Search::open_for(followed.specs, self.on_disk, super::now_ms())?;
            notes.into_iter().for_each(&mut *note);
            *open = Some(Opened {
                specs: followed.specs.to_vec(),
                search,
                synced: None,
            });
        }
        let Some(opened) = open.as_mut() else {
            return Err(SearchError::Io("the search index is unavailable".into()));
        };
        let unchanged = followed.state.is_some() && opened.synced == followed.state;
        if !unchanged {
            let sessions = (followed.sessions)();
            let synced = opened
                .search
                .sync(&sessions, followed.reader, cancelled, &mut |_, _| {});
            match synced {
                // Cancelled half way: the next search goes on from there.
                Ok(_) if !cancelled() => opened.synced = followed.state,
                Ok(_) => {}
                // Another process is writing: what it committed is read,
                // and the next search tries again.
                Err(SearchError::Busy) => {
                    if let Err(e) = opened.search.reload() {
                        note(e.to_string());
                    }
                }
                Err(e) => note(e.to_string()),
            }
        }
        opened.search.search(query, options)
    }
}
