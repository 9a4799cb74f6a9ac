//! The store list (server.md "Configuration", agent-logs.md "Stores and
//! formats"): one or more roots, each with a format, or the defaults.

use std::path::{Path, PathBuf};

use super::paths;
use crate::formats::{aider, table, FormatChoice};
use crate::reference::ReferenceError;
use crate::store::team::TeamUrl;
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
        None => Ok(FormatChoice::Auto),
        Some(name) => FormatChoice::by_name(name).ok_or_else(|| {
            ReferenceError::invalid_config(format!(
                "session-reference: unknown store format {name:?} (known: {})",
                FormatChoice::names().join(", ")
            ))
        }),
    }
}

/// The stores to read: the configured ones (relative paths under `base`),
/// else the defaults (found through the current directory).
pub fn resolve_stores(
    configured: &[StoreEntry],
    base: &Path,
) -> Result<Vec<StoreSpec>, ReferenceError> {
    resolve_stores_in(configured, base, &[paths::current_dir()])
}

/// [`resolve_stores`] for a face with workspace folders (the language
/// server): the defaults found through `workspace` (an Aider history lives
/// in a project, not in the home directory).
pub fn resolve_stores_in(
    configured: &[StoreEntry],
    base: &Path,
    workspace: &[PathBuf],
) -> Result<Vec<StoreSpec>, ReferenceError> {
    if configured.is_empty() {
        return Ok(default_store_list_in(workspace)
            .into_iter()
            .map(|d| d.spec)
            .collect());
    }
    let specs: Vec<StoreSpec> = configured
        .iter()
        .map(|entry| {
            if TeamUrl::looks_like(&entry.path) {
                return team_spec(entry);
            }
            Ok(StoreSpec {
                path: paths::resolve(Path::new(&entry.path), base),
                format: format_choice(entry.format.as_deref())?,
            })
        })
        .collect::<Result<_, _>>()?;
    // A team store comes after every local store (issue 26 item 1): a
    // local session of an id wins, and the list's order is otherwise kept.
    let (local, team): (Vec<StoreSpec>, Vec<StoreSpec>) = specs
        .into_iter()
        .partition(|s| s.format != FormatChoice::Team);
    Ok(local.into_iter().chain(team).collect())
}

/// A store given as a URL (`s3://`, `gs://`, `az://`, `file://`): a team
/// store, its URL kept as written. A format named beside it is refused (a
/// team store's snapshots have one format).
fn team_spec(entry: &StoreEntry) -> Result<StoreSpec, ReferenceError> {
    let url = TeamUrl::parse(&entry.path)
        .map_err(|e| ReferenceError::invalid_config(format!("session-reference: {e}")))?;
    if entry.format.as_deref().is_some_and(|f| f != "auto") {
        return Err(ReferenceError::invalid_config(format!(
            "session-reference: the team store {url} takes no format"
        )));
    }
    Ok(StoreSpec {
        path: PathBuf::from(url.original),
        format: FormatChoice::Team,
    })
}

/// The default stores: each format's row's places (the hydra store
/// always, the agents' where they exist), in the table's order.
pub fn default_stores() -> Vec<StoreSpec> {
    default_store_list().into_iter().map(|d| d.spec).collect()
}

/// One store of the default list.
#[derive(Debug, Clone)]
pub struct DefaultStore {
    pub spec: StoreSpec,
    /// Whether an environment variable named it (see
    /// [`crate::formats::toolkit::home::DefaultPlace::named`]).
    pub named: bool,
}

/// [`default_stores`], each with whether the person named it: the
/// workspace is the current directory (the command line, the MCP server).
pub fn default_store_list() -> Vec<DefaultStore> {
    default_store_list_in(&[paths::current_dir()])
}

/// The default store list for the workspace folders `workspace`: each
/// row's places in the table's order, Aider's found through the workspace
/// (`formats::aider::defaults`).
pub fn default_store_list_in(workspace: &[PathBuf]) -> Vec<DefaultStore> {
    table::ROWS
        .iter()
        .flat_map(|row| {
            let places = match row.reading {
                FormatChoice::Aider => aider::defaults::workspace_histories(workspace),
                _ => (row.defaults)(),
            };
            places.into_iter().map(move |place| (row, place))
        })
        .filter_map(|(row, place)| {
            // An Aider default store is one file; every other a folder.
            let exists = match row.reading {
                FormatChoice::Aider => place.path.is_file(),
                _ => place.path.is_dir(),
            };
            let format = if place.own {
                FormatChoice::Auto
            } else if exists {
                row.reading
            } else {
                return None;
            };
            Some(DefaultStore {
                spec: StoreSpec {
                    path: place.path,
                    format,
                },
                named: place.named,
            })
        })
        .collect()
}
