//! [`FsStore`]: the store list on the local file system, one [`Catalog`]
//! per folder of logs and one [`OpencodeStore`] per OpenCode data folder,
//! behind the model's [`SessionStore`] trait.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use std::time::UNIX_EPOCH;

use super::catalog::Catalog;
use super::database::{self, DatabaseStore};
use super::discover;
use super::index_cache;
use super::opencode::OpencodeStore;
use super::scan::Walker;
use super::stamp::Stamp;
use super::team::TeamStore;
use super::watch::{Pending, RootWatcher};
use crate::formats::FormatChoice;
use crate::formats::{self, LogSource};
use crate::fsio::{self, Links};
use crate::model::{
    Cancelled, Entry, Locator, LogError, PublishedVersion, ReadError, ReadSummary, Session,
    SessionKey, SessionReader, SessionSink, SessionStore, StoreNote, StoreStatus, Version, Wake,
};

/// One store of the list: a root directory and the format of its logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreSpec {
    pub path: PathBuf,
    pub format: FormatChoice,
}

impl StoreSpec {
    pub fn auto(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            format: FormatChoice::Auto,
        }
    }
}

/// How much of each log an index reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Every line: titles, capacity, skipped lines (completion, hover).
    Full,
    /// Only up to each log's header (`prepare`, `check`).
    HeadersOnly,
}

/// A session's id and the name of the log that holds it.
type IdAndName<'a> = (Cow<'a, str>, Cow<'a, [u8]>);

/// One store of the list.
enum Member {
    /// A folder of line logs, each file read by its format (boxed: a
    /// catalog is large beside a store's handle).
    Files(Box<Catalog>),
    /// A store of another kind (OpenCode's databases): only its traits.
    Store(Box<dyn SessionStore>),
}

impl std::fmt::Debug for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Member::Files(catalog) => f.debug_tuple("Files").field(catalog).finish(),
            Member::Store(store) => f.debug_tuple("Store").field(&store.status()).finish(),
        }
    }
}

impl Member {
    fn catalog(&self) -> Option<&Catalog> {
        match self {
            Member::Files(catalog) => Some(catalog),
            Member::Store(_) => None,
        }
    }

    fn for_each_session(&self, f: &mut dyn FnMut(Session)) {
        match self {
            Member::Files(catalog) => catalog.for_each_session(f),
            Member::Store(store) => store.for_each_session(f),
        }
    }

    fn offer_sessions(&self, sink: &mut dyn SessionSink) {
        match self {
            Member::Files(catalog) => catalog.offer_sessions(sink),
            Member::Store(store) => store.offer_sessions(sink),
        }
    }

    fn get(&self, id: &str) -> Option<Session> {
        match self {
            Member::Files(catalog) => catalog.get(id),
            Member::Store(store) => store.get(id),
        }
    }

    /// Every id with the name of the log that holds it, one at a time (a
    /// list of 100,000 ids and names, copied, was 9 MiB beside the view
    /// being built; issue 29 item 6).
    fn ids(&self) -> Box<dyn Iterator<Item = IdAndName<'_>> + '_> {
        match self {
            Member::Files(catalog) => {
                Box::new(catalog.ids().map(|(id, rel)| (id, Cow::Borrowed(rel))))
            }
            Member::Store(store) => Box::new(store.sessions().into_iter().map(|s| {
                let rel = Cow::Owned(s.locator.name.to_vec());
                (Cow::Owned(s.header.id), rel)
            })),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Member::Files(catalog) => catalog.is_empty(),
            Member::Store(store) => store.sessions().is_empty(),
        }
    }
}

/// The sessions of a list of store roots. Ids are unique across the list:
/// the first store that holds an id wins.
#[derive(Debug)]
pub struct FsStore {
    members: Vec<Member>,
    /// By store: the agent databases an `auto` store finds below its root
    /// (issue 24 item 3), read beside its line logs.
    databases: Vec<Option<DatabaseStore>>,
    reader: Arc<FsReader>,
    /// Per catalog: changes the watcher saw since the last update.
    pending: Vec<Arc<Mutex<Pending>>>,
    watchers: Vec<Option<RootWatcher>>,
    /// Where the first update reads and saves the index caches
    /// ([`FsStore::with_index_cache`]); `None` once it has.
    cache_dir: Option<PathBuf>,
    /// Whether the first update through the caches then lets go of the
    /// scanners of old logs (`index_cache::save_and_release`): a
    /// long-lived face's store, which follows appends for hours; the
    /// CLI's, read once, would only pay for it.
    release_scanners: bool,
    /// Per member, how many files [`SessionStore::load_recorded`] seeded
    /// from its cache (0 for a store of another kind): the first update
    /// checks them and saves only what changed. `None` until then.
    recorded: Option<Vec<usize>>,
}

impl FsStore {
    /// Indexes every store of `specs` now.
    pub fn open(specs: &[StoreSpec], scan: Scan) -> Self {
        let mut store = Self::unscanned(specs, scan);
        store.update();
        store
    }

