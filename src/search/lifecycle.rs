//! How long an index stays in the cache (issue 29 item 5): each use
//! (opening, every update) stamps its folder's modification time; when a
//! face opens an index in the default place, the other index folders
//! beside it unused for [`UNUSED_DAYS`] are removed, and beyond the
//! [`MAX_INDEXES`] most recently used the rest too. One `readdir` of the
//! cache folder and a `stat` per entry: cheap at every start.
//!
//! Only our own folders: named as [`super::location::index_dir`] names
//! them (`index-` and 16 hex digits, or one moved aside, `.broken-<ms>`),
//! real folders (never a link, never followed), owned by this user; one
//! whose writer lock is held is in use and stays.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::fsio::{self, Links};

/// Days an index may go unused before the next start removes it.
pub const UNUSED_DAYS: u64 = 30;
/// Index folders the cache keeps at most (one per store list used).
pub const MAX_INDEXES: usize = 16;

/// tantivy's lock file, there while a writer holds the index.
const WRITER_LOCK: &str = ".tantivy-writer.lock";

/// Stamps `dir` as used now (its own modification time, set through the
/// folder opened without following a link; a failure only makes it look
/// older).
pub fn mark_used(dir: &Path) {
    let Ok(folder) = fsio::open_nonblocking(dir, Links::NoFollow) else {
        return;
    };
    if folder.metadata().is_ok_and(|m| m.is_dir()) {
        let _ = folder.set_modified(SystemTime::now());
    }
}

/// Removes the index folders under `root` other than `keep` that are
/// unused for [`UNUSED_DAYS`] or past the [`MAX_INDEXES`] most recently
/// used; how many were removed.
pub fn remove_unused(root: &Path, keep: &Path, now: SystemTime) -> usize {
    let Ok(entries) = fs::read_dir(root) else {
        return 0;
    };
    let mut ours: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path == keep || !is_index_name(&entry.file_name().to_string_lossy()) {
            continue;
        }
        // The entry's own type: a link is never a folder here.
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || !mine(&meta) || path.join(WRITER_LOCK).exists() {
            continue;
        }
        ours.push((meta.modified().unwrap_or(now), path));
    }
    // Newest first; `keep` is one of the kept.
    ours.sort_by_key(|b| std::cmp::Reverse(b.0));
    let oldest = now
        .checked_sub(Duration::from_secs(UNUSED_DAYS * 86_400))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut removed = 0;
    for (rank, (used, path)) in ours.iter().enumerate() {
        if *used < oldest || rank + 1 >= MAX_INDEXES {
            // `remove_dir_all` removes links inside, never what they
            // point to.
            match fs::remove_dir_all(path) {
                Ok(()) => removed += 1,
                Err(e) => tracing::debug!("unused search index {}: {e}", path.display()),
            }
        }
    }
    removed
}

/// `index-` and 16 lowercase hex digits, optionally `.broken-` and digits.
fn is_index_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("index-") else {
        return false;
    };
    let (hash, tail) = rest.split_at(rest.len().min(16));
    let hex = hash.len() == 16
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let tail_ok = tail.is_empty()
        || tail
            .strip_prefix(".broken-")
            .is_some_and(|ms| !ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit()));
    hex && tail_ok
}

#[cfg(unix)]
fn mine(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw()
}

#[cfg(not(unix))]
fn mine(_: &fs::Metadata) -> bool {
    true
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(86_400);

    fn folder(root: &Path, name: &str, age: Duration) -> PathBuf {
        let dir = root.join(name);
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("meta.json"), "{}").unwrap();
        let folder = fs::File::open(&dir).unwrap();
        folder.set_modified(SystemTime::now() - age).unwrap();
        dir
    }

    #[test]
    fn names_are_ours_only() {
        assert!(is_index_name("index-0123456789abcdef"));
        assert!(is_index_name("index-0123456789abcdef.broken-17"));
        for other in [
            "index-0123456789abcde",
            "index-0123456789ABCDEF",
            "index-0123456789abcdef.old",
            "index-0123456789abcdef.broken-",
            "notes",
        ] {
            assert!(!is_index_name(other), "{other}");
        }
    }

    /// An index unused for 30 days goes; a recent one, the one in use, a
    /// folder of another name, a link to an old index and what it points
    /// to, and an index whose writer is busy stay.
    #[test]
    fn indexes_unused_for_thirty_days_are_removed_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("search");
        fs::create_dir(&root).unwrap();
        let old = folder(&root, "index-000000000000000a", 40 * DAY);
        let aside = folder(&root, "index-000000000000000a.broken-5", 31 * DAY);
        let recent = folder(&root, "index-000000000000000b", 2 * DAY);
        let keep = folder(&root, "index-000000000000000c", 90 * DAY);
        let foreign = folder(&root, "mine-not-yours", 90 * DAY);
        let busy = folder(&root, "index-000000000000000d", 90 * DAY);
        fs::write(busy.join(WRITER_LOCK), "").unwrap();
        let outside = folder(tmp.path(), "index-00000000000000ee", 90 * DAY);
        std::os::unix::fs::symlink(&outside, root.join("index-000000000000000e")).unwrap();
        assert_eq!(remove_unused(&root, &keep, SystemTime::now()), 2);
        assert!(!old.exists() && !aside.exists());
        for stays in [&recent, &keep, &foreign, &busy, &outside] {
            assert!(stays.join("meta.json").exists(), "{}", stays.display());
        }
        assert!(fs::symlink_metadata(root.join("index-000000000000000e")).is_ok());
        // Used again: stamped now, so it stays past the next start.
        mark_used(&recent);
        let later = SystemTime::now() + 29 * DAY;
        assert_eq!(remove_unused(&root, &keep, later), 0);
    }

    #[test]
    fn beyond_the_most_recently_used_the_rest_go() {
        let tmp = tempfile::tempdir().unwrap();
        let keep = folder(tmp.path(), "index-ffffffffffffffff", Duration::ZERO);
        for i in 0..MAX_INDEXES + 2 {
            folder(
                tmp.path(),
                &format!("index-{i:016x}"),
                Duration::from_secs(60 * (i as u64 + 1)),
            );
        }
        assert_eq!(remove_unused(tmp.path(), &keep, SystemTime::now()), 3);
        let left = fs::read_dir(tmp.path()).unwrap().count();
        assert_eq!(left, MAX_INDEXES);
    }
}
