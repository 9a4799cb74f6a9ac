//! The agents' SQLite databases as session stores (agent-logs-db-3.md):
//! one read preamble for every database (`open`), one generic store over
//! a per-format trait (`format`, `store`, `discover`), and each agent's
//! rules as a module of its own — OpenCode's and Kilo Code's schema
//! (`opencode`), Goose (`goose`), Crush (`crush`), Zed (`zed`) — over the
//! pure projections of `formats::<agent>`.

pub(crate) mod bounded;
mod crush;
mod discover;
pub mod format;
mod goose;
pub mod open;
mod opencode;
mod session_tables;
pub(crate) mod shrink;
mod store;
pub(crate) mod version_memo;
mod zed;

use std::path::Path;
use std::time::UNIX_EPOCH;

pub use format::{DbFormat, DbSession};
pub use open::{DbError, ReadOnlyDb};
pub use store::{DatabaseReader, DatabaseStore};

/// The database formats, in the contracts' order: what an `auto` store
/// looks for below its root (agent-logs-db-3.md "auto": after the JSONL
/// and JSON rules and OpenCode's name rule).
pub fn all() -> &'static [&'static dyn DbFormat] {
    static ALL: &[&dyn DbFormat] = &[
        &opencode::OPENCODE,
        &opencode::KILO,
        &goose::Goose,
        &crush::Crush,
        &zed::Zed,
    ];
    ALL
}

/// The database format called `name`, if any.
pub fn by_name(name: &str) -> Option<&'static dyn DbFormat> {
    all().iter().copied().find(|f| f.name() == name)
}

/// Whether `path` is a database of any format, or its `-wal` or
/// `-journal`: a write there may change what the database holds.
pub fn is_written_database(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let base = name
        .strip_suffix("-wal")
        .or_else(|| name.strip_suffix("-journal"))
        .unwrap_or(name);
    all().iter().any(|f| f.is_candidate_name(base))
}

/// The modification time of `path`, Unix epoch milliseconds (0 unknown).
pub fn modified_ms(path: &Path) -> u64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| u64::try_from(d.as_millis()).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;
