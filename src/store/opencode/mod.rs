//! OpenCode's data folder as a session store (agent-logs-more.md
//! "OpenCode"): the sessions of its databases (`opencode.db`,
//! `opencode-*.db`), or of its older `storage/` tree when the folder has
//! no database. A [`SessionStore`] like the file catalogs, so the
//! reference core, the server and the CLI see no difference: the store
//! list (`FsStore`) holds it beside them.
//!
//! Incremental: each update asks each database for its stamp (one short
//! query); only a changed stamp lists the sessions again, and only a
//! session whose row or message key changed is projected again.

pub mod db;
mod reader;
pub mod session;
pub mod sources;
pub mod tree;
mod watch;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use self::db::{DbStamp, MessageKey, OpencodeDb, SessionRow};
use self::reader::OpencodeReader;
use self::watch::OpencodeWatcher;
use crate::model::{Session, SessionReader, SessionStore, StoreNote, StoreStatus, Wake};
use crate::store::notes::{root_notes, unreadable_database, unreadable_errors};

pub use sources::is_database_name;

/// What tells that a listed session changed: its row and its messages.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RowKey {
    row: SessionRow,
    messages: MessageKey,
}

/// One session as listed, with the key it was built from. Equal when
/// both are: a changed key is a change even when the listed session is
/// the same (a revert changes what a read gives).
#[derive(Debug, Clone, PartialEq)]
struct Known {
    session: Session,
    key: RowKey,
}

/// One database of the folder.
#[derive(Debug)]
struct Database {
    /// Its file name in the folder (the sessions' locator name).
    name: Arc<[u8]>,
    stamp: Option<DbStamp>,
    /// By id.
    sessions: Vec<Known>,
    /// Why the last read failed, when it did (its sessions are those of
    /// the read before).
    error: Option<String>,
}

/// The sessions of one OpenCode data folder.
#[derive(Debug)]
pub struct OpencodeStore {
    root: PathBuf,
    /// This store's position in the store list.
    index: usize,
    /// Whether titles (and skipped rows) are read: every changed session
    /// is projected. `prepare` and `check` need only the rows.
    titles: bool,
    databases: Vec<Database>,
    /// The older `storage/` tree, read when the folder has no database.
    tree: Option<Tree>,
    missing: bool,
    unreadable: Option<String>,
    /// Set by the watcher: something in the folder changed.
    dirty: Arc<AtomicBool>,
    watcher: Option<OpencodeWatcher>,
    reader: Arc<OpencodeReader>,
}

impl OpencodeStore {
    /// The store of the folder `root`, store `index` of the list, not
    /// read yet (the first [`SessionStore::update`] reads it).
    pub fn unscanned(root: &Path, index: usize, titles: bool) -> Self {
        OpencodeStore {
            root: root.to_path_buf(),
            index,
            titles,
            databases: Vec::new(),
            tree: None,
            missing: false,
            unreadable: None,
            dirty: Arc::new(AtomicBool::new(true)),
            watcher: None,
            reader: Arc::new(OpencodeReader::new(root)),
        }
    }

