//! The session index in memory: the core [`Catalog`], kept fresh by a
//! file watcher, published as an immutable [`View`] that handlers read
//! without locks held across work (completion reads no log per keystroke).
//!
//! A watcher event on a log refreshes that one path (the catalog reads only
//! the appended lines); a directory event, an overflow or the root coming
//! and going rescans, which reuses every unchanged file.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::store::{Catalog, Session};

/// Quiet time that ends a burst of file events.
const BURST_QUIET: Duration = Duration::from_millis(25);
/// A steady stream of events is still applied this often.
const BURST_MAX: Duration = Duration::from_millis(200);

/// An immutable snapshot of the store's sessions.
#[derive(Debug, Default)]
pub struct View {
    pub sessions: Vec<Session>,
    by_id: HashMap<String, usize>,
}

impl View {
    fn new(catalog: &Catalog) -> Self {
        let sessions = catalog.sessions();
        let by_id = sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.header.id.clone(), i))
            .collect();
        View { sessions, by_id }
    }

    pub fn get(&self, id: &str) -> Option<&Session> {
        self.by_id.get(id).and_then(|&i| self.sessions.get(i))
    }
}

/// What the server hears from the index.
#[derive(Debug)]
pub enum IndexEvent {
    /// The sessions changed: diagnostics may have changed too.
    Changed,
    /// Store warnings not reported before (skipped files, duplicates).
    Notes(Vec<String>),
}

pub struct Index {
    view: RwLock<Arc<View>>,
    root: RwLock<PathBuf>,
    /// The catalog between updates; taken out while a blocking task works on it.
    catalog: Mutex<Option<Catalog>>,
    /// Bumped by every (re)start: work of an older store is dropped.
    generation: AtomicU64,
    indexing: AtomicBool,
    ready: watch::Sender<bool>,
    watcher: Mutex<Option<RecommendedWatcher>>,
    reported: Mutex<HashSet<String>>,
    events: mpsc::UnboundedSender<IndexEvent>,
}

impl Index {
    pub fn new() -> (Arc<Index>, mpsc::UnboundedReceiver<IndexEvent>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let index = Index {
            view: RwLock::default(),
            root: RwLock::default(),
            catalog: Mutex::new(None),
            generation: AtomicU64::new(0),
            indexing: AtomicBool::new(false),
            ready: watch::Sender::new(false),
            watcher: Mutex::new(None),
            reported: Mutex::default(),
            events,
        };
        (Arc::new(index), receiver)
    }

    /// The current sessions.
    pub fn view(&self) -> Arc<View> {
        self.view.read().map(|v| v.clone()).unwrap_or_default()
    }

    pub fn root(&self) -> PathBuf {
        self.root.read().map(|r| r.clone()).unwrap_or_default()
    }

    pub fn is_indexing(&self) -> bool {
        self.indexing.load(Ordering::SeqCst)
    }

    pub fn is_started(&self) -> bool {
        self.generation.load(Ordering::SeqCst) > 0
    }

    /// Waits until the first index is built.
    pub async fn ready(&self) {
        let mut ready = self.ready.subscribe();
        let _ = ready.wait_for(|r| *r).await;
    }

