//! The server's state: client, documents, settings, workspace folders,
//! the store index and the snapshot cache. Behaviour lives elsewhere
//! (`lifecycle` for notifications, `handlers` for requests), so the state
//! depends on neither.

use std::ops::Deref;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::mpsc;
use tower_lsp::lsp_types::Url;
use tower_lsp::Client;

use super::cache::SnapshotCache;
use super::index::{Index, IndexEvent, View};
use super::settings::Settings;
use super::state::Documents;
use super::workspace::Workspace;
use crate::config::{self, paths, spill};
use crate::proto::position::Encoding;
use crate::spill::Spill;
use crate::store::{FsStore, Scan, StoreSpec};

/// What the client said it can do, read once at `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientFlags {
    /// `workspace.configuration`: we may pull settings.
    pub configuration: bool,
    /// `window.workDoneProgress`: we may create a progress token.
    pub work_done_progress: bool,
}

/// The language server; cheap to clone into background tasks.
#[derive(Clone)]
pub struct Backend(Arc<Shared>);

pub struct Shared {
    pub client: Client,
    pub documents: Documents,
    pub index: Arc<Index>,
    pub cache: SnapshotCache,
    pub(super) settings: RwLock<Settings>,
    pub(super) workspace: RwLock<Workspace>,
    pub(super) encoding: RwLock<Encoding>,
    pub(super) flags: RwLock<ClientFlags>,
    /// Index events, until `initialized` starts their consumer.
    pub(super) index_events: Mutex<Option<mpsc::UnboundedReceiver<IndexEvent>>>,
    /// Why `initializationOptions` were rejected, shown once initialized.
    pub(super) rejected_options: Mutex<Option<String>>,
    /// `initialize` has been handled.
    pub(super) initialized: AtomicBool,
    pub(super) shut_down: Arc<AtomicBool>,
    /// A `workspace/configuration` pull is waiting for the client's answer.
    pub(super) pulling: AtomicBool,
    /// Another pull was asked for while one was waiting.
    pub(super) pull_again: AtomicBool,
}

impl Deref for Backend {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl Backend {
    pub fn new(client: Client, shut_down: Arc<AtomicBool>) -> Self {
        let (index, index_events) = Index::new();
        Backend(Arc::new(Shared {
            client,
            documents: Documents::default(),
            index,
            cache: SnapshotCache::default(),
            settings: RwLock::default(),
            workspace: RwLock::default(),
            encoding: RwLock::default(),
            flags: RwLock::default(),
            index_events: Mutex::new(Some(index_events)),
            rejected_options: Mutex::new(None),
            initialized: AtomicBool::new(false),
            shut_down,
            pulling: AtomicBool::new(false),
            pull_again: AtomicBool::new(false),
        }))
    }

    pub fn settings(&self) -> Settings {
        let mut settings = self.settings.read().map(|s| s.clone()).unwrap_or_default();
        // In an agent's external-editor route the edited session is `self`
        // unless the client names a target.
        if settings.target_session_id.is_none() {
            settings.target_session_id = config::editor_session::launching_session();
        }
        settings
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding.read().map(|e| *e).unwrap_or_default()
    }

    /// The spill store `sessionReference/prepare` writes to; `None` when
    /// spilling is disabled. A relative `spillDir` is under the first
    /// workspace folder.
    pub fn spill(&self, settings: &Settings) -> Option<Spill> {
        let dir = match settings.spill_dir.as_deref() {
            None => spill::default_dir(),
            Some(dir) => {
                let first = self.workspace.read().ok().and_then(|w| w.first_folder());
                spill::configured_dir(dir, &first.unwrap_or_else(paths::current_dir))
            }
        };
        let roots: Vec<_> = self
            .configured_stores()
            .into_iter()
            .map(|s| s.path)
            .collect();
        Spill::for_setting(&dir, settings.limits.spill_max_bytes).map(|s| s.outside_of(&roots))
    }

    pub fn target_cwd(&self, document: &Url) -> Option<String> {
        self.workspace
            .read()
            .ok()
            .and_then(|w| w.target_cwd(document))
    }

    /// Indexes the configured stores (relative paths under the first
    /// workspace folder), replacing what was indexed before.
    pub(super) fn start_index(&self) {
        let specs = self.configured_stores();
        let roots = specs.iter().map(|s| s.path.display().to_string()).collect();
        self.index
            .start(Box::new(FsStore::unscanned(&specs, Scan::Full)), roots);
    }

    /// The stores the settings name (relative paths under the first
    /// workspace folder).
    fn configured_stores(&self) -> Vec<StoreSpec> {
        let first = self.workspace.read().ok().and_then(|w| w.first_folder());
        let base = first.unwrap_or_else(paths::current_dir);
        // Settings were validated when applied: a failure here is a bug,
        // and the defaults are the safe answer.
        config::resolve_stores(&self.settings().store, &base)
            .unwrap_or_else(|_| config::default_stores())
    }

    /// The roots of the stores the settings name, as `start_index` would
    /// index them.
    pub fn configured_roots(&self) -> Vec<String> {
        self.configured_stores()
            .iter()
            .map(|s| s.path.display().to_string())
            .collect()
    }

    /// Starts indexing if nothing did yet (a client that never sends
    /// `initialized` still gets answers).
    pub(super) fn ensure_index(&self) {
        if !self.index.is_started() {
            self.start_index();
        }
    }

    /// The sessions, once the first index is built.
    pub async fn sessions(&self) -> Arc<View> {
        self.ensure_index();
        self.index.ready().await;
        self.index.view()
    }
}
