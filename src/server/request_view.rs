//! One immutable view of the server state per request (as ruff_server's
//! `DocumentSnapshot`): the document, settings, encoding, workspace, store
//! list and spill settings as they were when the request arrived, taken on
//! the main loop, so a request never sees half of a settings change; and
//! the sessions, taken once. Heavy work runs on it off the loop.
//!
//! The shared state behind it is private to this file: a handler reads
//! the sessions, the snapshot cache and the search index only through it,
//! so no handler can read a newer sessions view than the one its request
//! took.

use std::sync::Arc;
use std::time::Duration;

use lsp_types::Url;

use super::body_searches::BodySearches;
use super::client::Client;
use super::documents::DocumentSnapshot;
use super::settings::Settings;
use super::shared::{self, Shared};
use super::workspace::Workspace;
use crate::live::{CachedSource, View};
use crate::proto::position::Encoding;
use crate::spill::Spill;
use crate::store::StoreSpec;

#[derive(Clone)]
pub struct RequestView {
    shared: Arc<Shared>,
    /// The settings, `targetSessionId` resolved.
    pub settings: Settings,
    pub encoding: Encoding,
    workspace: Workspace,
    /// The document the request names, if it is open.
    document: Option<(Url, DocumentSnapshot)>,
    /// The store list, as the index was started on it when the request
    /// arrived.
    stores: Arc<Vec<StoreSpec>>,
    /// Where `prepare` spills: made from the settings, the workspace and
    /// the store list above (nothing on disk is looked at to make it).
    spill: Option<Spill>,
    /// The sessions view, taken once (by the first handler step that asks
    /// for it): every later read of the request sees the same sessions.
    view: Arc<tokio::sync::OnceCell<Taken>>,
}

/// The server's search index, apart from any request.
pub struct SearchHandle(Arc<Shared>);

impl SearchHandle {
    pub fn index(&self) -> &crate::search::Live {
        &self.0.search
    }
}

/// The sessions a request took, and whether the first index was built
/// when it took them.
#[derive(Clone)]
struct Taken {
    view: Arc<View>,
    complete: bool,
}

impl RequestView {
    pub fn new(
        shared: Arc<Shared>,
        settings: Settings,
        encoding: Encoding,
        workspace: Workspace,
        document: Option<(Url, DocumentSnapshot)>,
    ) -> Self {
        let stores = shared.index.specs();
        let spill = shared::spill(&settings, &workspace, &stores);
        RequestView {
            shared,
            settings,
            encoding,
            workspace,
            document,
            stores: Arc::new(stores),
            spill,
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
    pub fn stores(&self) -> Vec<StoreSpec> {
        self.stores.as_ref().clone()
    }

    /// Where `prepare` spills; `None` when spilling is off.
    pub fn spill(&self) -> Option<&Spill> {
        self.spill.as_ref()
    }

    /// Why full-text search is off, when it is (docs/search.md "Turning
    /// it off").
    pub fn search_off(&self) -> Option<&'static str> {
        search_off(self.shared.no_search_index, &self.settings)
    }

    /// The sessions, once the first index is built (the main loop started
    /// it before taking this view).
    pub async fn sessions(&self) -> Arc<View> {
        let index = &self.shared.index;
        let taken = self
            .view
            .get_or_init(|| async {
                index.ready().await;
                Taken {
                    view: index.view(),
                    complete: true,
                }
            })
            .await;
        taken.view.clone()
    }

    /// The sessions, waiting at most `grace` for the first index: during a
    /// slow first index, what is indexed so far, and `false` (completion
    /// answers incomplete then).
    pub async fn sessions_within(&self, grace: Duration) -> (Arc<View>, bool) {
        let index = &self.shared.index;
        let taken = self
            .view
            .get_or_init(|| async {
                let complete = index.ready_within(grace).await;
                Taken {
                    view: index.view(),
                    complete,
                }
            })
            .await;
        (taken.view.clone(), taken.complete)
    }

    /// Where a session's snapshot is read: `view`'s sessions through the
    /// server's one snapshot cache.
    pub fn source<'a>(&'a self, view: &'a View) -> CachedSource<'a> {
        CachedSource {
            view,
            cache: &self.shared.cache,
            fetches: None,
        }
    }

    /// [`Self::source`] for work nothing may hold up on the network
    /// (diagnostics, hover, previews): a team store's snapshot not cached
    /// yet is fetched in the background and answered "fetching" meanwhile.
    pub fn background_source<'a>(&'a self, view: &'a View) -> CachedSource<'a> {
        CachedSource {
            fetches: Some(&self.shared.fetches),
            ..self.source(view)
        }
    }

    /// Has the team stores list again now (after a publish).
    pub fn refresh_stores(&self) {
        self.shared.index.refresh();
    }

    /// Starts the background fetches [`Self::background_source`] queued.
    pub fn start_fetches(&self) {
        self.shared.fetches.start();
    }

    /// The full-text index (docs/search.md).
    pub fn search_index(&self) -> &crate::search::Live {
        &self.shared.search
    }

    /// The search index alone, for work after the request (holding the
    /// request would hold its view of the sessions).
    pub fn search_handle(&self) -> SearchHandle {
        SearchHandle(self.shared.clone())
    }

    /// The searches behind completion's body matches.
    pub fn body_searches(&self) -> &BodySearches {
        &self.shared.body_searches
    }

    /// The same request's state with the sessions not taken yet: for work
    /// that outlives the request (completion's body searches, one after
    /// another), each step of which takes the sessions as they are then.
    pub fn renewed(&self) -> RequestView {
        RequestView {
            view: Arc::default(),
            ..self.clone()
        }
    }

    /// The client, for what a request sends it besides its answer
    /// (diagnostics).
    pub fn client(&self) -> &Client {
        &self.shared.client
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
