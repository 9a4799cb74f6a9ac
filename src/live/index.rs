//! The session index in memory: a [`SessionStore`], kept fresh by its own
//! change reports, published as an immutable [`View`] that handlers read
//! without locks held across work (completion reads no log per keystroke).
//!
//! Change reports come in bursts (a log being written, a folder moved):
//! the index waits for a short quiet time, then applies them all at once on
//! the blocking pool.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::view::View;
use crate::model::{SessionStore, Wake};
use crate::store::StoreSpec;

/// Quiet time that ends a burst of change reports.
const BURST_QUIET: Duration = Duration::from_millis(25);
/// A steady stream of changes is still applied this often.
const BURST_MAX: Duration = Duration::from_millis(200);
/// How long completion waits for the first index before it answers with
/// what is indexed so far (marked incomplete, so the editor asks again):
/// a cold page cache makes a 1 GB store's first index take 20 s, and a
/// person typing `@` meanwhile must not see completion hang.
pub const FIRST_INDEX_GRACE: Duration = Duration::from_secs(2);

/// What a face hears from the index.
#[derive(Debug)]
pub enum IndexEvent {
    /// The sessions changed: diagnostics may have changed too.
    Changed,
    /// Store warnings not reported before (skipped files, duplicates).
    Notes(Vec<String>),
}

pub struct LiveIndex {
    view: RwLock<Arc<View>>,
    /// Where the current store list is, for messages.
    roots: RwLock<Vec<String>>,
    /// The current store list, as resolved when it was started: what a
    /// request searches, read without looking at the disk again.
    specs: RwLock<Vec<StoreSpec>>,
    /// The store between updates; taken out while a blocking task works on it.
    store: Mutex<Option<Box<dyn SessionStore>>>,
    /// Bumped by every (re)start of a store list (not a view's number:
    /// that is [`View::generation`]): work of an older list is dropped.
    run: AtomicU64,
    indexing: AtomicBool,
    /// The first index of the current list is built: every log checked.
    ready: watch::Sender<bool>,
    /// A view of the whole current list is published: the recorded one
    /// ([`SessionStore::load_recorded`]) or the first checked one.
    listed: watch::Sender<bool>,
    reported: Mutex<HashSet<String>>,
    events: mpsc::UnboundedSender<IndexEvent>,
    /// The current store's [`SessionStore::refresher`].
    refresher: RwLock<Option<Wake>>,
}

impl LiveIndex {
    pub fn new() -> (Arc<LiveIndex>, mpsc::UnboundedReceiver<IndexEvent>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let index = LiveIndex {
            view: RwLock::default(),
            roots: RwLock::default(),
            specs: RwLock::default(),
            store: Mutex::new(None),
            run: AtomicU64::new(0),
            indexing: AtomicBool::new(false),
            ready: watch::Sender::new(false),
            listed: watch::Sender::new(false),
            reported: Mutex::default(),
            events,
            refresher: RwLock::default(),
        };
        (Arc::new(index), receiver)
    }

    /// The current sessions.
    pub fn view(&self) -> Arc<View> {
        self.view.read().map(|v| v.clone()).unwrap_or_default()
    }

    /// The store list being indexed (see [`LiveIndex::start`]).
    pub fn specs(&self) -> Vec<StoreSpec> {
        self.specs.read().map(|s| s.clone()).unwrap_or_default()
    }

    /// The roots of the store list, for messages.
    pub fn roots(&self) -> Vec<String> {
        self.roots.read().map(|r| r.clone()).unwrap_or_default()
    }

    pub fn is_indexing(&self) -> bool {
        self.indexing.load(Ordering::SeqCst)
    }

    pub fn is_started(&self) -> bool {
        self.run.load(Ordering::SeqCst) > 0
    }

    /// Waits until the first index of the current store list is built.
    pub async fn ready(&self) {
        let mut ready = self.ready.subscribe();
        let _ = ready.wait_for(|r| *r).await;
    }

    /// Waits until a view of the whole current store list is published:
    /// the one listed from the store's record (the on-disk index cache)
    /// before any log is checked, else the first index. What only lists
    /// (`resources/list`, completion of a template) waits for this; a
    /// view it gives may say [`View::recorded`], and the checked view
    /// that replaces it is announced as a change when it differs.
    pub async fn listed(&self) {
        let mut listed = self.listed.subscribe();
        let _ = listed.wait_for(|l| *l).await;
    }