    /// Indexes every store of `specs` now, through the index caches in
    /// `cache_dir`: a log unchanged since a cache recorded it is not read.
    /// The caches are then brought up to date.
    pub fn open_cached(specs: &[StoreSpec], scan: Scan, cache_dir: &Path) -> Self {
        let mut store = Self::unscanned(specs, scan).with_index_cache(specs, cache_dir);
        store.release_scanners = false;
        store.update();
        store
    }

    /// The first update of this (unscanned) store goes through the index
    /// caches in `cache_dir`, as [`FsStore::open_cached`] does, and saves
    /// them; the updates after it do not. A long-lived face (the MCP
    /// server) starts its watch first and then lists a large store in the
    /// time of a cache read, not of a read of every log. A folder that
    /// cannot hold the caches leaves the first update a plain scan.
    /// `specs` are the store list this store was made of.
    pub fn with_index_cache(mut self, specs: &[StoreSpec], cache_dir: &Path) -> Self {
        let roots: Vec<PathBuf> = specs.iter().map(|s| s.path.clone()).collect();
        self.cache_dir = index_cache::usable_dir(cache_dir, &roots);
        self.release_scanners = true;
        self
    }

    /// Seeds every folder of line logs from its cache in `cache_dir`: how
    /// many files each took (0 for a store of another kind).
    fn load_caches(&mut self, cache_dir: &Path) -> Vec<usize> {
        self.members
            .iter_mut()
            .map(|m| match m {
                Member::Files(c) => index_cache::load(c, cache_dir),
                Member::Store(_) => 0,
            })
            .collect()
    }

    /// The first update through the caches in `cache_dir` (already read
    /// when [`SessionStore::load_recorded`] was called): every log is
    /// stamped against them, and those that differ are read.
    fn update_cached(&mut self, cache_dir: &Path) -> bool {
        let walkers: Vec<_> = self
            .members
            .iter()
            .map(|m| m.catalog().map(Catalog::walker))
            .collect();
        let walk_all = || {
            walkers
                .iter()
                .map(|w| w.as_ref().map(Walker::walk))
                .collect::<Vec<_>>()
        };
        let (walks, loaded) = match self.recorded.take() {
            Some(loaded) => (Ok(walk_all()), loaded),
            // The walk (listing and stats) needs nothing from the cache: it
            // runs while the caches are read.
            None => std::thread::scope(|scope| {
                let walking = scope.spawn(walk_all);
                let loaded = self.load_caches(cache_dir);
                (walking.join(), loaded)
            }),
        };
        // A walk that died leaves the rescan to `update`.
        if let Ok(walks) = walks {
            for ((member, pending), walked) in self.members.iter_mut().zip(&self.pending).zip(walks)
            {
                if let (Member::Files(catalog), Some(walked)) = (member, walked) {
                    catalog.apply_walk(walked);
                    if let Ok(mut p) = pending.lock() {
                        p.rescan = false;
                    }
                }
            }
        }
        // Loaded from a cache or not, the first index is a change.
        self.update();
        self.save_caches(cache_dir, loaded);
        true
    }

    /// Brings each store of the list up to date in turn. `release`: the
    /// first scan of a long-lived face, which lets go of old logs'
    /// scanners batch by batch ([`Catalog::scan_batch`]).
    fn update_members_in_parts(
        &mut self,
        progress: &mut dyn FnMut(&dyn SessionStore),
        release: bool,
    ) -> bool {
        let mut changed = false;
        for i in 0..self.members.len() {
            if i > 0 {
                progress(&*self);
            }
            changed |= self.update_member(i, progress, release);
        }
        changed
    }

    /// Writes each folder's index cache after the first update (`loaded`:
    /// how many files its cache seeded), and lets a long-lived face's
    /// catalogs go of their old logs' scanners.
    fn save_caches(&mut self, cache_dir: &Path, loaded: Vec<usize>) {
        for (member, loaded) in self.members.iter_mut().zip(loaded) {
            match member {
                Member::Files(catalog) if self.release_scanners => {
                    index_cache::save_and_release(catalog, cache_dir, loaded);
                }
                Member::Files(catalog) => index_cache::save_if_changed(catalog, cache_dir, loaded),
                Member::Store(_) => {}
            }
        }
    }