    /// Indexes `root` (in a blocking task) and watches it from now on,
    /// replacing any store indexed before.
    pub fn start(self: &Arc<Self>, root: PathBuf) {
        let root = absolute(root);
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        self.indexing.store(true, Ordering::SeqCst);
        if let Ok(mut r) = self.root.write() {
            r.clone_from(&root);
        }
        if let Ok(mut reported) = self.reported.lock() {
            reported.clear();
        }
        // Watch before scanning, so nothing written during the scan is lost:
        // its events wait in the channel and are applied after the scan.
        let (sender, receiver) = mpsc::unbounded_channel();
        let watcher = make_watcher(sender, &root);
        if let Ok(mut slot) = self.watcher.lock() {
            *slot = watcher;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let scan_root = root.clone();
            let scanned = tokio::task::spawn_blocking(move || {
                let catalog = Catalog::scan(&scan_root);
                let view = View::new(&catalog);
                (catalog, view)
            })
            .await;
            let Ok((catalog, view)) = scanned else {
                tracing::error!("indexing the session store stopped unexpectedly");
                return;
            };
            if !this.is_current(generation) {
                return;
            }
            tracing::debug!(
                "indexed {} sessions in {}",
                view.sessions.len(),
                root.display()
            );
            this.install(catalog, view);
            this.indexing.store(false, Ordering::SeqCst);
            this.ready.send_replace(true);
            this.pump(receiver, generation, root).await;
        });
    }

    fn is_current(&self, generation: u64) -> bool {
        self.generation.load(Ordering::SeqCst) == generation
    }

    fn install(&self, catalog: Catalog, view: View) {
        let notes: Vec<String> = catalog.notes().iter().map(ToString::to_string).collect();
        if let Ok(mut slot) = self.view.write() {
            *slot = Arc::new(view);
        }
        if let Ok(mut slot) = self.catalog.lock() {
            *slot = Some(catalog);
        }
        let fresh: Vec<String> = match self.reported.lock() {
            Ok(mut reported) => notes
                .into_iter()
                .filter(|n| reported.insert(n.clone()))
                .collect(),
            Err(_) => Vec::new(),
        };
        if !fresh.is_empty() {
            let _ = self.events.send(IndexEvent::Notes(fresh));
        }
        let _ = self.events.send(IndexEvent::Changed);
    }

    /// Applies file events in bursts until the store is replaced.
    async fn pump(
        self: Arc<Self>,
        mut receiver: mpsc::UnboundedReceiver<notify::Result<Event>>,
        generation: u64,
        root: PathBuf,
    ) {
        while let Some(first) = receiver.recv().await {
            let mut batch = Batch::default();
            batch.add(first, &root);
            let deadline = Instant::now() + BURST_MAX;
            let mut open = true;
            while Instant::now() < deadline {
                match tokio::time::timeout(BURST_QUIET, receiver.recv()).await {
                    Ok(Some(event)) => batch.add(event, &root),
                    Ok(None) => {
                        open = false;
                        break;
                    }
                    Err(_) => break,
                }
            }
            if !self.is_current(generation) {
                return;
            }
            if !batch.is_empty() {
                self.apply(batch, generation, &root).await;
            }
            if !open {
                return;
            }
        }
    }

    async fn apply(self: &Arc<Self>, batch: Batch, generation: u64, root: &Path) {
        let Some(mut catalog) = self.catalog.lock().ok().and_then(|mut c| c.take()) else {
            return;
        };
        if batch.rearm {
            if let Ok(mut watcher) = self.watcher.lock() {
                if let Some(watcher) = watcher.as_mut() {
                    arm(watcher, root);
                }
            }
        }
        tracing::debug!(
            "store events: {} paths, rescan {}",
            batch.paths.len(),
            batch.rescan
        );
        let worked = tokio::task::spawn_blocking(move || {
            let changed = if batch.rescan {
                catalog.rescan();
                true
            } else {
                batch
                    .paths
                    .iter()
                    .fold(false, |changed, path| catalog.refresh_path(path) | changed)
            };
            let view = changed.then(|| View::new(&catalog));
            (catalog, view)
        })
        .await;
        let Ok((catalog, view)) = worked else {
            tracing::error!("updating the session index stopped unexpectedly");
            return;
        };
        if !self.is_current(generation) {
            return;
        }
        match view {
            Some(view) => self.install(catalog, view),
            None => {
                if let Ok(mut slot) = self.catalog.lock() {
                    *slot = Some(catalog);
                }
            }
        }
    }
}

/// The paths a burst of events touched, and whether it needs a rescan.
#[derive(Debug, Default)]
struct Batch {
    paths: BTreeSet<PathBuf>,
    rescan: bool,
    /// The root itself came or went: watch it again.
    rearm: bool,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.rescan
    }

    fn add(&mut self, event: notify::Result<Event>, root: &Path) {
        let Ok(event) = event else {
            self.rescan = true;
            return;
        };
        if event.need_rescan() {
            self.rescan = true;
        }
        let structural = matches!(
            event.kind,
            EventKind::Create(_)
                | EventKind::Remove(_)
                | EventKind::Modify(ModifyKind::Name(_))
                | EventKind::Any
                | EventKind::Other
        );
        // Reads are events too (our own reads of logs and directories
        // among them): only a finished write matters.
        let relevant = match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
            EventKind::Access(_) => false,
            _ => true,
        };
        if !relevant {
            return;
        }
        for path in event.paths {
            if path == root {
                if structural {
                    self.rescan = true;
                    self.rearm = true;
                }
            } else if !path.starts_with(root) {
                // A sibling of the root, seen through the parent's watch.
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                self.paths.insert(path);
            } else if structural {
                // A directory came, went or moved: what it held is unknown.
                self.rescan = true;
            }
        }
    }
}

fn make_watcher(
    sender: mpsc::UnboundedSender<notify::Result<Event>>,
    root: &Path,
) -> Option<RecommendedWatcher> {
    let handler = move |event: notify::Result<Event>| {
        let _ = sender.send(event);
    };
    match notify::recommended_watcher(handler) {
        Ok(mut watcher) => {
            arm(&mut watcher, root);
            Some(watcher)
        }
        Err(e) => {
            tracing::warn!("cannot watch the session store: {e}; changes show after a restart");
            None
        }
    }
}

/// Watches the root recursively, and its parent (not recursively) so the
/// root's creation or removal is seen too.
fn arm(watcher: &mut RecommendedWatcher, root: &Path) {
    if let Some(parent) = root.parent().filter(|p| p.is_dir()) {
        let _ = watcher.watch(parent, RecursiveMode::NonRecursive);
    }
    if root.is_dir() {
        if let Err(e) = watcher.watch(root, RecursiveMode::Recursive) {
            tracing::warn!("cannot watch {}: {e}", root.display());
        }
    }
}

fn absolute(path: PathBuf) -> PathBuf {
    if path.is_absolute() {
        return path;
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(&path))
        .unwrap_or(path)
}