    /// The view to read session `id` in, as soon as one serves: the
    /// recorded view while that session's log is as recorded (one `stat`
    /// of it, off the async workers), else the first index, every log
    /// checked (a log changed or gone since the record is then read, or
    /// not found, as the store is now).
    pub async fn view_to_read(&self, id: &str) -> Arc<View> {
        self.listed().await;
        let view = self.view();
        if view.recorded {
            let (checked, id) = (view.clone(), id.to_string());
            let current = tokio::task::spawn_blocking(move || checked.is_current(&id)).await;
            if matches!(current, Ok(true)) {
                return view;
            }
            self.ready().await;
            return self.view();
        }
        view
    }

    /// Waits until the first index of the current store list is built, at
    /// most `grace`: whether it is.
    pub async fn ready_within(&self, grace: Duration) -> bool {
        tokio::time::timeout(grace, self.ready()).await.is_ok()
    }

    /// Indexes `store` (in a blocking task) and follows its changes from
    /// now on, replacing any store indexed before. `roots` names it.
    pub fn start(self: &Arc<Self>, mut store: Box<dyn SessionStore>, specs: Vec<StoreSpec>) {
        let roots = specs.iter().map(|s| s.path.display().to_string()).collect();
        if let Ok(mut s) = self.specs.write() {
            *s = specs;
        }
        let run = self.run.fetch_add(1, Ordering::SeqCst) + 1;
        self.indexing.store(true, Ordering::SeqCst);
        // What waits for the sessions (a search, `prepare`, diagnostics)
        // must see the new list's, not the view of the list it replaces.
        self.ready.send_replace(false);
        self.listed.send_replace(false);
        if run > 1 {
            // Completion answers from what is indexed so far: of the new
            // list, nothing yet, rather than the sessions of the old one.
            self.publish_partial(View::empty());
        }
        if let Ok(mut r) = self.roots.write() {
            *r = roots;
        }
        if let Ok(mut reported) = self.reported.lock() {
            reported.clear();
        }
        let (wake, woken) = mpsc::unbounded_channel();
        let this = self.clone();
        let publisher = self.clone();
        tokio::spawn(async move {
            let scanned = tokio::task::spawn_blocking(move || {
                hold_for_test();
                // What the store recorded is listed at once (a warm start
                // of 100,000 sessions would otherwise wait seconds for a
                // stat of every log), and then checked.
                let recorded = store
                    .load_recorded()
                    .then(|| Arc::new(View::recorded(&*store)));
                if let Some(view) = &recorded {
                    if publisher.is_current(run) {
                        publisher.publish_recorded(view.clone());
                    }
                    hold_for_test();
                }
                // Watch before the first scan (the check of a record is
                // one), so nothing written during it is lost: it is applied
                // by the next update. After the recorded view, though:
                // watching a large tree takes long, and the first page need
                // not wait for it.
                store.watch(Arc::new(move || {
                    let _ = wake.send(());
                }));
                // A team store's refresher exists once it is watched.
                if let Ok(mut slot) = publisher.refresher.write() {
                    *slot = store.refresher();
                }
                // Between the stores of the list, and between the batches
                // of a large store, what is indexed so far is the view: a
                // cold first scan of 1 GB takes long, and completion
                // answers meanwhile with this. A recorded view lists more
                // than any part of the check, and stays.
                store.update_in_parts(&mut |partial| {
                    if recorded.is_none() && publisher.is_current(run) {
                        publisher.publish_partial(View::new(partial));
                    }
                    hold_for_test();
                });
                let view = match &recorded {
                    Some(recorded) => View::checked(&*store, recorded),
                    None => View::new(&*store),
                };
                let changed = recorded.as_ref().is_none_or(|r| !r.lists_as(&view));
                (store, view, changed)
            })
            .await;
            let Ok((store, view, changed)) = scanned else {
                tracing::error!("indexing the session store stopped unexpectedly");
                return;
            };
            if !this.is_current(run) {
                return;
            }
            tracing::debug!("indexed {} sessions", view.len());
            this.install(store, view, changed);
            // What the first index freed (the partial views just replaced
            // among it) goes back to the system, off the async workers.
            drop(tokio::task::spawn_blocking(crate::heap::give_back_freed));
            this.listed.send_replace(true);
            this.indexing.store(false, Ordering::SeqCst);
            this.ready.send_replace(true);
            this.pump(woken, run).await;
        });
    }

