//! [`DatabaseStore`]: the sessions of the agent databases below one root,
//! one format each ([`DbFormat`]), as a [`SessionStore`]. A named store
//! reads only its format's files; the databases of an `auto` store are
//! read beside its line logs (`FsStore`).
//!
//! Incremental by database: each update asks each database for its stamp
//! (one short read); only a changed stamp lists its sessions again.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use super::discover::{self, Skipped};
use super::format::{Candidate, DbFormat, DbRead, DbSession, OpenError};
use super::open::{DbError, ReadOnlyDb};
use super::version_memo::VersionMemo;
use crate::model::{
    Cancelled, Entry, Locator, LogError, ReadError, ReadSummary, Session, SessionReader,
    SessionStore, StoreNote, StoreStatus, Version, Wake,
};
use crate::store::notes::{root_notes, unreadable_database, unreadable_errors};
use crate::store::watch::{Pending, RootWatcher};

/// One database of the store.
#[derive(Debug)]
struct Database {
    candidate: Candidate,
    stamp: Option<String>,
    /// By id.
    sessions: Vec<Session>,
    /// Rows that are not sessions (no message), by id.
    not_sessions: Vec<Skipped>,
    /// Why the database is not of its format (reported, not fatal).
    not_a_database: Option<String>,
    /// Why the last read failed (its sessions are those of the read before).
    error: Option<String>,
}

/// The databases below one root.
#[derive(Debug)]
pub struct DatabaseStore {
    root: PathBuf,
    index: usize,
    /// The store's format name in `status` (`auto` for an `auto` store).
    label: &'static str,
    formats: Vec<&'static dyn DbFormat>,
    databases: Vec<Database>,
    skipped: Vec<Skipped>,
    missing: bool,
    unreadable: Option<String>,
    reader: Arc<DatabaseReader>,
    /// What the watcher saw since the last update (a named store's own).
    pending: Arc<Mutex<Pending>>,
    watcher: Option<RootWatcher>,
    /// Whether the root was looked through once.
    scanned: bool,
}

impl DatabaseStore {
    /// The store of `root` (store `index` of the list) reading `formats`'
    /// databases, not read yet.
    pub fn unscanned(
        root: &Path,
        index: usize,
        label: &'static str,
        formats: Vec<&'static dyn DbFormat>,
    ) -> Self {
        DatabaseStore {
            root: root.to_path_buf(),
            index,
            label,
            formats,
            databases: Vec::new(),
            skipped: Vec::new(),
            missing: false,
            unreadable: None,
            reader: Arc::new(DatabaseReader {
                candidates: RwLock::new(Vec::new()),
                memo: VersionMemo::default(),
            }),
            pending: Arc::new(Mutex::new(Pending {
                rescan: true,
                ..Pending::default()
            })),
            watcher: None,
            scanned: false,
        }
    }