    /// The store of `root`, read now.
    pub fn open(root: &Path, index: usize, titles: bool) -> Self {
        let mut store = Self::unscanned(root, index, titles);
        store.update();
        store
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Lists the folder's databases again and brings each up to date.
    fn refresh(&mut self) -> bool {
        let names = match sources::databases(&self.root) {
            Ok(names) => {
                self.missing = false;
                self.unreadable = None;
                names
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.missing = true;
                self.unreadable = None;
                Vec::new()
            }
            Err(e) => {
                self.unreadable = Some(e.to_string());
                return false;
            }
        };
        let before = self.databases.len();
        let mut old = std::mem::take(&mut self.databases);
        let mut changed = false;
        for name in names {
            let mut database = match old.iter().position(|d| *d.name == *name.as_bytes()) {
                Some(at) => old.swap_remove(at),
                None => {
                    changed = true;
                    Database {
                        name: Arc::from(name.as_bytes()),
                        stamp: None,
                        sessions: Vec::new(),
                        error: None,
                    }
                }
            };
            changed |= database.refresh(&self.root, self.index, self.titles);
            self.databases.push(database);
        }
        changed |= !old.is_empty() || before != self.databases.len();
        if self.databases.is_empty() && tree::exists(&self.root) {
            let tree = self.tree.get_or_insert_with(Tree::default);
            changed |= tree.refresh(&self.root, self.index, self.titles);
        } else if self.tree.take().is_some() {
            changed = true;
        }
        changed
    }

    /// Every session known, databases first, then the tree's.
    fn all_known(&self) -> impl Iterator<Item = &Known> {
        self.databases
            .iter()
            .flat_map(|d| &d.sessions)
            .chain(self.tree.iter().flat_map(|t| &t.sessions))
    }

    /// Every listed session with its database's name, the first database
    /// winning an id held by two.
    fn winners(&self) -> Vec<&Session> {
        let mut seen = HashSet::new();
        self.all_known()
            .map(|k| &k.session)
            .filter(|s| seen.insert(s.id()))
            .collect()
    }
}

impl Database {
    /// Reads the database again if its stamp changed; whether its
    /// sessions did.
    fn refresh(&mut self, root: &Path, index: usize, titles: bool) -> bool {
        let path = root.join(sources::name_path(&self.name));
        let result = (|| {
            let mut db = OpencodeDb::open(&path)?;
            let stamp = db.stamp()?;
            if self.stamp.as_ref() == Some(&stamp) {
                return Ok(false);
            }
            let listing = db.listing()?;
            let modified = sources::modified_ms(&path);
            let mut sessions = Vec::with_capacity(listing.sessions.len());
            for row in listing.sessions {
                let key = RowKey {
                    messages: listing.messages.get(&row.id).cloned().unwrap_or_default(),
                    row,
                };
                let old = self
                    .sessions
                    .binary_search_by(|k| k.session.id().cmp(&key.row.id))
                    .ok()
                    .map(|at| &self.sessions[at])
                    .filter(|k| k.key == key);
                let session = match old {
                    Some(known) => known.session.clone(),
                    None => build(&mut db, &key.row, titles, index, &self.name, modified),
                };
                sessions.push(Known { session, key });
            }
            sessions.sort_by(|a, b| a.session.id().cmp(b.session.id()));
            let changed = sessions != self.sessions;
            self.sessions = sessions;
            self.stamp = Some(listing.stamp);
            Ok::<bool, db::DbError>(changed)
        })();
        match result {
            Ok(changed) => {
                self.error = None;
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

/// The older JSON tree of the folder.
#[derive(Debug, Default)]
struct Tree {
    /// By id.
    sessions: Vec<Known>,
    skipped: Vec<tree::NotASession>,
    error: Option<String>,
}

impl Tree {
    /// Lists the tree again, projecting only the sessions whose file or
    /// messages changed; whether anything did.
    fn refresh(&mut self, root: &Path, index: usize, titles: bool) -> bool {
        let (listed, skipped) = match tree::list(root) {
            Ok(found) => found,
            Err(e) => {
                let changed = self.error.as_deref() != Some(&e.to_string());
                self.error = Some(e.to_string());
                return changed;
            }
        };
        self.error = None;
        let mut sessions = Vec::with_capacity(listed.len());
        for found in listed {
            let key = RowKey {
                row: found.row,
                messages: found.messages,
            };
            let name: Arc<[u8]> = Arc::from(found.rel.as_bytes());
            let old = self
                .sessions
                .iter()
                .find(|k| k.key == key && *k.session.locator.name == *name);
            let session = match old {
                Some(known) => known.session.clone(),
                None if !titles => session::listed(&key.row, None, index, &name, found.modified_ms),
                None => match tree::rows(root, &key.row.id) {
                    Ok(rows) => {
                        let projected = session::project_rows(&key.row, &rows, None);
                        session::listed(&key.row, Some(&projected), index, &name, found.modified_ms)
                    }
                    Err(e) => {
                        let mut session =
                            session::listed(&key.row, None, index, &name, found.modified_ms);
                        session.unreadable = Some(e.to_string());
                        session
                    }
                },
            };
            sessions.push(Known { session, key });
        }
        // Stable: of two files with one id, the first listed stays first.
        sessions.sort_by(|a, b| a.session.id().cmp(b.session.id()));
        let changed = sessions != self.sessions || skipped != self.skipped;
        self.sessions = sessions;
        self.skipped = skipped;
        changed
    }
}

/// One session of `db`, projected when titles are read.
fn build(
    db: &mut OpencodeDb,
    row: &SessionRow,
    titles: bool,
    index: usize,
    name: &Arc<[u8]>,
    modified: u64,
) -> Session {
    if !titles {
        return session::listed(row, None, index, name, modified);
    }
    match db.session_rows_listed(&row.id) {
        Ok(rows) => {
            let projected = session::project_rows(row, &rows, None);
            session::listed(row, Some(&projected), index, name, modified)
        }
        Err(e) => {
            let mut session = session::listed(row, None, index, name, modified);
            session.unreadable = Some(e.0);
            session
        }
    }
}

impl SessionStore for OpencodeStore {
    fn sessions(&self) -> Vec<Session> {
        self.winners().into_iter().cloned().collect()
    }

    fn for_each_session(&self, f: &mut dyn FnMut(Session)) {
        for session in self.winners() {
            f(session.clone());
        }
    }

    fn get(&self, id: &str) -> Option<Session> {
        self.all_known()
            .find(|k| k.session.id() == id)
            .map(|k| k.session.clone())
    }

    fn reader(&self) -> Arc<dyn SessionReader> {
        self.reader.clone()
    }

    fn watch(&mut self, wake: Wake) {
        self.watcher = OpencodeWatcher::start(&self.root, self.dirty.clone(), wake);
    }

    fn update(&mut self) -> bool {
        // Without a watcher nothing says what changed: look (a stamp
        // query per database).
        let watched = self.watcher.as_ref().is_some_and(OpencodeWatcher::is_armed);
        if !self.dirty.swap(false, Ordering::SeqCst) && watched {
            return false;
        }
        let changed = self.refresh();
        if let Some(watcher) = &mut self.watcher {
            watcher.arm(self.tree.is_some());
        }
        changed
    }

    fn status(&self) -> Vec<StoreStatus> {
        let winners = self.winners();
        vec![StoreStatus {
            path: self.root.display().to_string(),
            format: crate::formats::opencode::NAME.to_string(),
            sessions: winners.len(),
            skipped_lines: winners.iter().map(|s| s.skipped_lines).sum(),
            errors: unreadable_errors(&self.notes()),
        }]
    }

    fn notes(&self) -> Vec<StoreNote> {
        let store = self.root.display().to_string();
        let mut notes = root_notes(&store, self.missing, self.unreadable.as_deref());
        if let Some(tree) = &self.tree {
            if let Some(error) = &tree.error {
                notes.push(StoreNote::Unreadable {
                    store: format!("{store}/storage"),
                    error: error.clone(),
                });
            }
            notes.extend(tree.skipped.iter().map(|s| StoreNote::NotASession {
                rel: s.rel.clone(),
                why: s.why.clone(),
            }));
        }
        let mut winners: HashMap<&str, &[u8]> = HashMap::new();
        for database in &self.databases {
            if let Some(error) = &database.error {
                let name = String::from_utf8_lossy(&database.name);
                notes.push(unreadable_database(&store, &name, error));
            }
        }
        for known in self.all_known() {
            let id = known.session.id();
            let name = &known.session.locator.name;
            match winners.get(id) {
                Some(winner) => notes.push(StoreNote::Duplicate {
                    rel: String::from_utf8_lossy(name).into_owned(),
                    id: id.to_string(),
                    winner: String::from_utf8_lossy(winner).into_owned(),
                }),
                None => {
                    winners.insert(id, name);
                }
            }
        }
        notes
    }
}

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;