    /// Has the stores that poll (team stores) look again now: after a
    /// publish, so the published session is listed without waiting for
    /// the next poll. Its outcome comes as any change does.
    pub fn refresh(&self) {
        let refresh = self.refresher.read().ok().and_then(|r| r.clone());
        if let Some(refresh) = refresh {
            refresh();
        }
    }

    fn is_current(&self, run: u64) -> bool {
        self.run.load(Ordering::SeqCst) == run
    }

    /// The view of a scan not finished yet: no event, since diagnostics
    /// wait for the whole first index (only completion reads it early).
    fn publish_partial(&self, view: View) {
        tracing::debug!("indexed {} sessions so far", view.len());
        if let Ok(mut slot) = self.view.write() {
            *slot = Arc::new(view);
        }
    }

    /// The view of what the store recorded, before any log is checked:
    /// the whole list, so what only lists answers from it
    /// ([`LiveIndex::listed`]). It is the first index a face hears of;
    /// the checked one is a change only where it differs.
    fn publish_recorded(&self, view: Arc<View>) {
        tracing::debug!("listed {} recorded sessions", view.len());
        if let Ok(mut slot) = self.view.write() {
            *slot = view;
        }
        self.listed.send_replace(true);
        let _ = self.events.send(IndexEvent::Changed);
    }

    /// Installs `view` of `store`; `changed` says whether the faces are
    /// told (a checked view that lists what the recorded one did is not
    /// news, though its notes and status replace the recorded ones).
    fn install(&self, store: Box<dyn SessionStore>, view: View, changed: bool) {
        let notes: Vec<String> = view.notes.iter().map(ToString::to_string).collect();
        let fresh: Vec<String> = match self.reported.lock() {
            Ok(mut reported) => notes
                .into_iter()
                .filter(|n| reported.insert(n.clone()))
                .collect(),
            Err(_) => Vec::new(),
        };
        if let Ok(mut slot) = self.view.write() {
            *slot = Arc::new(view);
        }
        if let Ok(mut slot) = self.store.lock() {
            *slot = Some(store);
        }
        if !fresh.is_empty() {
            let _ = self.events.send(IndexEvent::Notes(fresh));
        }
        if changed {
            let _ = self.events.send(IndexEvent::Changed);
        }
    }

    /// Applies change reports in bursts until the store is replaced.
    async fn pump(self: Arc<Self>, mut woken: mpsc::UnboundedReceiver<()>, run: u64) {
        while woken.recv().await.is_some() {
            let deadline = Instant::now() + BURST_MAX;
            let mut open = true;
            while Instant::now() < deadline {
                match tokio::time::timeout(BURST_QUIET, woken.recv()).await {
                    Ok(Some(())) => {}
                    Ok(None) => {
                        open = false;
                        break;
                    }
                    Err(_) => break,
                }
            }
            if !self.is_current(run) {
                return;
            }
            self.apply(run).await;
            if !open {
                return;
            }
        }
    }

    async fn apply(self: &Arc<Self>, run: u64) {
        let Some(mut store) = self.store.lock().ok().and_then(|mut c| c.take()) else {
            return;
        };
        let worked = tokio::task::spawn_blocking(move || {
            let changed = store.update();
            let view = changed.then(|| View::new(&*store));
            (store, view)
        })
        .await;
        let Ok((store, view)) = worked else {
            tracing::error!("updating the session index stopped unexpectedly");
            return;
        };
        if !self.is_current(run) {
            return;
        }
        match view {
            Some(view) => self.install(store, view, true),
            None => {
                if let Ok(mut slot) = self.store.lock() {
                    *slot = Some(store);
                }
            }
        }
    }
}

/// Test hook, in debug builds only: when `HYDRA_SESSION_TEST_INDEX_GATE`
/// names a FIFO, every scan of a new store list waits until a test has
/// opened that FIFO for writing and closed it (opening a FIFO for reading
/// blocks until a writer comes; reading ends when it leaves), before it
/// starts, after the view of the store's record is published (a warm
/// start), and again after each part but the last, a store of the list or
/// a batch of a store's logs (once what is indexed so far is published;
/// `HYDRA_SESSION_TEST_SCAN_BATCH` makes the batches small). A test can then ask for completion
/// while the first index is still being built, without guessing how long a
/// scan takes.
fn hold_for_test() {
    #[cfg(debug_assertions)]
    if let Some(gate) = std::env::var_os("HYDRA_SESSION_TEST_INDEX_GATE") {
        let _ = std::fs::read(gate);
    }
}