    /// An index of `specs` that scans on its first [`SessionStore::update`]
    /// (so a watcher can be started before the scan, and nothing written
    /// during the scan is lost).
    pub fn unscanned(specs: &[StoreSpec], scan: Scan) -> Self {
        let titles = scan == Scan::Full;
        let members: Vec<Member> = specs
            .iter()
            .enumerate()
            .map(|(i, spec)| match spec.format {
                FormatChoice::Opencode => {
                    Member::Store(Box::new(OpencodeStore::unscanned(&spec.path, i, titles)))
                }
                FormatChoice::Team => Member::Store(Box::new(TeamStore::unscanned(
                    &spec.path.to_string_lossy(),
                    i,
                ))),
                FormatChoice::Database(name) => match database::by_name(name) {
                    Some(format) => Member::Store(Box::new(DatabaseStore::unscanned(
                        &spec.path,
                        i,
                        format.name(),
                        vec![format],
                    ))),
                    None => {
                        Member::Files(Box::new(Catalog::empty(&spec.path, i, spec.format, titles)))
                    }
                },
                format if is_single_history(spec) => Member::Files(Box::new(Catalog::single_file(
                    &spec.path, i, format, titles,
                ))),
                format => Member::Files(Box::new(Catalog::empty(&spec.path, i, format, titles))),
            })
            .collect();
        // A session's file is its catalog's root joined with its name.
        let roots = members
            .iter()
            .zip(specs)
            .map(|(m, spec)| match m {
                Member::Files(catalog) => catalog.root().to_path_buf(),
                Member::Store(_) => spec.path.clone(),
            })
            .collect();
        let databases: Vec<Option<DatabaseStore>> = specs
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                (spec.format == FormatChoice::Auto).then(|| {
                    DatabaseStore::unscanned(&spec.path, i, "auto", database::all().to_vec())
                })
            })
            .collect();
        let others = members
            .iter()
            .zip(&databases)
            .map(|(m, db)| match (m, db) {
                (Member::Store(store), _) => Some(store.reader()),
                (Member::Files(_), Some(db)) => Some(db.reader()),
                (Member::Files(_), None) => None,
            })
            .collect();
        let pending = members
            .iter()
            .map(|_| {
                Arc::new(Mutex::new(Pending {
                    rescan: true,
                    ..Pending::default()
                }))
            })
            .collect();
        let watchers = members.iter().map(|_| None).collect();
        FsStore {
            members,
            databases,
            reader: Arc::new(FsReader { roots, others }),
            pending,
            watchers,
            cache_dir: None,
            release_scanners: false,
            recorded: None,
        }
    }

    /// Indexes one store, format decided per file (tests, tools).
    pub fn scan(root: &Path) -> Self {
        Self::open(&[StoreSpec::auto(root)], Scan::Full)
    }

    /// Number of sessions (distinct ids across the list).
    pub fn len(&self) -> usize {
        self.sessions().len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.iter().all(Member::is_empty)
            && self
                .databases
                .iter()
                .flatten()
                .all(|d| d.sessions().is_empty())
    }

    /// The catalogs of the folders of line logs, in list order.
    pub fn catalogs(&self) -> impl Iterator<Item = &Catalog> {
        self.members.iter().filter_map(Member::catalog)
    }

    /// The roots of the list, in order.
    pub fn roots(&self) -> &[PathBuf] {
        &self.reader.roots
    }
}

impl FsStore {
    /// Applies what the watcher saw in store `i` (or rescans it); whether
    /// its sessions changed. A store of another kind updates itself. A
    /// rescan goes in batches (a first scan of 100,000 logs is long):
    /// `progress` sees the store after each but the last. A few paths the
    /// watcher saw are applied at once.
    fn update_member(
        &mut self,
        i: usize,
        progress: &mut dyn FnMut(&dyn SessionStore),
        release: bool,
    ) -> bool {
        if let Some(Member::Store(store)) = self.members.get_mut(i) {
            return store.update();
        }
        let pending = match self.pending[i].lock() {
            Ok(mut p) => std::mem::take(&mut *p),
            Err(_) => Pending {
                rescan: true,
                ..Pending::default()
            },
        };
        if pending.rearm {
            if let Some(Some(watcher)) = self.watchers.get_mut(i) {
                watcher.arm();
            }
        }
        let mut databases_changed = false;
        if let Some(Some(databases)) = self.databases.get_mut(i) {
            databases_changed = databases.apply(pending.rescan, pending.databases);
        }
        let Some(Member::Files(catalog)) = self.members.get_mut(i) else {
            return databases_changed;
        };
        if pending.rescan {
            let walked = catalog.walker().walk();
            let mut batches = catalog.begin_walk(walked);
            // The catalog is borrowed per batch only: between two, the
            // whole store is lent to `progress`.
            while let Some(Member::Files(catalog)) = self.members.get_mut(i) {
                let now = release.then(std::time::SystemTime::now);
                if !catalog.scan_batch(&mut batches, now) {
                    break;
                }
                progress(&*self);
            }
            return true;
        }
        let mut changed = databases_changed;
        for path in &pending.paths {
            changed |= catalog.refresh_path(path);
        }
        changed
    }
}

/// A sink that never sees the ids of earlier stores.
struct Unseen<'s, 'a> {
    seen: &'s HashSet<Cow<'a, str>>,
    sink: &'s mut dyn SessionSink,
}

impl SessionSink for Unseen<'_, '_> {
    fn wants(&self, key: SessionKey<'_>) -> bool {
        !self.seen.contains(key.id) && self.sink.wants(key)
    }

    fn take(&mut self, session: Session) {
        self.sink.take(session);
    }
}

impl SessionStore for FsStore {
    fn sessions(&self) -> Vec<Session> {
        let mut out = Vec::new();
        self.for_each_session(&mut |s| out.push(s));
        out
    }

