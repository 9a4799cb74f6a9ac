//! Settings of one CLI call: the stores and the limits, validated before
//! any input is read (what they mean is `config::settings`).

use super::args::{Budget, Format, SpillArgs, StoreArgs};
use crate::config::settings::{self, BudgetRequest, Requested, SpillRequest};
use crate::config::StoreEntry;
use crate::model::SessionStore;
use crate::reference::one_line::one_line;
use crate::reference::ReferenceError;
use crate::spill::Spill;
use crate::store::{FsStore, Scan};

/// The validated settings (`settings.limits`, …) and the output format.
pub struct Settings {
    core: settings::Settings,
    /// The output format asked for, if any.
    pub output: Option<Format>,
}

impl std::ops::Deref for Settings {
    type Target = settings::Settings;

    fn deref(&self) -> &settings::Settings {
        &self.core
    }
}

impl Settings {
    /// Indexes the stores, warning on stderr about the stores the person
    /// named that are missing or cannot be read (every other note is for
    /// `status`: printed at every call, it would reach whatever the output
    /// is pasted into).
    pub fn open_store(&self, scan: Scan) -> FsStore {
        let store = self.core.index(scan);
        for note in store.notes() {
            if self.core.is_warning(&note) {
                // A terminal line: a file name may hold controls.
                eprintln!(
                    "hydra-session-lsp: warning: {}",
                    one_line(&note.to_string())
                );
            }
        }
        store
    }
}

/// The store flags in the face-neutral form.
pub fn requested(args: &StoreArgs) -> Requested {
    Requested {
        stores: args
            .store
            .iter()
            .enumerate()
            .map(|(i, p)| StoreEntry {
                path: p.to_string_lossy().into_owned(),
                format: args.store_formats.get(i).cloned().flatten(),
            })
            .collect(),
        self_id: args.self_id.clone(),
        max_references: args.max_references.map(|n| n.0),
        max_reference_bytes: args.max_reference_bytes.map(|b| match b {
            Budget::Auto => BudgetRequest::Auto,
            Budget::Bytes(n) => BudgetRequest::Bytes(n.0),
        }),
    }
}

/// Refuses a store or spill path that is not UTF-8 where it is printed
/// for another program (`mcp --print-config`): a configuration holds text,
/// and the path read back as text (`st\u{FFFD}\u{FFFD}`) would name another
/// folder.
pub fn printable_paths(store: &StoreArgs, spill: &SpillArgs) -> Result<(), String> {
    let named = store
        .store
        .iter()
        .map(|p| ("--store", p))
        .chain(spill.spill_dir.iter().map(|p| ("--spill-dir", p)));
    for (flag, path) in named {
        if path.to_str().is_none() {
            return Err(format!(
                "the {flag} path {:?} is not UTF-8, and a configuration printed for it \
                 would name another path; rename the folder or link to it from a UTF-8 path",
                path.as_os_str()
            ));
        }
    }
    Ok(())
}

/// The spill flags in the face-neutral form.
pub fn spill_requested(args: &SpillArgs) -> SpillRequest {
    SpillRequest {
        dir: args.spill_dir.clone(),
        disabled: args.no_spill,
        max_bytes: args.spill_max_bytes.map(|n| n.0),
    }
}

pub fn resolve(args: &StoreArgs) -> Result<Settings, ReferenceError> {
    Ok(Settings {
        core: requested(args).resolve()?,
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
    let setting = spill_requested(args).resolve()?;
    Ok(Spill::for_setting(&setting.dir, setting.max_bytes))
}
