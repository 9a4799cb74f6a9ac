//! The store list (server.md "Configuration", agent-logs.md "Stores and
//! formats"): one or more roots, each with a format, or the defaults.

use std::path::{Path, PathBuf};

use super::paths;
use crate::formats;
use crate::reference::ReferenceError;
use crate::store::{FormatChoice, StoreSpec};

/// One configured store, as written: a path and an optional format name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreEntry {
    pub path: String,
    pub format: Option<String>,
}

impl StoreEntry {
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            format: None,
        }
    }
}

/// The format called `name` (`auto` or a known format).
pub fn format_choice(name: Option<&str>) -> Result<FormatChoice, ReferenceError> {
    match name {
        None | Some("auto") => Ok(FormatChoice::Auto),
        Some(name) => formats::by_name(name)
            .map(FormatChoice::Fixed)
            .ok_or_else(|| {
                let known: Vec<&str> = formats::all().iter().map(|f| f.name()).collect();
                ReferenceError::invalid_config(format!(
                    "session-reference: unknown store format {name:?} (known: auto, {})",
                    known.join(", ")
                ))
            }),
    }
}

/// The stores to read: the configured ones (relative paths under `base`),
/// else the defaults.
pub fn resolve_stores(
    configured: &[StoreEntry],
    base: &Path,
) -> Result<Vec<StoreSpec>, ReferenceError> {
    if configured.is_empty() {
        return Ok(default_stores());
    }
    configured
        .iter()
        .map(|entry| {
            Ok(StoreSpec {
                path: paths::resolve(Path::new(&entry.path), base),
                format: format_choice(entry.format.as_deref())?,
            })
        })
        .collect()
}

/// The hydra store (`$HYDRA_SESSION_STORE`, else `$HYDRA_HOME/sessions`,
/// else `~/.hydra/sessions`), plus the stores of the agents people run,
/// each only when it exists and its format is known to this build.
pub fn default_stores() -> Vec<StoreSpec> {
    let mut stores = vec![StoreSpec::auto(default_hydra_store())];
    for (format, path) in agent_stores() {
        if let Some(format) = formats::by_name(format) {
            if path.is_dir() {
                stores.push(StoreSpec {
                    path,
                    format: FormatChoice::Fixed(format),
                });
            }
        }
    }
    stores
}

/// The hydra default store.
pub fn default_hydra_store() -> PathBuf {
    if let Some(store) = paths::resolve_env("HYDRA_SESSION_STORE") {
        return store;
    }
    if let Some(home) = paths::resolve_env("HYDRA_HOME") {
        return home.join("sessions");
    }
    paths::home_dir()
        .unwrap_or_default()
        .join(".hydra")
        .join("sessions")
}

/// Where Claude Code and Codex keep their sessions (agent-logs.md).
fn agent_stores() -> Vec<(&'static str, PathBuf)> {
    let claude = paths::claude_config_dir().map(|dir| dir.join("projects"));
    let codex = paths::codex_home().map(|dir| dir.join("sessions"));
    [("claude-code", claude), ("codex", codex)]
        .into_iter()
        .filter_map(|(name, path)| path.map(|p| (name, p)))
        .collect()
}
