//! Settings of one CLI call: the stores and the limits, validated before
//! any input is read.

use super::args::StoreArgs;
use crate::config::{self, paths, StoreEntry};
use crate::model::SessionStore;
use crate::reference::settings::{check_limit, Limits};
use crate::reference::ReferenceError;
use crate::store::{FsStore, Scan, StoreSpec};

pub struct Settings {
    pub stores: Vec<StoreSpec>,
    pub self_id: Option<String>,
    pub limits: Limits,
}

impl Settings {
    /// Indexes the stores, reporting skipped files and duplicates on
    /// stderr. Titles cost a read of every log: only `candidates` needs
    /// them.
    pub fn open_store(&self, scan: Scan) -> FsStore {
        // A full scan reads every log: the index cache spares that.
        let store = match paths::index_cache_dir().filter(|_| scan == Scan::Full) {
            Some(dir) => FsStore::open_cached(&self.stores, scan, &dir),
            None => FsStore::open(&self.stores, scan),
        };
        for note in store.notes() {
            eprintln!("hydra-session-lsp: warning: {note}");
        }
        store
    }
}

pub fn resolve(args: &StoreArgs) -> Result<Settings, ReferenceError> {
    let mut limits = Limits::default();
    if let Some(n) = args.max_references {
        limits.max_references = check_limit("maxReferences", n.0)?;
    }
    if let Some(n) = args.max_reference_bytes {
        limits.max_reference_bytes = check_limit("maxReferenceBytes", n.0)?;
    }
    let configured: Vec<StoreEntry> = args
        .store
        .iter()
        .map(|p| StoreEntry::new(p.to_string_lossy().into_owned()))
        .collect();
    let stores = config::resolve_stores(&configured, &paths::current_dir())?;
    Ok(Settings {
        stores,
        self_id: args.self_id.clone(),
        limits,
    })
}
