//! The handles every request and background task shares: the client, the
//! store index, the snapshot cache, and the way back to the main loop.
//! No document, setting or workspace state lives here: that is the
//! [`ServerState`](super::state::ServerState)'s, read through snapshots.

use std::sync::Arc;

use crossbeam_channel::Sender;
use lsp_server::RequestId;
use serde_json::value::RawValue;
use serde_json::Value;

use super::body_searches::BodySearches;
use super::client::Client;
use super::error::Result;
use super::settings::Settings;
use super::workspace::Workspace;
use crate::config::{self, paths, spill};
use crate::live::LiveIndex;
use crate::live::SnapshotCache;
use crate::spill::Spill;
use crate::store::StoreSpec;

pub struct Shared {
    pub client: Client,
    pub index: Arc<LiveIndex>,
    pub cache: SnapshotCache,
    /// The full-text index (docs/search.md), opened by the first search.
    pub search: crate::search::Live,
    /// `lsp --no-search-index`: search is off whatever the settings say.
    pub no_search_index: bool,
    /// The searches behind completion's body matches.
    pub body_searches: BodySearches,
    /// Team store snapshots fetched in the background for diagnostics,
    /// hover and previews (each fetch's end refreshes diagnostics).
    pub fetches: crate::live::Fetches,
    /// Events for the main loop (it alone changes the session).
    pub events: Sender<LoopEvent>,
}

/// What background work tells the main loop.
#[derive(Debug)]
pub enum LoopEvent {
    /// Request `key` (the loop's own number for it) is done: its slot is
    /// free. Its worker wrote the answer, unless `unsent` holds it.
    Finished {
        key: u64,
        id: RequestId,
        unsent: Option<Result<Box<RawValue>>>,
    },
    /// A `workspace/configuration` pull ended, with the section if the
    /// client gave it.
    Pulled(Option<Value>),
    /// The store's sessions changed: diagnostics may have too.
    StoreChanged,
}

impl Shared {
    /// Tells the main loop; it is gone only once the server is ending.
    pub fn tell(&self, event: LoopEvent) {
        let _ = self.events.send(event);
    }
}

/// The stores the settings name (relative paths under the first
/// workspace folder), else the defaults, found through the workspace
/// folders (Aider's histories).
pub fn configured_stores(settings: &Settings, workspace: &Workspace) -> Vec<StoreSpec> {
    let base = workspace.first_folder().unwrap_or_else(paths::current_dir);
    let folders = workspace.folders();
    // Settings were validated when applied: a failure here is a bug, and
    // the defaults are the safe answer.
    config::resolve_stores_in(&settings.store, &base, &folders)
        .unwrap_or_else(|_| config::default_stores())
}

/// The spill store `sessionReference/prepare` writes to; `None` when
/// spilling is disabled. A relative `spillDir` is under the first
/// workspace folder; nothing is written inside any of `stores`. Made from
/// settings alone: nothing on disk is looked at.
pub fn spill(settings: &Settings, workspace: &Workspace, stores: &[StoreSpec]) -> Option<Spill> {
    let dir = match settings.spill_dir.as_deref() {
        None => spill::default_dir(),
        Some(dir) => spill::configured_dir(
            dir,
            &workspace.first_folder().unwrap_or_else(paths::current_dir),
        ),
    };
    let roots: Vec<_> = stores.iter().map(|s| s.path.clone()).collect();
    Spill::for_setting(&dir, settings.limits.spill_max_bytes).map(|s| s.outside_of(&roots))
}
