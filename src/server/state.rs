//! The server state: everything the client's notifications change — open
//! documents, settings, encoding, workspace folders, what the client can
//! do — owned by the main loop and changed only there, in arrival order
//! (as ruff_server's `Session`). Requests read it through a
//! [`RequestView`] taken on the loop.

use std::sync::Arc;

use lsp_types::Url;
use tokio::sync::mpsc;

use super::documents::Documents;
use super::lsp_ext;
use super::request_view::{search_off, RequestView};
use super::settings::Settings;
use super::shared::{self, Shared};
use super::workspace::Workspace;
use crate::config;
use crate::live::IndexEvent;
use crate::model::{SearchStatus, StoreStatus};
use crate::proto::position::Encoding;
use crate::store::{FsStore, Scan};

/// What the client said it can do, read once at `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientFlags {
    /// `workspace.configuration`: we may pull settings.
    pub configuration: bool,
    /// `window.workDoneProgress`: we may create a progress token.
    pub work_done_progress: bool,
}

pub struct ServerState {
    pub shared: Arc<Shared>,
    pub(super) documents: Documents,
    pub(super) settings: Settings,
    pub(super) encoding: Encoding,
    pub(super) workspace: Workspace,
    pub(super) flags: ClientFlags,
    /// Index events, until `initialized` starts their consumer.
    pub(super) index_events: Option<mpsc::UnboundedReceiver<IndexEvent>>,
    /// Why `initializationOptions` were rejected, shown once initialized.
    pub(super) rejected_options: Option<String>,
    /// `initialize` has been handled.
    pub initialized: bool,
    /// `shutdown` has been handled.
    pub shut_down: bool,
    /// A `workspace/configuration` pull is waiting for the client.
    pub(super) pulling: bool,
    /// Another pull was asked for while one was waiting.
    pub(super) pull_again: bool,
}

impl ServerState {
    pub fn new(shared: Arc<Shared>, index_events: mpsc::UnboundedReceiver<IndexEvent>) -> Self {
        ServerState {
            shared,
            documents: Documents::default(),
            settings: Settings::default(),
            encoding: Encoding::default(),
            workspace: Workspace::default(),
            flags: ClientFlags::default(),
            index_events: Some(index_events),
            rejected_options: None,
            initialized: false,
            shut_down: false,
            pulling: false,
            pull_again: false,
        }
    }

    /// The settings, `targetSessionId` resolved: in an agent's
    /// external-editor route the edited session is `self` unless the
    /// client names a target.
    pub fn settings(&self) -> Settings {
        let mut settings = self.settings.clone();
        if settings.target_session_id.is_none() {
            settings.target_session_id = config::editor_session::launching_session();
        }
        settings
    }

    /// The view of a request about `uri` (or no document). Starts the
    /// index if nothing did yet: a client that never sends `initialized`
    /// still gets answers.
    pub fn request_view(&self, uri: Option<&Url>) -> RequestView {
        self.ensure_index();
        let document =
            uri.and_then(|uri| self.documents.snapshot(uri).map(|doc| (uri.clone(), doc)));
        RequestView::new(
            self.shared.clone(),
            self.settings(),
            self.encoding,
            self.workspace.clone(),
            document,
        )
    }

    /// Indexes the configured stores, replacing what was indexed before.
    pub(super) fn start_index(&self) {
        let specs = shared::configured_stores(&self.settings(), &self.workspace);
        // From the on-disk index cache, as the CLI and the MCP server: a
        // log unchanged since the last run is not read again, and its
        // session is held as the cache's bytes, not as a scanner (at
        // 100,000 logs the scanners alone were 24 MB, docs/performance.md).
        // Only while search is on: with it off, nothing is written under
        // the cache directory (docs/search.md "Turning it off").
        let mut store = FsStore::unscanned(&specs, Scan::Full);
        let cache_dir = config::paths::index_cache_dir()
            .filter(|_| search_off(self.shared.no_search_index, &self.settings()).is_none());
        if let Some(dir) = cache_dir {
            store = store.with_index_cache(&specs, &dir);
        }
        self.shared.index.start(Box::new(store), specs);
    }

    pub(super) fn ensure_index(&self) {
        if !self.shared.index.is_started() {
            self.start_index();
        }
    }

    /// The roots of the stores the settings name, as `start_index` would
    /// index them.
    fn configured_roots(&self) -> Vec<String> {
        shared::configured_stores(&self.settings(), &self.workspace)
            .iter()
            .map(|s| s.path.display().to_string())
            .collect()
    }

    /// `sessionReference/status`, at once: it never waits (for the index
    /// either), so the loop answers it itself.
    pub fn status_now(&self) -> lsp_ext::StatusResult {
        let index = &self.shared.index;
        let view = index.view();
        // Before indexing starts, the stores it will index.
        let roots = if index.is_started() {
            index.roots()
        } else {
            self.configured_roots()
        };
        let mut stores = view.stores.clone();
        if stores.is_empty() {
            // Not indexed yet: the configured roots, nothing counted.
            stores = roots
                .iter()
                .cloned()
                .map(|path| StoreStatus {
                    path,
                    format: String::new(),
                    sessions: 0,
                    skipped_lines: 0,
                    errors: Vec::new(),
                })
                .collect();
        }
        let indexing = index.is_indexing() || !index.is_started();
        let mut status: lsp_ext::StatusResult =
            crate::model::Status::new(stores, view.len(), indexing, &view.notes).into();
        // While a changed store list is indexed, the counts are the last
        // index's but the list named is the new one.
        if let Some(first) = roots.first() {
            status.store = first.clone();
        }
        status.search = Some(self.search_status(view.len()).into());
        status
    }

    /// The search index's part of the status, as the last update left it:
    /// it is read, never opened or waited for, here.
    fn search_status(&self, sessions: usize) -> SearchStatus {
        let settings = self.settings();
        if let Some(off) = search_off(self.shared.no_search_index, &settings) {
            return SearchStatus::off(off);
        }
        let specs = shared::configured_stores(&settings, &self.workspace);
        self.shared
            .search
            .status(&specs)
            .unwrap_or_else(|| crate::search::live::not_built(&specs, sessions))
    }
}