    /// The store of `root`, read now.
    pub fn open(
        root: &Path,
        index: usize,
        label: &'static str,
        formats: Vec<&'static dyn DbFormat>,
    ) -> Self {
        let mut store = Self::unscanned(root, index, label, formats);
        store.update();
        store
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The reader of this store's sessions.
    pub fn database_reader(&self) -> Arc<DatabaseReader> {
        self.reader.clone()
    }

    /// Whether no database below the root holds a session.
    pub fn is_empty(&self) -> bool {
        self.databases.iter().all(|d| d.sessions.is_empty())
    }

    /// Sessions and skipped rows, for an `auto` store's status.
    pub fn counts(&self) -> (usize, u64) {
        let winners = self.winners();
        (winners.len(), winners.iter().map(|s| s.skipped_lines).sum())
    }

    /// Brings the store up to date with what a watcher saw: a rescan
    /// looks for databases again; a database written asks each known one
    /// for its stamp.
    pub fn apply(&mut self, rescan: bool, databases: bool) -> bool {
        if rescan || !self.scanned {
            self.scanned = true;
            self.refresh()
        } else if databases {
            let index = self.index;
            let mut changed = false;
            for database in &mut self.databases {
                changed |= database.refresh(index);
            }
            changed
        } else {
            false
        }
    }

    fn refresh(&mut self) -> bool {
        let found = match discover::find(&self.root, &self.formats) {
            Ok(found) => {
                self.missing = false;
                self.unreadable = None;
                found
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let changed = !self.missing || !self.databases.is_empty();
                self.missing = true;
                self.databases.clear();
                self.skipped.clear();
                return changed;
            }
            Err(e) => {
                self.unreadable = Some(e.to_string());
                return false;
            }
        };
        let mut changed = found.skipped != self.skipped;
        self.skipped = found.skipped;
        let mut old = std::mem::take(&mut self.databases);
        for candidate in found.candidates {
            let mut database = match old.iter().position(|d| d.candidate == candidate) {
                Some(at) => old.swap_remove(at),
                None => {
                    changed = true;
                    Database {
                        candidate,
                        stamp: None,
                        sessions: Vec::new(),
                        not_sessions: Vec::new(),
                        not_a_database: None,
                        error: None,
                    }
                }
            };
            changed |= database.refresh(self.index);
            self.databases.push(database);
        }
        changed |= !old.is_empty();
        if let Ok(mut candidates) = self.reader.candidates.write() {
            *candidates = self.databases.iter().map(|d| d.candidate.clone()).collect();
        }
        changed
    }

    /// Every listed session, the first database winning an id held by two.
    fn winners(&self) -> Vec<&Session> {
        let mut seen = HashSet::new();
        self.databases
            .iter()
            .flat_map(|d| &d.sessions)
            .filter(|s| seen.insert(s.id()))
            .collect()
    }
}

impl Database {
    /// Reads the database again if its stamp changed; whether anything
    /// listed did.
    fn refresh(&mut self, index: usize) -> bool {
        let format = self.candidate.format;
        let result = (|| {
            let opened = ReadOnlyDb::open(&self.candidate.path)?;
            let mut db = match format.open(opened) {
                Ok(db) => db,
                Err(OpenError::NotOfFormat(why)) => return Ok(Err(why)),
                Err(OpenError::Failed(e)) => return Err(e),
            };
            let stamp = db.stamp()?;
            if self.stamp.as_ref() == Some(&stamp) {
                return Ok(Ok(false));
            }
            let listed = db.list(&self.candidate.context)?;
            let mut sessions = Vec::with_capacity(listed.len());
            let mut not_sessions = Vec::new();
            for one in listed {
                match &one.not_a_session {
                    Some(why) => not_sessions.push(Skipped {
                        rel: format!("{}#{}", self.candidate.name, one.header.id),
                        why: why.clone(),
                    }),
                    None => sessions.push(listed_session(&one, index, &self.candidate)),
                }
            }
            sessions.sort_by(|a, b| a.id().cmp(b.id()));
            let changed = sessions != self.sessions || not_sessions != self.not_sessions;
            self.sessions = sessions;
            self.not_sessions = not_sessions;
            self.stamp = Some(stamp);
            Ok::<_, DbError>(Ok(changed))
        })();
        match result {
            Ok(Ok(changed)) => {
                let changed = changed || self.error.is_some() || self.not_a_database.is_some();
                self.error = None;
                self.not_a_database = None;
                changed
            }
            Ok(Err(why)) => {
                let changed = self.not_a_database.as_deref() != Some(&why);
                self.not_a_database = Some(why);
                self.sessions.clear();
                self.stamp = None;
                changed
            }
            Err(e) => {
                // The sessions read before stay listed; the next update
                // tries again.
                self.stamp = None;
                let changed = self.error.as_deref() != Some(&e.0);
                self.error = Some(e.0);
                changed
            }
        }
    }
}

/// The session a store lists for one projected row.
fn listed_session(one: &DbSession, store: usize, candidate: &Candidate) -> Session {
    Session {
        header: one.header.clone(),
        locator: Locator {
            store,
            format: candidate.format.name(),
            name: Arc::from(candidate.name.as_bytes()),
        },
        title: one.title.clone(),
        capacity: one.capacity,
        unreadable: None,
        skipped_lines: one.skipped,
        // The database's own check is per store: the reader is asked.
        stamp: 0,
    }
}

impl SessionStore for DatabaseStore {
    fn sessions(&self) -> Vec<Session> {
        self.winners().into_iter().cloned().collect()
    }

    fn for_each_session(&self, f: &mut dyn FnMut(Session)) {
        for session in self.winners() {
            f(session.clone());
        }
    }

    fn get(&self, id: &str) -> Option<Session> {
        self.winners().into_iter().find(|s| s.id() == id).cloned()
    }

    fn reader(&self) -> Arc<dyn SessionReader> {
        self.reader.clone()
    }

    fn watch(&mut self, wake: Wake) {
        self.watcher = RootWatcher::start(&self.root, true, self.pending.clone(), wake);
    }

    fn update(&mut self) -> bool {
        let pending = match self.pending.lock() {
            Ok(mut p) => std::mem::take(&mut *p),
            Err(_) => Pending {
                rescan: true,
                ..Pending::default()
            },
        };
        if pending.rearm {
            if let Some(watcher) = &mut self.watcher {
                watcher.arm();
            }
        }
        // Unwatched, nothing says what changed: look again.
        let rescan = pending.rescan || self.watcher.is_none();
        self.apply(rescan, pending.databases || !pending.paths.is_empty())
    }

    fn status(&self) -> Vec<StoreStatus> {
        let (sessions, skipped_lines) = self.counts();
        vec![StoreStatus {
            path: self.root.display().to_string(),
            format: self.label.to_string(),
            sessions,
            skipped_lines,
            errors: unreadable_errors(&self.notes()),
        }]
    }

