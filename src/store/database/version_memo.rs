//! The cheap stamps of a database's sessions ([`SessionReader::stamp`]):
//! what an index that follows the store (search) checks of every session
//! whenever the store changed anywhere, an append to one Claude Code log
//! included. A session's full version reads it (a Zed thread is
//! decompressed, a Goose session's messages are walked), so checking a
//! thousand database sessions that way took a second of CPU on every
//! change of any log (issue 24's steady state).
//!
//! So each session's version is remembered with the `stat` of the
//! database's files (the database and its `-wal`; the `-shm` holds no
//! rows, and every reader writes it): while they are as they were, no row
//! changed. That is the trust a folder store puts in a log's `stat`, with
//! the same guard: files written within [`Stamp::RACY`] of their `stat`
//! could hide a later write in the same tick, so their sessions are read
//! every time until they are older.
//!
//! [`SessionReader::stamp`]: crate::model::SessionReader::stamp

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::model::Version;
use crate::store::stamp::Stamp;

/// Remembered versions, by database path.
#[derive(Debug, Default)]
pub struct VersionMemo {
    databases: Mutex<HashMap<PathBuf, Memo>>,
}

/// The database file and its `-wal` (absent: `None`).
type Files = [Option<Stamp>; 2];

#[derive(Debug)]
struct Memo {
    /// The files when the versions were read, old enough then to show any
    /// later write.
    files: Files,
    /// Each session's version token, by id.
    versions: HashMap<String, u64>,
}

impl VersionMemo {
    /// Session `id`'s stamp in the database at `path`: its version as
    /// remembered while the database's files are unchanged, else what
    /// `version` reads now (called only then).
    pub fn stamp(
        &self,
        path: &Path,
        id: &str,
        version: impl FnOnce() -> Option<Version>,
    ) -> Option<Version> {
        // The files before the read: a write during it then shows as
        // files changed since, never as a version that hides it.
        let files = files_of(path);
        let trusted = files[0].is_some() && files.iter().flatten().all(|f| !f.is_racy());
        if trusted {
            if let Some(token) = self.remembered(path, id, &files) {
                return Some(token_version(token));
            }
        }
        let token = version()?.token();
        if trusted {
            self.remember(path, id, files, token);
        }
        Some(token_version(token))
    }

    fn remembered(&self, path: &Path, id: &str, files: &Files) -> Option<u64> {
        let databases = self.databases.lock().ok()?;
        let memo = databases.get(path).filter(|m| m.files == *files)?;
        memo.versions.get(id).copied()
    }

    /// Keeps `id`'s token read under `files`; the versions of other files
    /// are forgotten (the database changed since).
    fn remember(&self, path: &Path, id: &str, files: Files, token: u64) {
        let Ok(mut databases) = self.databases.lock() else {
            return;
        };
        let memo = databases.entry(path.to_path_buf()).or_insert_with(|| Memo {
            files,
            versions: HashMap::new(),
        });
        if memo.files != files {
            memo.files = files;
            memo.versions.clear();
        }
        memo.versions.insert(id.to_string(), token);
    }
}

/// A version that is only its token (all a stamp's callers compare): the
/// full key need not be kept per session.
fn token_version(token: u64) -> Version {
    Version(token.to_le_bytes().to_vec())
}

fn files_of(path: &Path) -> Files {
    let mut wal = path.as_os_str().to_os_string();
    wal.push("-wal");
    [Stamp::of_path(path), Stamp::of_path(Path::new(&wal))]
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::time::{Duration, SystemTime};

    use super::*;

    /// `path` as written long enough ago to be trusted.
    fn aged(path: &Path, bytes: &[u8]) {
        std::fs::write(path, bytes).unwrap();
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(60))
            .unwrap();
    }

    fn reading<'a>(
        reads: &'a Cell<usize>,
        content: &'a str,
    ) -> impl FnOnce() -> Option<Version> + 'a {
        move || {
            reads.set(reads.get() + 1);
            Some(Version(content.as_bytes().to_vec()))
        }
    }

    /// A database last written long enough ago to be trusted.
    fn aged_database() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent.db");
        aged(&path, b"rows");
        (dir, path)
    }

    #[test]
    fn an_unchanged_database_is_not_read_again() {
        let (_dir, path) = aged_database();
        let (memo, reads) = (VersionMemo::default(), Cell::new(0));
        let first = memo.stamp(&path, "a", reading(&reads, "one"));
        let again = memo.stamp(&path, "a", reading(&reads, "two"));
        assert_eq!(first, again, "remembered: the files did not change");
        assert_eq!(reads.get(), 1);
        // Another session of the same database is read once.
        memo.stamp(&path, "b", reading(&reads, "one"));
        memo.stamp(&path, "b", reading(&reads, "one"));
        assert_eq!(reads.get(), 2);
    }

    #[test]
    fn a_write_to_the_database_or_its_wal_reads_every_session_again() {
        let (dir, path) = aged_database();
        let (memo, reads) = (VersionMemo::default(), Cell::new(0));
        let before = memo.stamp(&path, "a", reading(&reads, "one"));
        memo.stamp(&path, "b", reading(&reads, "one"));
        aged(&dir.path().join("agent.db-wal"), b"frames");
        let after = memo.stamp(&path, "a", reading(&reads, "two"));
        assert_ne!(before, after);
        memo.stamp(&path, "b", reading(&reads, "two"));
        assert_eq!(reads.get(), 4);
        // A reader's `-shm` is no write.
        aged(&dir.path().join("agent.db-shm"), b"marks");
        memo.stamp(&path, "a", reading(&reads, "two"));
        assert_eq!(reads.get(), 4);
    }

    /// How many times two stamps of one session read it.
    fn reads_of_two_stamps(path: &Path) -> usize {
        let memo = VersionMemo::default();
        let reads = Cell::new(0);
        memo.stamp(path, "a", reading(&reads, "one"));
        memo.stamp(path, "a", reading(&reads, "one"));
        reads.get()
    }

    #[test]
    fn a_database_written_just_now_is_read_every_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent.db");
        std::fs::write(&path, b"rows").unwrap();
        // Its `stat` could hide a write in the same tick.
        assert_eq!(reads_of_two_stamps(&path), 2);
    }

    #[test]
    fn a_database_that_cannot_be_stat_is_read_every_time() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(reads_of_two_stamps(&dir.path().join("gone.db")), 2);
    }
}
