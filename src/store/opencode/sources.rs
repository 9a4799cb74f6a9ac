//! What an OpenCode data folder holds that is read: its databases, each a
//! file `opencode.db` or `opencode-<channel>.db` that starts as SQLite
//! files do (agent-logs-more.md "OpenCode").

use std::io;
use std::path::{Path, PathBuf};

pub use crate::store::database::modified_ms;
use crate::store::database::open::is_sqlite;

/// Whether `name` is a database's name: `opencode.db` or `opencode-*.db`.
pub fn is_database_name(name: &str) -> bool {
    name == "opencode.db"
        || name
            .strip_prefix("opencode-")
            .and_then(|rest| rest.strip_suffix(".db"))
            .is_some_and(|channel| !channel.is_empty() && !channel.contains('/'))
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
