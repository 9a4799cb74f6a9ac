//! The store trait: where sessions come from. The file system is one
//! implementation; a remote store would be another, behind the same calls.

use std::fmt;
use std::sync::Arc;

use super::event::Entry;
use super::published::PublishedVersion;
use super::read::{ReadError, ReadSummary};
use super::session::{Session, SessionSink};

/// Polled during long reads; `true` abandons the work.
pub type Cancelled<'a> = &'a (dyn Fn() -> bool + Sync);

/// Identifies one state of a session's log: equal versions read the same
/// events. Caches key on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version(pub Vec<u8>);

impl Version {
    /// The version as one number, never 0 (0 stands for "none known"):
    /// what the search index keeps of each session's stamp.
    pub fn token(&self) -> u64 {
        use std::hash::Hasher;
        let mut hasher = rustc_hash::FxHasher::default();
        hasher.write(&self.0);
        hasher.finish().max(1)
    }
}

/// Called (from any thread) when a store has changes waiting for
/// [`SessionStore::update`].
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// A read-only source of sessions: an index that can be brought up to
/// date, and a reader of the logs it lists.
pub trait SessionStore: Send + Sync {
    /// Every session (the winner of each id), in store order.
    fn sessions(&self) -> Vec<Session>;

    /// Hands every session of [`Self::sessions`] to `f`, in the same
    /// order, one at a time: a large store need not be copied whole.
    fn for_each_session(&self, f: &mut dyn FnMut(Session)) {
        for session in self.sessions() {
            f(session);
        }
    }

    /// Hands `sink` the sessions it wants, in the order of
    /// [`Self::sessions`]; a store that can tell a session's key without
    /// building it builds only those.
    fn offer_sessions(&self, sink: &mut dyn SessionSink) {
        self.for_each_session(&mut |s| {
            if sink.wants(s.key()) {
                sink.take(s);
            }
        });
    }

    /// The session with this id.
    fn get(&self, id: &str) -> Option<Session>;

    /// A reader of this store's logs, cheap to share with other threads
    /// while the index goes on changing.
    fn reader(&self) -> Arc<dyn SessionReader>;

    /// Starts reporting changes: `wake` is called when [`Self::update`]
    /// has something to apply. A store that cannot watch never calls it.
    fn watch(&mut self, wake: Wake) {
        let _ = wake;
    }

    /// Once watched: what to call to have the store look again now rather
    /// than at its next poll (a team store after a publish); `None` for a
    /// store whose watch reports every change by itself.
    fn refresher(&self) -> Option<Wake> {
        None
    }

    /// The URLs of the stores of this list that a watch has started and
    /// whose first listing has not arrived yet (a team store's poller,
    /// issue 26): an id such a store may hold is not "unknown" yet, only
    /// not listed yet. Every other store lists before it answers: none.
    fn listing_pending(&self) -> Vec<String> {
        Vec::new()
    }

    /// Lists the sessions as an earlier run recorded them (an on-disk
    /// index cache), checking no log: whether it did. A face answers from
    /// this record at once, since checking every log of a large store
    /// takes seconds; the next [`Self::update`] then checks every log
    /// against it. A store with no record (the default) lists nothing.
    fn load_recorded(&mut self) -> bool {
        false
    }

    /// Applies the changes seen since the last call (or rescans when the
    /// store cannot tell); whether the sessions changed.
    fn update(&mut self) -> bool;

    /// As [`Self::update`], in parts (a list of stores, one by one):
    /// `progress` is handed the store between two parts, so a long first
    /// scan can show what is indexed so far. A store of one part never
    /// calls it.
    fn update_in_parts(&mut self, progress: &mut dyn FnMut(&dyn SessionStore)) -> bool {
        let _ = progress;
        self.update()
    }

    /// What each store of the list holds, for `sessionReference/status`.
    fn status(&self) -> Vec<StoreStatus>;

    /// Things worth telling the user (skipped files, duplicates, …).
    fn notes(&self) -> Vec<StoreNote>;

    /// What `status` lists: [`Self::notes`], and what only a status says
    /// (a store whose every file was skipped, [`StoreNote::AllSkipped`]).
    fn status_notes(&self) -> Vec<StoreNote> {
        self.notes()
    }
}

