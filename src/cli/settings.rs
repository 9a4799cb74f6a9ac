//! Settings of one CLI call: the stores and the limits, validated before
//! any input is read.

use super::args::{Budget, Format, SpillArgs, StoreArgs};
use crate::config::spill::{self, SpillDir};
use crate::config::{self, paths, StoreEntry};
use crate::model::SessionStore;
use crate::reference::budget::BudgetSetting;
use crate::reference::one_line::one_line;
use crate::reference::settings::{check_limit, Limits};
use crate::reference::ReferenceError;
use crate::spill::Spill;
use crate::store::{FsStore, Scan, StoreSpec};

pub struct Settings {
    pub stores: Vec<StoreSpec>,
    pub self_id: Option<String>,
    pub limits: Limits,
    /// The output format asked for, if any.
    pub output: Option<Format>,
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
            // A terminal line: a file name may hold controls.
            eprintln!(
                "hydra-session-lsp: warning: {}",
                one_line(&note.to_string())
            );
        }
        store
    }
}

pub fn resolve(args: &StoreArgs) -> Result<Settings, ReferenceError> {
    let mut limits = Limits::default();
    if let Some(n) = args.max_references {
        limits.max_references = check_limit("maxReferences", n.0)?;
    }
    match args.max_reference_bytes {
        None | Some(Budget::Auto) => {}
        Some(Budget::Bytes(n)) => {
            limits.max_reference_bytes =
                BudgetSetting::Fixed(check_limit("maxReferenceBytes", n.0)?);
        }
    }
    let configured: Vec<StoreEntry> = args
        .store
        .iter()
        .enumerate()
        .map(|(i, p)| StoreEntry {
            path: p.to_string_lossy().into_owned(),
            format: args.store_formats.get(i).cloned().flatten(),
        })
        .collect();
    let stores = config::resolve_stores(&configured, &paths::current_dir())?;
    Ok(Settings {
        stores,
        self_id: args.self_id.clone(),
        limits,
        output: args.output,
    })
}

/// `prepare`'s spill store, validated with the other settings; `None`
/// when spilling is disabled.
pub fn resolve_spill(args: &SpillArgs) -> Result<Option<Spill>, ReferenceError> {
    let max_bytes = match args.spill_max_bytes {
        Some(n) => check_limit("spillMaxBytes", n.0)? as u64,
        None => crate::reference::settings::DEFAULT_SPILL_MAX_BYTES,
    };
    let dir = if args.no_spill {
        SpillDir::Disabled
    } else {
        match &args.spill_dir {
            Some(dir) => spill::configured_dir(&dir.to_string_lossy(), &paths::current_dir()),
            None => spill::default_dir(),
        }
    };
    Ok(Spill::for_setting(&dir, max_bytes))
}
