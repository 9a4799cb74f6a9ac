//! Settings of one CLI call: the store and the limits, validated before
//! any input is read.

use std::path::{Path, PathBuf};

use super::args::StoreArgs;
use crate::reference::settings::{check_limit, Limits};
use crate::reference::ReferenceError;
use crate::store::Catalog;

pub struct Settings {
    pub store: PathBuf,
    pub self_id: Option<String>,
    pub limits: Limits,
}

impl Settings {
    /// Scans the store, reporting skipped files and duplicates on stderr.
    /// Titles cost a read of every log: only `candidates` needs them.
    pub fn open_catalog(&self, titles: bool) -> Catalog {
        let catalog = if titles {
            Catalog::scan(&self.store)
        } else {
            Catalog::scan_headers(&self.store)
        };
        for note in catalog.notes() {
            eprintln!(
                "hydra-session-lsp: warning: {}: {note}",
                self.store.display()
            );
        }
        catalog
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
    let cwd = std::env::current_dir().unwrap_or_default();
    let store = match &args.store {
        Some(path) => resolve_path(path, &cwd),
        None => default_store(&cwd),
    };
    Ok(Settings {
        store,
        self_id: args.self_id.clone(),
        limits,
    })
}

/// `HYDRA_SESSION_STORE`, else `$HYDRA_HOME/sessions`, else `~/.hydra/sessions`.
pub fn default_store(cwd: &Path) -> PathBuf {
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(store) = from_env("HYDRA_SESSION_STORE") {
        return resolve_path(&store, cwd);
    }
    if let Some(home) = from_env("HYDRA_HOME") {
        return resolve_path(&home.join("sessions"), cwd);
    }
    home_dir()
        .unwrap_or_default()
        .join(".hydra")
        .join("sessions")
}

/// `~/` is the home directory; a relative path is under `base`.
pub fn resolve_path(path: &Path, base: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~") {
        if let Some(home) = home_dir() {
            return home.join(rest);
        }
    }
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}
