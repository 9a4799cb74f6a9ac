//! The store list (server.md "Configuration", agent-logs.md "Stores and
//! formats"): one or more roots, each with a format, or the defaults.

use std::path::{Path, PathBuf};

use super::paths;
use crate::formats;
use crate::formats::FormatChoice;
use crate::reference::ReferenceError;
use crate::store::StoreSpec;

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
    default_store_list().into_iter().map(|d| d.spec).collect()
}

/// One store of the default list.
#[derive(Debug, Clone)]
pub struct DefaultStore {
    pub spec: StoreSpec,
    /// Whether an environment variable named it (`$HYDRA_SESSION_STORE`,
    /// `$HYDRA_HOME`, `$CLAUDE_CONFIG_DIR`, `$CODEX_HOME`, `$GEMINI_CLI_HOME`, `$COPILOT_HOME`,
    /// `$XDG_STATE_HOME`, `$CURSOR_CONFIG_DIR`): a store the
    /// person chose, whose problems are worth a warning. A store found
    /// only by its usual place is not.
    pub named: bool,
}

/// [`default_stores`], each with whether the person named it.
pub fn default_store_list() -> Vec<DefaultStore> {
    let named = ["HYDRA_SESSION_STORE", "HYDRA_HOME"]
        .iter()
        .any(|v| paths::resolve_env(v).is_some());
    let mut stores = vec![DefaultStore {
        spec: StoreSpec::auto(default_hydra_store()),
        named,
    }];
    for (format, path, named) in agent_stores() {
        if let Some(format) = formats::by_name(format) {
            if path.is_dir() {
                stores.push(DefaultStore {
                    spec: StoreSpec {
                        path,
                        format: FormatChoice::Fixed(format),
                    },
                    named,
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

/// Where Claude Code, Codex (agent-logs.md), Gemini CLI, GitHub Copilot
/// CLI and Cursor (agent-logs-more.md) keep their sessions, in that order, and
/// whether an environment variable said so.
fn agent_stores() -> Vec<(&'static str, PathBuf, bool)> {
    let claude = paths::claude_config_dir().map(|dir| dir.join("projects"));
    let codex = paths::codex_home().map(|dir| dir.join("sessions"));
    // Gemini CLI's home is the user's, unless `GEMINI_CLI_HOME` moves it.
    let gemini = paths::resolve_env("GEMINI_CLI_HOME")
        .or_else(paths::home_dir)
        .map(|home| home.join(".gemini").join("tmp"));
    // Copilot CLI's home is `~/.copilot` unless `COPILOT_HOME` moves it;
    // VS Code's integration also looks under `$XDG_STATE_HOME/.copilot`.
    let copilot = paths::resolve_env("COPILOT_HOME")
        .or_else(|| paths::home_dir().map(|home| home.join(".copilot")))
        .map(|dir| dir.join("session-state"));
    let copilot_xdg = paths::env_path("XDG_STATE_HOME")
        .filter(|p| p.is_absolute())
        .map(|dir| dir.join(".copilot").join("session-state"));
    // Cursor keeps `projects/` in `~/.cursor`, which `CURSOR_CONFIG_DIR`
    // is reported to move [S].
    let cursor = paths::resolve_env("CURSOR_CONFIG_DIR")
        .or_else(|| paths::home_dir().map(|home| home.join(".cursor")))
        .map(|dir| dir.join("projects"));
    [
        ("claude-code", claude, "CLAUDE_CONFIG_DIR"),
        ("codex", codex, "CODEX_HOME"),
        ("gemini", gemini, "GEMINI_CLI_HOME"),
        ("copilot-cli", copilot, "COPILOT_HOME"),
        ("copilot-cli", copilot_xdg, "XDG_STATE_HOME"),
        ("cursor", cursor, "CURSOR_CONFIG_DIR"),
    ]
    .into_iter()
    .filter_map(|(name, path, variable)| {
        path.map(|p| (name, p, paths::resolve_env(variable).is_some()))
    })
    .collect()
}