    fn notes(&self) -> Vec<StoreNote> {
        let store = self.root.display().to_string();
        let mut notes = root_notes(&store, self.missing, self.unreadable.as_deref());
        notes.extend(self.skipped.iter().map(|s| StoreNote::NotASession {
            rel: s.rel.clone(),
            why: s.why.clone(),
        }));
        let mut seen = HashSet::new();
        for database in &self.databases {
            let name = &database.candidate.name;
            if let Some(error) = &database.error {
                notes.push(unreadable_database(&store, name, error));
            }
            if let Some(why) = &database.not_a_database {
                notes.push(StoreNote::NotASession {
                    rel: name.clone(),
                    why: why.clone(),
                });
            }
            notes.extend(
                database
                    .not_sessions
                    .iter()
                    .map(|s| StoreNote::NotASession {
                        rel: s.rel.clone(),
                        why: s.why.clone(),
                    }),
            );
            for session in &database.sessions {
                if !seen.insert(session.id().to_string()) {
                    notes.push(StoreNote::Duplicate {
                        rel: name.clone(),
                        id: session.id().to_string(),
                        winner: store.clone(),
                    });
                }
            }
        }
        notes
    }
}

/// Reads the sessions of one [`DatabaseStore`]: only the databases it
/// listed are ever opened, found by the session's locator name.
#[derive(Debug)]
pub struct DatabaseReader {
    candidates: RwLock<Vec<Candidate>>,
    /// Each session's version while its database is unchanged.
    memo: VersionMemo,
}

impl DatabaseReader {
    fn candidate(&self, session: &Session) -> Option<Candidate> {
        let name = std::str::from_utf8(&session.locator.name).ok()?;
        let candidates = self.candidates.read().ok()?;
        candidates
            .iter()
            .find(|c| c.name == name && c.format.name() == session.locator.format)
            .cloned()
    }

    fn read_one(
        &self,
        session: &Session,
        limit: Option<u64>,
    ) -> Result<(DbSession, Candidate), ReadError> {
        let candidate = self
            .candidate(session)
            .ok_or_else(|| failed(session, "the database is no longer in the store".into()))?;
        let error = |e: DbError| failed(session, e.0);
        let mut db = open(&candidate).map_err(error)?;
        let one = db
            .read(&candidate.context, session.id(), limit)
            .map_err(error)?
            .filter(|one| one.not_a_session.is_none())
            .ok_or_else(|| failed(session, "the session is no longer in the database".into()))?;
        Ok((one, candidate))
    }
}

/// The database of `candidate`, open as its format's.
fn open(candidate: &Candidate) -> Result<Box<dyn DbRead>, DbError> {
    let db = ReadOnlyDb::open(&candidate.path)?;
    candidate.format.open(db).map_err(|e| match e {
        OpenError::NotOfFormat(why) => DbError(why),
        OpenError::Failed(e) => e,
    })
}

/// Session's version in `db`: the database's stamp and the session as
/// read now.
fn version_in(db: &mut dyn DbRead, candidate: &Candidate, session: &Session) -> Option<Version> {
    let stamp = db.stamp().ok()?;
    let one = db.read(&candidate.context, session.id(), None).ok()??;
    let key = format!(
        "{}\u{0}{}\u{0}{stamp}\u{0}{:?}\u{0}{}\u{0}{:?}",
        session.locator.store, candidate.name, one.header, one.rows, one.title
    );
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for entry in &one.entries {
        entry.hash(&mut hasher);
    }
    let mut bytes = key.into_bytes();
    bytes.extend(hasher.finish().to_le_bytes());
    Some(Version(bytes))
}

fn failed(session: &Session, reason: String) -> ReadError {
    ReadError::Log(LogError {
        file: session.locator.display(),
        line: None,
        reason,
    })
}

impl SessionReader for DatabaseReader {
    /// `limit` counts message rows, as [`ReadSummary::bytes`] does here.
    fn read_range(
        &self,
        session: &Session,
        limit: Option<u64>,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        let (mut one, _) = self.read_one(session, limit)?;
        if cancelled() {
            return Err(ReadError::Cancelled);
        }
        // Handed on, never copied: one 100 MB message is held once.
        for entry in std::mem::take(&mut one.entries) {
            sink(entry);
        }
        Ok(ReadSummary {
            header: one.header,
            captured_through_seq: (one.rows > 0).then_some(one.rows),
            title: one.title,
            capacity: one.capacity,
            skipped_lines: one.skipped,
            bytes: one.rows,
        })
    }

    /// The database's stamp and the session as read now.
    fn version(&self, session: &Session) -> Option<Version> {
        let candidate = self.candidate(session)?;
        let mut db = open(&candidate).ok()?;
        version_in(&mut *db, &candidate, session)
    }

    /// The version, read again only when the database changed
    /// ([`VersionMemo`]): what search checks of every session on every
    /// change of the store.
    fn stamp(&self, session: &Session) -> Option<Version> {
        let candidate = self.candidate(session)?;
        self.memo.stamp(&candidate.path, session.id(), || {
            let mut db = open(&candidate).ok()?;
            version_in(&mut *db, &candidate, session)
        })
    }

    /// A database is no log an editor opens.
    fn link_target(&self, _session: &Session) -> Option<String> {
        None
    }
}
