//! The index of a long-running face (the MCP server, the language
//! server): opened on the first search, brought up to date before each
//! one (an unchanged store costs a version check per log), kept for the
//! process's life, and opened again when the store list changes.

use std::sync::Mutex;

use super::{ParsedQuery, Search, SearchError, SearchOptions, SessionHit};
use crate::model::{Cancelled, Session, SessionReader};
use crate::store::StoreSpec;

/// An index opened on demand, for one store list at a time.
pub struct Live {
    /// Whether the index may be kept on disk (else in memory).
    on_disk: bool,
    open: Mutex<Option<(Vec<StoreSpec>, Search)>>,
}

impl Live {
    pub fn new(on_disk: bool) -> Self {
        Live {
            on_disk,
            open: Mutex::default(),
        }
    }

    /// Searches the sessions of `specs` (listed as `sessions`, read with
    /// `reader`) after bringing the index up to date; `note` hears what a
    /// person should know (a broken index rebuilt, a full disk).
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &self,
        specs: &[StoreSpec],
        sessions: &[Session],
        reader: &dyn SessionReader,
        query: &ParsedQuery,
        options: SearchOptions<'_>,
        cancelled: Cancelled<'_>,
        note: &mut dyn FnMut(String),
    ) -> Result<Vec<SessionHit>, SearchError> {
        let mut open = self
            .open
            .lock()
            .map_err(|_| SearchError::Io("the search index is unavailable".into()))?;
        if open.as_ref().is_none_or(|(of, _)| of.as_slice() != specs) {
            // Another store list: its own index (the old one is closed
            // first, so its writer lock is free).
            *open = None;
            let (search, notes) = Search::open_for(specs, self.on_disk, super::now_ms())?;
            notes.into_iter().for_each(&mut *note);
            *open = Some((specs.to_vec(), search));
        }
        let Some((_, search)) = open.as_ref() else {
            return Err(SearchError::Io("the search index is unavailable".into()));
        };
        if let Some(text) = search.refresh(sessions, reader, cancelled, &mut |_, _| {}) {
            note(text);
        }
        search.search(query, options)
    }
}
