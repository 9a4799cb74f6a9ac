//! Settings of one CLI call: the stores and the limits, validated before
//! any input is read.

use super::args::{Budget, Format, SpillArgs, StoreArgs};
use crate::config::spill::{self, SpillDir};
use crate::config::{self, paths, StoreEntry};
use crate::model::{SessionStore, StoreNote};
use crate::reference::budget::BudgetSetting;
use crate::reference::one_line::one_line;
use crate::reference::settings::{check_limit, Limits};
use crate::reference::ReferenceError;
use crate::spill::Spill;
use crate::store::{FsStore, Scan, StoreSpec};

pub struct Settings {
    pub stores: Vec<StoreSpec>,
    /// The stores the person named (`--store`, or an environment variable
    /// for a default store), as the store notes name them: only their
    /// problems are warned about on stderr.
    named: Vec<String>,
    pub self_id: Option<String>,
    pub limits: Limits,
    /// The output format asked for, if any.
    pub output: Option<Format>,
}

impl Settings {
    /// Indexes the stores, warning on stderr about the stores the person
    /// named that are missing or cannot be read. Every other note (a file
    /// that is not a session, a duplicate id, a default store that does
    /// not exist) is for `status`: printed at every call, it would reach
    /// whatever the output is pasted into. Titles cost a read of every
    /// log: only `candidates` needs them.
    pub fn open_store(&self, scan: Scan) -> FsStore {
        let store = self.index(scan);
        for note in store.notes() {
            if self.is_warning(&note) {
                // A terminal line: a file name may hold controls.
                eprintln!(
                    "hydra-session-lsp: warning: {}",
                    one_line(&note.to_string())
                );
            }
        }
        store
    }

    /// Indexes the stores, saying nothing.
    pub fn index(&self, scan: Scan) -> FsStore {
        // A full scan reads every log: the index cache spares that.
        match paths::index_cache_dir().filter(|_| scan == Scan::Full) {
            Some(dir) => FsStore::open_cached(&self.stores, scan, &dir),
            None => FsStore::open(&self.stores, scan),
        }
    }

    fn is_warning(&self, note: &StoreNote) -> bool {
        match note {
            StoreNote::Missing { store }
            | StoreNote::Unreadable { store, .. }
            | StoreNote::FolderUnreadable { store, .. } => self.named.contains(store),
            StoreNote::NotASession { .. } | StoreNote::Duplicate { .. } => false,
        }
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
    let (stores, named) = if configured.is_empty() {
        let defaults = config::default_store_list();
        let named = defaults
            .iter()
            .filter(|d| d.named)
            .map(|d| d.spec.path.display().to_string())
            .collect();
        (defaults.into_iter().map(|d| d.spec).collect(), named)
    } else {
        let stores = config::resolve_stores(&configured, &paths::current_dir())?;
        let named = stores
            .iter()
            .map(|s| s.path.display().to_string())
            .collect();
        (stores, named)
    };
    Ok(Settings {
        stores,
        named,
        // In an agent's external-editor route the edited session is `self`.
        self_id: args
            .self_id
            .clone()
            .or_else(config::editor_session::launching_session),
        limits,
        output: args.output,
    })
}

/// `prepare`'s spill store, validated with the other settings; `None`
/// when spilling is disabled.
/// The spill store of `args`, refusing to write inside any of the
/// `settings`' stores (nothing is ever written into a session store).
pub fn spill_for(settings: &Settings, args: &SpillArgs) -> Result<Option<Spill>, ReferenceError> {
    let roots: Vec<_> = settings.stores.iter().map(|s| s.path.clone()).collect();
    Ok(resolve_spill(args)?.map(|s| s.outside_of(&roots)))
}

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
