//! Full-text searches run for completion's body matches (docs/search.md
//! "Language server"): completion never waits for one. It takes the
//! answer of a search already finished for its query, else has one
//! started and marks its list incomplete so the client asks again.
//!
//! One search runs at a time: a person typing `@taxro` asks for `tax`,
//! `taxr`, `taxro` within a second, and each waiting its turn behind the
//! others would only delay the one still wanted. So while one runs, only
//! the latest query asked for waits to run next; those before it are
//! dropped. Finished answers are kept for the last [`CAPACITY`] queries,
//! each with the number of the session view it was computed on: an
//! answer computed before the sessions changed is still shown (it is
//! nearly right, and showing nothing would make the list flicker) while a
//! fresh one is computed.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::search::SessionHit;
use crate::store::StoreSpec;

/// Finished answers kept: a few queries typed and corrected.
const CAPACITY: usize = 32;

/// What a search is for: its query, the workspace that ranks first, and
/// the stores it searches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub query: String,
    pub cwd: Option<String>,
    pub stores: Vec<StoreSpec>,
}

/// What [`BodySearches::lookup`] found.
#[derive(Debug, Default)]
pub struct Lookup {
    /// The last finished answer for the key (possibly of older sessions).
    pub hits: Option<Arc<Vec<SessionHit>>>,
    /// A search the caller must start now (nothing else runs).
    pub start: Option<Key>,
}

#[derive(Debug, Default)]
pub struct BodySearches {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Least recently used first.
    done: VecDeque<Done>,
    running: Option<Key>,
    /// The latest key asked for while another ran.
    next: Option<Key>,
}

#[derive(Debug)]
struct Done {
    key: Key,
    /// The session view's number when the search began.
    version: u64,
    hits: Arc<Vec<SessionHit>>,
}

impl BodySearches {
    /// The answer for `key` if one finished on view `version` or before;
    /// a search is asked for when there is none of this view yet.
    pub fn lookup(&self, key: &Key, version: u64) -> Lookup {
        let Ok(mut state) = self.state.lock() else {
            return Lookup::default();
        };
        let mut lookup = Lookup::default();
        if let Some(at) = state.done.iter().position(|d| d.key == *key) {
            if let Some(done) = state.done.remove(at) {
                let fresh = done.version == version;
                lookup.hits = Some(done.hits.clone());
                state.done.push_back(done);
                if fresh {
                    return lookup;
                }
            }
        }
        if state.running.as_ref() == Some(key) {
            return lookup;
        }
        if state.running.is_none() {
            state.running = Some(key.clone());
            lookup.start = Some(key.clone());
        } else {
            state.next = Some(key.clone());
        }
        lookup
    }

    /// Keeps the answer of the search for `key` begun on view `version`;
    /// the key to search next, if one was asked for meanwhile.
    pub fn finish(&self, key: Key, version: u64, hits: Vec<SessionHit>) -> Option<Key> {
        let Ok(mut state) = self.state.lock() else {
            return None;
        };
        state.done.retain(|d| d.key != key);
        state.done.push_back(Done {
            key,
            version,
            hits: Arc::new(hits),
        });
        while state.done.len() > CAPACITY {
            state.done.pop_front();
        }
        state.running = state.next.take();
        state.running.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(query: &str) -> Key {
        Key {
            query: query.into(),
            cwd: None,
            stores: Vec::new(),
        }
    }

    #[test]
    fn one_search_runs_and_only_the_latest_query_waits() {
        let searches = BodySearches::default();
        let first = searches.lookup(&key("tax"), 1);
        assert!(first.hits.is_none());
        assert_eq!(first.start, Some(key("tax")));
        // Asked again while it runs: nothing more starts.
        assert!(searches.lookup(&key("tax"), 1).start.is_none());
        assert!(searches.lookup(&key("taxr"), 1).start.is_none());
        assert!(searches.lookup(&key("taxro"), 1).start.is_none());
        // `taxr` was superseded by `taxro`.
        assert_eq!(
            searches.finish(key("tax"), 1, Vec::new()),
            Some(key("taxro"))
        );
        assert_eq!(searches.finish(key("taxro"), 1, Vec::new()), None);
        let done = searches.lookup(&key("tax"), 1);
        assert_eq!(done.hits.map(|h| h.len()), Some(0));
        assert!(done.start.is_none());
        // `taxr` never ran: it starts now.
        assert_eq!(searches.lookup(&key("taxr"), 1).start, Some(key("taxr")));
    }

    #[test]
    fn an_answer_of_older_sessions_is_shown_while_it_is_searched_again() {
        let searches = BodySearches::default();
        searches.lookup(&key("tax"), 1);
        searches.finish(key("tax"), 1, Vec::new());
        let stale = searches.lookup(&key("tax"), 2);
        assert!(stale.hits.is_some());
        assert_eq!(stale.start, Some(key("tax")));
    }

    #[test]
    fn answers_are_bounded() {
        let searches = BodySearches::default();
        for i in 0..CAPACITY + 5 {
            let k = key(&format!("q{i}"));
            searches.lookup(&k, 1);
            searches.finish(k, 1, Vec::new());
        }
        let state = searches.state.lock().unwrap();
        assert_eq!(state.done.len(), CAPACITY);
        assert_eq!(state.done[0].key, key("q5"));
    }
}