/// Reads the logs of the sessions a [`SessionStore`] lists.
pub trait SessionReader: Send + Sync {
    /// Reads `session` as it is now, handing each event to `sink` in log
    /// order. Fails when the log cannot be read or no longer holds that
    /// session.
    fn read(
        &self,
        session: &Session,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        self.read_range(session, None, cancelled, sink)
    }

    /// As [`Self::read`], reading at most the first `limit` bytes: a limit
    /// taken from an earlier read's [`ReadSummary::bytes`] reads the same
    /// lines again (a second pass over the same capture).
    fn read_range(
        &self,
        session: &Session,
        limit: Option<u64>,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError>;

    /// The current version of `session`'s log, for caches; `None` when it
    /// cannot be known (then nothing is cached).
    fn version(&self, session: &Session) -> Option<Version>;

    /// What the store's own change detection compares for `session`'s log:
    /// for an index that follows the store (search), where a check of
    /// every log on every call must cost little. On a file system a `stat`
    /// (size, times, identity) and no read — as much as the store itself
    /// trusts when it lists sessions. By default the full [`Self::version`].
    fn stamp(&self, session: &Session) -> Option<Version> {
        self.version(session)
    }

    /// Where an editor can open `session`'s log (a URI), if anywhere.
    fn link_target(&self, session: &Session) -> Option<String>;

    /// Where reading `session` would have to go over the network (the
    /// store's URL), or `None` when its bytes are here (every local log;
    /// a team store's snapshot already in the local cache). A face that
    /// must not wait for the network asks before it reads.
    fn remote(&self, session: &Session) -> Option<String> {
        let _ = session;
        None
    }

    /// Brings `session`'s bytes here (a team store's snapshot into the
    /// local cache, verified), so that [`Self::remote`] is `None` after.
    /// Blocks, bounded by the store's own timeouts. Local logs: nothing to
    /// do.
    fn fetch(&self, session: &Session) -> Result<(), ReadError> {
        let _ = session;
        Ok(())
    }

    /// What the store knows of `session` as a published version (issue
    /// 26): `None` for every store that publishes none.
    fn published(&self, session: &Session) -> Option<PublishedVersion> {
        let _ = session;
        None
    }
}

/// One store of the list, as `sessionReference/status` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreStatus {
    pub path: String,
    pub format: String,
    pub sessions: usize,
    pub skipped_lines: u64,
    pub errors: Vec<String>,
}

/// Something worth telling the user about a store (never fatal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreNote {
    Missing {
        store: String,
    },
    Unreadable {
        store: String,
        error: String,
    },
    /// A folder below the store's root could not be read: its sessions
    /// are missing (`error` is `rel: reason`).
    FolderUnreadable {
        store: String,
        error: String,
    },
    NotASession {
        rel: String,
        why: String,
    },
    /// Every file of the store was skipped: it lists no session although
    /// it holds files, `unread` of them of a name no format of the store
    /// reads, `noted` read and found no session (each with its
    /// [`StoreNote::NotASession`]).
    AllSkipped {
        store: String,
        unread: usize,
        noted: usize,
    },
    Duplicate {
        rel: String,
        id: String,
        winner: String,
    },
}

impl fmt::Display for StoreNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreNote::Missing { store } => {
                write!(f, "the session store {store} does not exist; it is empty")
            }
            StoreNote::Unreadable { store, error } => {
                write!(f, "the session store {store} cannot be read: {error}")
            }
            StoreNote::FolderUnreadable { store, error } => {
                write!(f, "the session store {store} has a folder that cannot be read, its sessions are missing: {error}")
            }
            StoreNote::NotASession { rel, why } => {
                write!(f, "{rel}: skipped, not a session: {why}")
            }
            StoreNote::AllSkipped {
                store,
                unread,
                noted,
            } => {
                write!(
                    f,
                    "the session store {store} lists no session: every file in it was skipped, \
                     {unread} by its name (no format of the store reads it)"
                )?;
                match noted {
                    0 => Ok(()),
                    n => write!(f, ", {n} as not a session"),
                }
            }
            StoreNote::Duplicate { rel, id, winner } => {
                write!(f, "{rel}: duplicate session id {id:?}, {winner} wins")
            }
        }
    }
}