    fn for_each_session(&self, f: &mut dyn FnMut(Session)) {
        if let ([only], [None]) = (&self.members[..], &self.databases[..]) {
            return only.for_each_session(f);
        }
        // The ids of the stores before this one: the first store wins.
        let after = self.sessions_after();
        let mut seen: HashSet<Cow<'_, str>> = HashSet::new();
        for (i, (member, databases)) in self.members.iter().zip(&self.databases).enumerate() {
            member.for_each_session(&mut |session| {
                if !seen.contains(session.id()) {
                    f(session);
                }
            });
            if !after.get(i).copied().unwrap_or(true) {
                return;
            }
            seen.extend(member.ids().map(|(id, _)| id));
            if let Some(databases) = databases {
                for session in databases.sessions() {
                    if seen.insert(Cow::Owned(session.id().to_string())) {
                        f(session);
                    }
                }
            }
        }
    }

    fn offer_sessions(&self, sink: &mut dyn SessionSink) {
        if let ([only], [None]) = (&self.members[..], &self.databases[..]) {
            return only.offer_sessions(sink);
        }
        // The ids of the stores before this one: the first store wins.
        let after = self.sessions_after();
        let mut seen: HashSet<Cow<'_, str>> = HashSet::new();
        for (i, (member, databases)) in self.members.iter().zip(&self.databases).enumerate() {
            member.offer_sessions(&mut Unseen { seen: &seen, sink });
            if !after.get(i).copied().unwrap_or(true) {
                return;
            }
            seen.extend(member.ids().map(|(id, _)| id));
            if let Some(databases) = databases {
                databases.offer_sessions(&mut Unseen { seen: &seen, sink });
                seen.extend(
                    databases
                        .sessions()
                        .into_iter()
                        .map(|s| Cow::Owned(s.header.id)),
                );
            }
        }
    }

    fn get(&self, id: &str) -> Option<Session> {
        self.members
            .iter()
            .zip(&self.databases)
            .find_map(|(m, d)| m.get(id).or_else(|| d.as_ref()?.get(id)))
    }

    fn reader(&self) -> Arc<dyn SessionReader> {
        self.reader.clone()
    }

    fn watch(&mut self, wake: Wake) {
        for (i, member) in self.members.iter_mut().enumerate() {
            let catalog = match member {
                Member::Files(catalog) => catalog,
                Member::Store(store) => {
                    store.watch(wake.clone());
                    continue;
                }
            };
            // A store of one file watches its folder, not the tree below.
            let recursive = !catalog.is_single_file();
            let watcher = RootWatcher::start(
                catalog.root(),
                recursive,
                self.pending[i].clone(),
                wake.clone(),
            );
            if let Some(slot) = self.watchers.get_mut(i) {
                *slot = watcher;
            }
        }
    }

    /// Every member's refresher, called together.
    fn refresher(&self) -> Option<Wake> {
        let all: Vec<Wake> = self
            .members
            .iter()
            .filter_map(|m| match m {
                Member::Store(store) => store.refresher(),
                Member::Files(_) => None,
            })
            .collect();
        (!all.is_empty()).then(|| -> Wake {
            Arc::new(move || {
                for refresh in &all {
                    refresh();
                }
            })
        })
    }

    fn listing_pending(&self) -> Vec<String> {
        self.members
            .iter()
            .flat_map(|m| match m {
                Member::Store(store) => store.listing_pending(),
                Member::Files(_) => Vec::new(),
            })
            .collect()
    }

    /// The caches of [`FsStore::with_index_cache`], read and not checked:
    /// whether any folder of line logs had one. The rest of the list (a
    /// store with no cache, OpenCode's databases) is indexed by the first
    /// update, which checks these records too.
    fn load_recorded(&mut self) -> bool {
        let Some(dir) = self.cache_dir.clone() else {
            return false;
        };
        if self.recorded.is_some() {
            return false;
        }
        let loaded = self.load_caches(&dir);
        let any = loaded.iter().any(|n| *n > 0);
        self.recorded = Some(loaded);
        any
    }

    fn update(&mut self) -> bool {
        self.update_in_parts(&mut |_| {})
    }

    /// One part per store of the list, and per batch of a store's rescan:
    /// `progress` sees the stores before the next one brought up to date,
    /// and a store's first batches before the next.
    fn update_in_parts(&mut self, progress: &mut dyn FnMut(&dyn SessionStore)) -> bool {
        if let Some(dir) = self.cache_dir.take() {
            let recorded_nothing = self
                .recorded
                .as_ref()
                .is_some_and(|loaded| loaded.iter().all(|n| *n == 0));
            if !recorded_nothing {
                // One part: a cache read is quick, and its parts are not
                // views.
                return self.update_cached(&dir);
            }
            // Read, and found nothing: every log is scanned, in parts as
            // any first scan (completion offers what is indexed so far),
            // and recorded at the end.
            let loaded = self.recorded.take().unwrap_or_default();
            let changed = self.update_members_in_parts(progress, self.release_scanners);
            self.save_caches(&dir, loaded);
            return changed;
        }
        self.update_members_in_parts(progress, false)
    }

