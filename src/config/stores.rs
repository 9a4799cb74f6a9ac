//! The store list (server.md "Configuration", agent-logs.md "Stores and
//! formats"): one or more roots, each with a format, or the defaults.

use std::path::Path;

use super::paths;
use crate::formats::{table, FormatChoice};
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

/// [`default_stores`], each with whether the person named it.
pub fn default_store_list() -> Vec<DefaultStore> {
    table::ROWS
        .iter()
        .flat_map(|row| (row.defaults)().into_iter().map(move |place| (row, place)))
        .filter_map(|(row, place)| {
            let format = if place.own {
                FormatChoice::Auto
            } else if place.path.is_dir() {
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
