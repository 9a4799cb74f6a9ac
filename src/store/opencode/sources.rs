//! What an OpenCode data folder holds that is read: its databases, each a
//! file `opencode.db` or `opencode-<channel>.db` that starts as SQLite
//! files do (agent-logs-more.md "OpenCode").

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::fsio::{self, Links};

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whether `name` is a database's name: `opencode.db` or `opencode-*.db`.
pub fn is_database_name(name: &str) -> bool {
    name == "opencode.db"
        || name
            .strip_prefix("opencode-")
            .and_then(|rest| rest.strip_suffix(".db"))
            .is_some_and(|channel| !channel.is_empty() && !channel.contains('/'))
}

/// Whether the file at `path` starts as a SQLite database (read without
/// following a last link, without blocking).
fn is_sqlite(path: &Path) -> bool {
    let Ok(file) = fsio::open_regular(path, Links::NoFollow) else {
        return false;
    };
    let mut head = [0u8; 16];
    file.take(16).read_exact(&mut head).is_ok() && &head == SQLITE_MAGIC
}

/// The databases directly in `root`, by name.
pub fn databases(root: &Path) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(root)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if is_database_name(&name) && is_sqlite(&root.join(&name)) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// A locator's name as a path below the root.
pub fn name_path(name: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(name).into_owned())
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
mod tests {
    use super::*;

    #[test]
    fn database_names_are_those_opencode_gives_its_channels() {
        assert!(is_database_name("opencode.db"));
        assert!(is_database_name("opencode-dev.db"));
        assert!(!is_database_name("opencode-.db"));
        assert!(!is_database_name("opencode.db-wal"));
        assert!(!is_database_name("other.db"));
    }

    #[test]
    fn only_sqlite_files_of_those_names_are_databases() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("opencode-x.db"), b"not sqlite").unwrap();
        rusqlite::Connection::open(dir.path().join("opencode.db"))
            .unwrap()
            .execute_batch("CREATE TABLE t (x);")
            .unwrap();
        assert_eq!(databases(dir.path()).unwrap(), ["opencode.db"]);
    }
}