    fn status(&self) -> Vec<StoreStatus> {
        self.members
            .iter()
            .zip(&self.databases)
            .flat_map(|(m, d)| match m {
                Member::Files(c) => vec![catalog_status(c, d.as_ref())],
                Member::Store(store) => store.status(),
            })
            .collect()
    }

    fn notes(&self) -> Vec<StoreNote> {
        self.notes_of_list(false)
    }

    fn status_notes(&self) -> Vec<StoreNote> {
        self.notes_of_list(true)
    }
}

impl FsStore {
    /// For each member of the list, whether a store after it holds a
    /// session (its databases, then each later member and theirs): only
    /// then are the ids up to it kept, to tell the ones that repeat. A
    /// list of one large store and missing roots keeps none.
    fn sessions_after(&self) -> Vec<bool> {
        let held = |d: &Option<DatabaseStore>| d.as_ref().is_some_and(|d| !d.is_empty());
        let mut after = vec![false; self.members.len()];
        let mut later = false;
        for (i, (member, databases)) in self.members.iter().zip(&self.databases).enumerate().rev() {
            if let Some(slot) = after.get_mut(i) {
                *slot = later || held(databases);
            }
            later = later || held(databases) || !member.is_empty();
        }
        after
    }

    /// The store list's notes, each store's in list order (with
    /// `all_skipped`, a store whose every file was skipped says so first),
    /// then the ids two stores hold.
    fn notes_of_list(&self, all_skipped: bool) -> Vec<StoreNote> {
        let mut notes: Vec<StoreNote> = self
            .members
            .iter()
            .zip(&self.databases)
            .flat_map(|(m, d)| {
                let mut notes: Vec<StoreNote> = match m {
                    Member::Files(c) => {
                        let skipped = c.all_skipped().filter(|_| all_skipped);
                        skipped.into_iter().chain(c.notes()).collect()
                    }
                    Member::Store(store) if all_skipped => store.status_notes(),
                    Member::Store(store) => store.notes(),
                };
                // A missing root is the catalog's to say.
                notes.extend(
                    d.iter()
                        .flat_map(|d| d.notes())
                        .filter(|n| !matches!(n, StoreNote::Missing { .. })),
                );
                notes
            })
            .collect();
        if self.members.len() < 2 {
            return notes;
        }
        // An id held by two stores: the first store of the list wins.
        let roots = self.roots();
        let after = self.sessions_after();
        let mut winners: HashMap<Cow<'_, str>, usize> = HashMap::new();
        for (i, member) in self.members.iter().enumerate() {
            // The ids of the last store that holds any are only looked up.
            let keep = after.get(i).copied().unwrap_or(true);
            for (id, rel) in member.ids() {
                match winners.get(&id) {
                    Some(&w) => notes.push(StoreNote::Duplicate {
                        rel: format!("{}/{}", roots[i].display(), String::from_utf8_lossy(&rel)),
                        id: id.into_owned(),
                        winner: roots[w].display().to_string(),
                    }),
                    None if keep => {
                        winners.insert(id, i);
                    }
                    None => {}
                }
            }
        }
        notes
    }
}

/// Whether `spec` names one Aider history file rather than a folder (a
/// default store found through a workspace folder).
fn is_single_history(spec: &StoreSpec) -> bool {
    spec.format == FormatChoice::Aider
        && spec.path.file_name() == Some(std::ffi::OsStr::new(formats::aider::FILE_NAME))
        && !spec.path.is_dir()
}

/// What a folder of line logs holds, with the databases an `auto` store
/// found beside them, for `status`.
fn catalog_status(c: &Catalog, databases: Option<&DatabaseStore>) -> StoreStatus {
    let (db_sessions, db_skipped) = databases.map_or((0, 0), DatabaseStore::counts);
    let db_notes = databases.map(SessionStore::notes).unwrap_or_default();
    StoreStatus {
        path: c.display_path().display().to_string(),
        format: c.format().name().to_string(),
        sessions: c.len() + db_sessions,
        skipped_lines: c.skipped_lines() + db_skipped,
        errors: c
            .notes()
            .iter()
            .chain(&db_notes)
            .filter(|n| {
                matches!(
                    n,
                    StoreNote::Unreadable { .. } | StoreNote::FolderUnreadable { .. }
                )
            })
            .map(ToString::to_string)
            .collect(),
    }
}

/// Reads the logs of an [`FsStore`]: a session's file is its store's root
/// joined with its name, never anything derived from its id.
pub struct FsReader {
    roots: Vec<PathBuf>,
    /// By store: the reader of a store of another kind.
    others: Vec<Option<Arc<dyn SessionReader>>>,
}

impl std::fmt::Debug for FsReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsReader")
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

impl FsReader {
    /// The reader of `locator`'s store when its session is a database's
    /// (OpenCode's store, a database store, an `auto` store's databases).
    fn other(&self, locator: &Locator) -> Option<&dyn SessionReader> {
        // Line logs and Aider's histories are files this reader opens;
        // databases and team stores have readers of their own.
        if locator.format != formats::TEAM {
            database::by_name(locator.format)?;
        }
        self.others.get(locator.store)?.as_deref()
    }

