//! An index file that many logs take facts from (Cline's
//! `state/taskHistory.json` and `tasks/_index.json`, Continue's
//! `sessions.json`), parsed once per change of the file and shared: every
//! log of a store of 1,000 tasks looks its entry up in one parse, not in a
//! thousand. Opened through [`crate::fsio`]: no link as the file, never a
//! FIFO's wait.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::fsio::{self, Links};

/// The largest index file read; a larger one is ignored.
pub const INDEX_MAX: u64 = 64 << 20;

/// Index files kept parsed at once (a store or two of each agent).
const KEPT: usize = 8;

/// What tells one version of a file from another without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    len: u64,
    modified_ns: i128,
    #[cfg(unix)]
    ino: u64,
}

impl Version {
    fn of(meta: &std::fs::Metadata) -> Version {
        let modified_ns = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Version {
            len: meta.len(),
            modified_ns,
            #[cfg(unix)]
            ino: std::os::unix::fs::MetadataExt::ino(meta),
        }
    }
}

/// Parsed index files of one kind, the most recently used first.
#[derive(Debug)]
pub struct SideIndex<V> {
    kept: Mutex<Vec<(PathBuf, Version, Arc<V>)>>,
}

impl<V> SideIndex<V> {
    pub const fn new() -> Self {
        Self {
            kept: Mutex::new(Vec::new()),
        }
    }

    /// The file at `path` parsed by `parse` (from its bytes), from the
    /// cache while the file is unchanged; `None` when it is absent, not a
    /// regular file, larger than [`INDEX_MAX`], unreadable, or when `parse`
    /// says it does not parse (then parsed again next time).
    pub fn get(&self, path: &Path, parse: impl FnOnce(&[u8]) -> Option<V>) -> Option<Arc<V>> {
        let file = fsio::open_regular(path, Links::NoFollow).ok()?;
        let version = Version::of(&file.metadata().ok()?);
        if let Ok(kept) = self.kept.lock() {
            if let Some((_, _, v)) = kept.iter().find(|(p, k, _)| p == path && *k == version) {
                return Some(v.clone());
            }
        }
        if version.len > INDEX_MAX {
            return None;
        }
        let mut bytes = Vec::new();
        file.take(INDEX_MAX).read_to_end(&mut bytes).ok()?;
        let parsed = Arc::new(parse(&bytes)?);
        if let Ok(mut kept) = self.kept.lock() {
            kept.retain(|(p, _, _)| p != path);
            kept.insert(0, (path.to_path_buf(), version, parsed.clone()));
            kept.truncate(KEPT);
        }
        Some(parsed)
    }
}

impl<V> Default for SideIndex<V> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_parsed_again_only_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.json");
        let index = SideIndex::<usize>::new();
        assert!(index.get(&path, |b| Some(b.len())).is_none());
        std::fs::write(&path, "abc").unwrap();
        assert_eq!(index.get(&path, |b| Some(b.len())).as_deref(), Some(&3));
        // Unchanged: the kept parse, whatever the parser would say now.
        assert_eq!(index.get(&path, |_| Some(99)).as_deref(), Some(&3));
        std::fs::write(&path, "abcdef").unwrap();
        assert_eq!(index.get(&path, |b| Some(b.len())).as_deref(), Some(&6));
        std::fs::write(&path, "x").unwrap();
        assert!(index.get(&path, |_| None::<usize>).is_none());
        assert!(index.get(dir.path(), |b| Some(b.len())).is_none());
    }
}
