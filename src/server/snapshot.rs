//! One immutable view of the session per request (as ruff_server's
//! `DocumentSnapshot`): the document, settings, encoding and workspace as
//! they were when the request arrived, taken on the main loop, so a
//! request never sees half of a settings change. Heavy work runs on it off
//! the loop.

use std::sync::Arc;

use lsp_types::Url;

use super::documents::DocumentSnapshot;
use super::settings::Settings;
use super::shared::{self, Shared};
use super::workspace::Workspace;
use crate::live::View;
use crate::proto::position::Encoding;
use crate::spill::Spill;

#[derive(Clone)]
pub struct Snapshot {
    pub shared: Arc<Shared>,
    /// The settings, `targetSessionId` resolved.
    pub settings: Settings,
    pub encoding: Encoding,
    workspace: Workspace,
    /// The document the request names, if it is open.
    document: Option<(Url, DocumentSnapshot)>,
    /// The store list, as the index was started on it when the request
    /// arrived.
    stores: Vec<crate::store::StoreSpec>,
    /// The sessions view, taken once (by the first handler step that asks
    /// for it, once the first index is built): every later read of the
    /// request sees the same sessions.
    view: Arc<tokio::sync::OnceCell<Arc<View>>>,
}

impl Snapshot {
    pub fn new(
        shared: Arc<Shared>,
        settings: Settings,
        encoding: Encoding,
        workspace: Workspace,
        document: Option<(Url, DocumentSnapshot)>,
    ) -> Self {
        let stores = shared.index.specs();
        Snapshot {
            shared,
            settings,
            encoding,
            workspace,
            document,
            stores,
            view: Arc::default(),
        }
    }

    /// The open document `uri`, as it was when the request arrived.
    pub fn document(&self, uri: &Url) -> Option<DocumentSnapshot> {
        self.document
            .as_ref()
            .filter(|(open, _)| open == uri)
            .map(|(_, doc)| doc.clone())
    }

    /// The cwd of the workspace folder holding `document`.
    pub fn target_cwd(&self, document: &Url) -> Option<String> {
        self.workspace.target_cwd(document)
    }

    /// The stores the settings name, as the index resolved them when it
    /// was started on them (a request looks at no folder for them: body
    /// matches ask on every keystroke).
    pub fn stores(&self) -> Vec<crate::store::StoreSpec> {
        self.stores.clone()
    }

    /// Where `prepare` spills (see [`shared::spill`]).
    /// Made from the settings and workspace the snapshot holds, only by
    /// a request that spills (resolving it looks at folders).
    pub fn spill(&self) -> Option<Spill> {
        shared::spill(&self.settings, &self.workspace)
    }

    /// Why full-text search is off, when it is (docs/search.md "Turning
    /// it off").
    pub fn search_off(&self) -> Option<&'static str> {
        search_off(self.shared.no_search_index, &self.settings)
    }

    /// The sessions, once the first index is built (the main loop started
    /// it before taking this snapshot).
    pub async fn sessions(&self) -> Arc<View> {
        let index = &self.shared.index;
        self.view
            .get_or_init(|| async {
                index.ready().await;
                index.view()
            })
            .await
            .clone()
    }
}

/// Why full-text search is off for `settings` in a server started with
/// `--no-search-index` or not.
pub fn search_off(by_flag: bool, settings: &Settings) -> Option<&'static str> {
    if by_flag {
        Some("search is off (the server was started with --no-search-index)")
    } else if settings.no_search_index {
        Some("search is off (the searchIndex setting is false)")
    } else {
        None
    }
}