    fn path_of(&self, locator: &Locator) -> Option<PathBuf> {
        let root = self.roots.get(locator.store)?;
        Some(root.join(discover::name_path(&locator.name)))
    }
}

impl SessionReader for FsReader {
    fn read_range(
        &self,
        session: &Session,
        limit: Option<u64>,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        if let Some(other) = self.other(&session.locator) {
            return other.read_range(session, limit, cancelled, sink);
        }
        let name = session.locator.display();
        let gone = || {
            ReadError::Log(LogError {
                file: name.clone(),
                line: None,
                reason: "the log is no longer in the store".into(),
            })
        };
        let path = self.path_of(&session.locator).ok_or_else(gone)?;
        let log = FileLog {
            path: &path,
            name: &name,
            limit,
        };
        // One of the runs of an Aider history, found by its id.
        if session.locator.format == formats::aider::NAME {
            return formats::aider::read_run(&log, &name, session.id(), limit, cancelled, sink);
        }
        let format = formats::by_name(session.locator.format).ok_or_else(gone)?;
        let summary = format.read(&log, cancelled, sink)?;
        if summary.header.id != session.header.id {
            // The file was replaced by another session since it was indexed.
            return Err(ReadError::Log(LogError {
                file: name,
                line: Some(1),
                reason: format!("now holds session {:?}", summary.header.id),
            }));
        }
        Ok(summary)
    }

    /// Size, modification and status-change times, identity, and a hash
    /// of the log's first and last blocks: a log rewritten in place to the
    /// same size with its old modification time put back (and a status
    /// change time the clock's granularity hides) is still another version.
    fn version(&self, session: &Session) -> Option<Version> {
        if let Some(other) = self.other(&session.locator) {
            return other.version(session);
        }
        let path = self.path_of(&session.locator)?;
        // Without blocking: whatever was renamed over the log is refused.
        let mut file = fsio::open_regular(&path, Links::NoFollow).ok()?;
        let meta = file.metadata().ok()?;
        let mut key = Vec::with_capacity(96);
        key.extend_from_slice(&(session.locator.store as u64).to_le_bytes());
        key.extend_from_slice(&meta.len().to_le_bytes());
        if let Ok(since) = meta
            .modified()
            .and_then(|m| m.duration_since(UNIX_EPOCH).map_err(io::Error::other))
        {
            key.extend_from_slice(&since.as_nanos().to_le_bytes());
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            key.extend_from_slice(&meta.ino().to_le_bytes());
            key.extend_from_slice(&meta.dev().to_le_bytes());
            key.extend_from_slice(&meta.ctime().to_le_bytes());
            key.extend_from_slice(&meta.ctime_nsec().to_le_bytes());
        }
        key.extend_from_slice(&ends_hash(&mut file, meta.len()).ok()?.to_le_bytes());
        // The side files hold facts of the session too (`workspace.yaml`).
        key.extend_from_slice(&side_stamp(&path, session).to_le_bytes());
        key.extend_from_slice(&session.locator.name);
        // An Aider history holds many sessions: the same file's version
        // must not be another run's (caches key on it).
        if session.locator.format == formats::aider::NAME {
            key.push(b'#');
            key.extend_from_slice(session.id().as_bytes());
        }
        Some(Version(key))
    }

    /// The log's [`Stamp`] (one `stat`, never following a link): what the
    /// catalog compares to decide whether to scan a log again.
    fn stamp(&self, session: &Session) -> Option<Version> {
        // A store of another kind (OpenCode's database) says it itself.
        if let Some(other) = self.other(&session.locator) {
            return other.stamp(session);
        }
        let path = self.path_of(&session.locator)?;
        let stamp = Stamp {
            side: side_stamp(&path, session),
            ..Stamp::of_path(&path)?
        };
        Some(stamp.key(session.locator.store, &session.locator.name))
    }

    fn link_target(&self, session: &Session) -> Option<String> {
        if let Some(other) = self.other(&session.locator) {
            return other.link_target(session);
        }
        let path = self.path_of(&session.locator)?;
        url::Url::from_file_path(path).ok().map(String::from)
    }

    fn remote(&self, session: &Session) -> Option<String> {
        self.other(&session.locator)?.remote(session)
    }

    fn fetch(&self, session: &Session) -> Result<(), ReadError> {
        match self.other(&session.locator) {
            Some(other) => other.fetch(session),
            None => Ok(()),
        }
    }

    fn published(&self, session: &Session) -> Option<PublishedVersion> {
        self.other(&session.locator)?.published(session)
    }
}

/// The stamps of the side files of `session`'s log at `path` folded into
/// one (0 when its format has none): they hold facts of the session too
/// (Copilot CLI's `workspace.yaml`), so a change to one alone is a new
/// version and a new stamp, as it is to the store's own change detection.
fn side_stamp(path: &Path, session: &Session) -> u64 {
    let (Some(format), Some(dir)) = (formats::by_name(session.locator.format), path.parent())
    else {
        return 0;
    };
    let name = discover::file_name(&session.locator.name).as_encoded_bytes();
    let sides = FormatChoice::Fixed(format).side_files_of(name);
    let stamp = Stamp::default().with_sides(dir, sides);
    match FormatChoice::Fixed(format).side_facts_of(path) {
        Some(facts) => stamp.with_facts(facts).side,
        None => stamp.side,
    }
}

/// Bytes of each end of a log that [`FsReader::version`] hashes.
const END_BLOCK: u64 = 4096;

/// A hash of the first and the last [`END_BLOCK`] bytes of `file` (of
/// `size` bytes): where a log rewritten in place differs first (its header)
/// and where it grows.
fn ends_hash(file: &mut File, size: u64) -> io::Result<u64> {
    use std::hash::Hasher;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut block = Vec::with_capacity(END_BLOCK as usize);
    let tail = size.saturating_sub(END_BLOCK).max(END_BLOCK.min(size));
    for start in [0, tail] {
        block.clear();
        file.seek(SeekFrom::Start(start))?;
        (&mut *file).take(END_BLOCK).read_to_end(&mut block)?;
        hasher.write(&block);
    }
    Ok(hasher.finish())
}

/// One log file, as a format reads it.
struct FileLog<'a> {
    path: &'a Path,
    name: &'a str,
    /// Never read past this many bytes.
    limit: Option<u64>,
}

impl LogSource for FileLog<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn open(&self, limit: Option<u64>) -> io::Result<(Box<dyn Read + '_>, u64)> {
        // A FIFO renamed over the log must not hold the read for ever.
        let file = fsio::open_regular(self.path, Links::NoFollow)?;
        let size = file.metadata()?.len();
        let size = limit.into_iter().chain(self.limit).fold(size, u64::min);
        Ok((Box::new(file), size))
    }

    fn modified_ms(&self) -> Option<u64> {
        let modified = std::fs::metadata(self.path).ok()?.modified().ok()?;
        let since = modified.duration_since(UNIX_EPOCH).ok()?;
        u64::try_from(since.as_millis()).ok()
    }

    fn path(&self) -> Option<&Path> {
        Some(self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(dir: &Path, name: &str, id: &str, created_at: u64) {
        let header =
            format!("{{\"type\":\"session\",\"id\":\"{id}\",\"createdAt\":{created_at}}}\n");
        std::fs::write(dir.join(name), header).unwrap();
    }

    #[test]
    fn the_first_store_of_the_list_wins_an_id() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        log(a.path(), "x.jsonl", "shared", 1);
        log(b.path(), "y.jsonl", "shared", 2);
        log(b.path(), "z.jsonl", "only-b", 3);
        let specs = [StoreSpec::auto(a.path()), StoreSpec::auto(b.path())];
        let store = FsStore::open(&specs, Scan::Full);
        assert_eq!(store.get("shared").map(|s| s.header.created_at), Some(1));
        let ids: Vec<String> = store.sessions().into_iter().map(|s| s.header.id).collect();
        assert_eq!(ids, ["shared", "only-b"]);
        assert!(store
            .notes()
            .iter()
            .any(|n| matches!(n, StoreNote::Duplicate { id, .. } if id == "shared")));
        let status = store.status();
        assert_eq!(status.len(), 2);
        assert_eq!((status[0].sessions, status[1].sessions), (1, 2));
        assert_eq!(status[1].format, "auto");
    }

    /// The ids seen are kept only while a later store holds a session: an
    /// empty store between two that share an id still lets the first win,
    /// and a store followed by empty ones lists all its sessions.
    #[test]
    fn an_id_repeated_across_an_empty_store_is_still_told() {
        let dirs: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
        log(dirs[0].path(), "x.jsonl", "shared", 1);
        log(dirs[0].path(), "w.jsonl", "only-a", 4);
        log(dirs[2].path(), "y.jsonl", "shared", 2);
        log(dirs[2].path(), "z.jsonl", "only-c", 3);
        let specs: Vec<_> = dirs.iter().map(|d| StoreSpec::auto(d.path())).collect();
        let store = FsStore::open(&specs, Scan::Full);
        let mut ids: Vec<String> = store.sessions().into_iter().map(|s| s.header.id).collect();
        ids.sort();
        assert_eq!(ids, ["only-a", "only-c", "shared"]);
        assert_eq!(store.get("shared").map(|s| s.header.created_at), Some(1));
        let duplicates: Vec<_> = store
            .notes()
            .into_iter()
            .filter(|n| matches!(n, StoreNote::Duplicate { .. }))
            .collect();
        assert!(
            matches!(&duplicates[..], [StoreNote::Duplicate { id, .. }] if id == "shared"),
            "{duplicates:?}"
        );
        assert_eq!(store.sessions_after(), [true, true, false, false]);
    }

    /// The first scan of a list, store by store: between two stores the
    /// progress callback sees the stores scanned so far, and only those.
    #[test]
    fn a_list_is_updated_one_store_at_a_time() {
        let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
        for (i, dir) in dirs.iter().enumerate() {
            log(dir.path(), "s.jsonl", &format!("s{i}"), 1);
        }
        let specs: Vec<StoreSpec> = dirs.iter().map(|d| StoreSpec::auto(d.path())).collect();
        let mut store = FsStore::unscanned(&specs, Scan::Full);
        let mut seen: Vec<Vec<String>> = Vec::new();
        let changed = store.update_in_parts(&mut |partial| {
            seen.push(
                partial
                    .sessions()
                    .into_iter()
                    .map(|s| s.header.id)
                    .collect(),
            );
        });
        assert!(changed);
        assert_eq!(seen, [vec!["s0"], vec!["s0", "s1"]]);
        assert_eq!(store.len(), 3);
        // One store: one part, no progress.
        let mut one = FsStore::unscanned(&specs[..1], Scan::Full);
        one.update_in_parts(&mut |_| panic!("a store of one part"));
        assert_eq!(one.len(), 1);
    }

    /// The stamp the catalog puts in each session is the reader's, to the
    /// bit (so the search index needs no `stat` to compare, and an index
    /// built before it is not rebuilt), side files included: a change to
    /// `workspace.yaml` alone changes both alike.
    #[test]
    fn a_listed_session_carries_the_readers_stamp() {
        let (hydra, copilot) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        log(hydra.path(), "s.jsonl", "s", 1);
        let id = "4b7c9e21-0d3a-4f5e-8a61-93c2d7e0f118";
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/copilot-cli/session-state")
            .join(id);
        let folder = copilot.path().join(id);
        std::fs::create_dir(&folder).unwrap();
        for name in ["events.jsonl", "workspace.yaml"] {
            std::fs::copy(from.join(name), folder.join(name)).unwrap();
        }
        let specs = [
            StoreSpec::auto(hydra.path()),
            StoreSpec::auto(copilot.path()),
        ];
        let stamps = || {
            let store = FsStore::open(&specs, Scan::Full);
            let reader = store.reader();
            let sessions = store.sessions();
            assert_eq!(sessions.len(), 2);
            sessions
                .iter()
                .map(|s| {
                    let read = reader.stamp(s).map(|v| v.token());
                    assert_eq!(Some(s.stamp), read, "{}", s.header.id);
                    (s.header.id.clone(), s.stamp)
                })
                .collect::<Vec<_>>()
        };
        let before = stamps();
        assert!(before.iter().all(|(_, stamp)| *stamp != 0));
        std::fs::write(folder.join("workspace.yaml"), "name: Renamed\n").unwrap();
        let after = stamps();
        assert_eq!(before[0], after[0], "the hydra log did not change");
        assert_ne!(before[1], after[1], "the side file changed");
    }

    #[test]
    fn a_session_is_read_through_its_store_and_linked_to_its_file() {
        let dir = tempfile::tempdir().unwrap();
        log(dir.path(), "s.jsonl", "s", 1);
        let store = FsStore::scan(dir.path());
        let session = store.get("s").unwrap();
        let reader = store.reader();
        let summary = reader.read(&session, &|| false, &mut |_| {}).unwrap();
        assert_eq!(summary.header.id, "s");
        assert!(reader.link_target(&session).unwrap().ends_with("/s.jsonl"));
        let before = reader.version(&session).unwrap();
        std::fs::write(
            dir.path().join("s.jsonl"),
            "{\"type\":\"session\",\"id\":\"t\",\"createdAt\":1}\n",
        )
        .unwrap();
        assert_ne!(reader.version(&session), Some(before));
        // The file now holds another session: the read says so.
        assert!(reader.read(&session, &|| false, &mut |_| {}).is_err());
    }

    /// Issue 18, item 3: a FIFO renamed over an indexed log fails the read
    /// at once (the open used to wait for a writer, for ever).
    #[cfg(unix)]
    #[test]
    fn a_fifo_renamed_over_a_log_fails_the_read_at_once() {
        let dir = tempfile::tempdir().unwrap();
        log(dir.path(), "s.jsonl", "s", 1);
        let store = FsStore::scan(dir.path());
        let session = store.get("s").unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        std::fs::rename(&fifo, dir.path().join("s.jsonl")).unwrap();
        let reader = store.reader();
        let err = reader.read(&session, &|| false, &mut |_| {}).unwrap_err();
        assert!(format!("{err:?}").contains("not a regular file"), "{err:?}");
        assert_eq!(reader.version(&session), None);
    }

    /// Issue 18, item 5: the same size, the old modification time put back
    /// and the same inode: still another version (the snapshot cache must
    /// not serve the old text).
    #[test]
    fn a_log_rewritten_in_place_with_its_old_times_is_another_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let body = |title: &str| {
            format!(
                "{{\"type\":\"session\",\"id\":\"s\",\"createdAt\":1}}\n{{\"seq\":1,\"type\":\"session/title\",\"data\":{{\"title\":\"{title}\"}}}}\n"
            )
        };
        std::fs::write(&path, body("Old")).unwrap();
        let store = FsStore::scan(dir.path());
        let session = store.get("s").unwrap();
        let reader = store.reader();
        let before = reader.version(&session).unwrap();
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut file, body("New").as_bytes()).unwrap();
        file.set_modified(mtime).unwrap();
        drop(file);
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
        assert_ne!(reader.version(&session), Some(before));
    }
}
