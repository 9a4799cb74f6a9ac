//! The spill directory (reference.md §5a): full snapshots stored
//! atomically under their SHA-256, mode 0600 in 0700 folders, and kept
//! under a size cap. Only `prepare` calls it.

use std::collections::HashSet;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::config::spill::SpillDir;
use crate::fsio::{self, Links};
use crate::reference::full_snapshot::{FullSnapshot, SpillStore};
use crate::reference::json::tag_safe_len;

/// Temporary files older than this are removed by eviction.
const STALE_TEMP: Duration = Duration::from_secs(3600);
/// Temporary files are `.hydra-spill-<random>.tmp` (never ending in
/// `.json`): eviction removes no other name, so a person's `.tmp-notes`
/// in a folder given as `--spill-dir` is never touched.
const TEMP_PREFIX: &str = ".hydra-spill-";
const TEMP_SUFFIX: &str = ".tmp";
const WRITE_BUFFER: usize = 256 * 1024;

/// A spill directory and its size cap.
#[derive(Debug, Clone)]
pub struct Spill {
    dir: Result<PathBuf, String>,
    max_bytes: u64,
    /// Store roots the directory must not be inside of.
    stores: Vec<PathBuf>,
}

impl Spill {
    /// The spill store for a setting; `None` when spilling is disabled.
    pub fn for_setting(dir: &SpillDir, max_bytes: u64) -> Option<Self> {
        let dir = match dir {
            SpillDir::Disabled => return None,
            SpillDir::Dir(dir) => Ok(dir.clone()),
            SpillDir::Unknown(why) => Err(why.clone()),
        };
        Some(Self {
            dir,
            max_bytes,
            stores: Vec::new(),
        })
    }

    /// The same store, refusing to write inside any of `roots`: nothing is
    /// ever written into a session store (`--store ~` and the default
    /// spill directory under `~/.cache`).
    pub fn outside_of(mut self, roots: &[PathBuf]) -> Self {
        self.stores = roots.to_vec();
        self
    }

    /// `Err` naming the store when `dir` is inside one.
    fn outside_stores(&self, dir: &Path) -> Result<(), String> {
        match self.stores.iter().find(|r| fsio::is_inside(dir, r)) {
            Some(root) => Err(format!(
                "{} is inside the session store {}",
                dir.display(),
                root.display()
            )),
            None => Ok(()),
        }
    }

    /// Stores one snapshot: its path and length.
    fn try_store(
        &self,
        write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(String, u64), String> {
        let dir = self.dir.as_ref().map_err(Clone::clone)?;
        let dir_text = dir
            .to_str()
            .ok_or("the spill directory's path is not UTF-8")?
            .trim_end_matches('/');
        self.outside_stores(dir)?;
        fsio::create_private_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // Another user who can replace a stored file can put words in the
        // agent's mouth: such a folder is never used.
        fsio::refuse_shared_dir(dir).map_err(|e| e.to_string())?;
        let temp = fsio::private_temp_file(dir, TEMP_PREFIX, TEMP_SUFFIX)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let (hasher, bytes) = {
            let mut out = HashingWriter {
                inner: BufWriter::with_capacity(WRITE_BUFFER, temp.as_file()),
                hasher: Sha256::new(),
                bytes: 0,
            };
            write(&mut out).map_err(|e| e.to_string())?;
            out.inner.flush().map_err(|e| e.to_string())?;
            (out.hasher, out.bytes)
        };
        let name = format!("{:x}.json", hasher.finalize());
        let path = dir.join(&name);
        match fs::symlink_metadata(&path) {
            // Same bytes by construction: keep it, and mark it fresh.
            Ok(meta) if meta.is_file() => touch(&path),
            // Renamed over anything else (a link is replaced, never
            // followed); dropping `temp` on failure removes it.
            _ => {
                temp.persist(&path)
                    .map_err(|e| format!("{}: {}", path.display(), e.error))?;
            }
        }
        Ok((format!("{dir_text}/{name}"), bytes))
    }

    fn try_evict(&self, keep: &[String]) -> io::Result<()> {
        let Ok(dir) = &self.dir else { return Ok(()) };
        // Nothing is removed from a folder that is not the program's own.
        if self.outside_stores(dir).is_err() || fsio::refuse_shared_dir(dir).is_err() {
            return Ok(());
        }
        let keep: HashSet<&str> = keep.iter().filter_map(|p| p.rsplit('/').next()).collect();
        let now = SystemTime::now();
        let mut snapshots = Vec::new();
        let mut total = 0u64;
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            // Not following links: only regular files the current user
            // owns, named as the program names them, are its own.
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() || !fsio::owned_by_me(&meta) {
                continue;
            }
            let modified = meta.modified().unwrap_or(UNIX_EPOCH);
            if is_snapshot_name(&name) {
                total += meta.len();
                snapshots.push((modified, name, meta.len()));
            } else if fsio::is_temp_name(&name, TEMP_PREFIX, TEMP_SUFFIX)
                && now.duration_since(modified).unwrap_or_default() > STALE_TEMP
            {
                let _ = fs::remove_file(entry.path());
            }
        }
        if total <= self.max_bytes {
            return Ok(());
        }
        snapshots.sort();
        for (_, name, len) in snapshots {
            if total <= self.max_bytes {
                break;
            }
            if keep.contains(name.as_str()) {
                continue;
            }
            if fs::remove_file(dir.join(&name)).is_ok() {
                total -= len;
            }
        }
        Ok(())
    }
}

impl SpillStore for Spill {
    fn store(&self, write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>) -> FullSnapshot {
        match self.try_store(write) {
            Ok((path, bytes)) => FullSnapshot::Stored { path, bytes },
            Err(why) => FullSnapshot::Unavailable(format!("spill failed: {why}")),
        }
    }

    fn evict(&self, keep: &[String]) {
        // A failure while evicting changes no locator.
        let _ = self.try_evict(keep);
    }

    fn locator_bound(&self) -> usize {
        // Every reason `try_store` gives names at most the folder (or a
        // file in it) and one store root, with a few words and an OS
        // error's text around them; a stored path is the folder and a
        // snapshot's name.
        let dir = match &self.dir {
            Ok(dir) => tag_safe_len(&dir.to_string_lossy()),
            Err(why) => tag_safe_len(why),
        };
        let root = self
            .stores
            .iter()
            .map(|root| tag_safe_len(&root.to_string_lossy()))
            .max()
            .unwrap_or(0);
        "spill failed: ".len() + dir + "/".len() + SNAPSHOT_NAME_LEN + root + REASON_WORDS
    }
}

/// A snapshot's file name: 64 hexadecimal digits and `.json`.
const SNAPSHOT_NAME_LEN: usize = 69;
/// Room for the fixed words of a failure and the OS error's own text
/// (`Permission denied (os error 13)`, `is owned by another user (uid …)`).
const REASON_WORDS: usize = 160;

/// `^[0-9a-f]{64}\.json$`
pub fn is_snapshot_name(name: &str) -> bool {
    name.len() == SNAPSHOT_NAME_LEN
        && name.ends_with(".json")
        && name[..64]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Sets a stored file's modification time to now (best effort; the file
/// itself, never a link's target).
fn touch(path: &Path) {
    if let Ok(file) = fsio::open_regular(path, Links::NoFollow) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// Hashes and counts what it writes.
struct HashingWriter<W: Write> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    fn spill(dir: &Path, max: u64) -> Spill {
        Spill::for_setting(&SpillDir::Dir(dir.to_path_buf()), max).unwrap()
    }

    /// What a locator adds outside a budget never exceeds the bound a
    /// host plans with, whether the snapshot was stored or refused.
    #[test]
    fn a_locator_stays_within_its_bound() {
        use crate::reference::full_snapshot::omission_bound;
        use crate::reference::render::append_omission;
        let root = tempfile::tempdir().unwrap();
        // `<` is escaped to six bytes in the locator.
        let deep = root.path().join("<deep>".repeat(40));
        let store_root = root.path().join("store");
        fs::create_dir_all(&store_root).unwrap();
        let cases = [
            spill(&deep, 1 << 20),
            // Refused: inside a store, whose path the reason names.
            spill(&store_root.join("snapshots"), 1 << 20)
                .outside_of(std::slice::from_ref(&store_root)),
        ];
        for (s, stored) in cases.into_iter().zip([true, false]) {
            let full = s.store(&mut |w| w.write_all(b"x"));
            assert_eq!(
                matches!(full, FullSnapshot::Stored { .. }),
                stored,
                "{full:?}"
            );
            let mut object = String::from("{}");
            append_omission(&mut object, 7, 1234, &full);
            let added = object.len() - 2;
            assert!(added <= omission_bound(s.locator_bound()), "{full:?}");
        }
    }

    #[test]
    fn stores_by_hash_atomically_with_private_modes() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        let s = spill(&dir, 1 << 20);
        let stored = s.store(&mut |w| w.write_all(b"hello\n"));
        let FullSnapshot::Stored { path, bytes } = stored else {
            panic!("{stored:?}")
        };
        assert_eq!(bytes, 6);
        let name = format!("{:x}.json", Sha256::digest(b"hello\n"));
        assert_eq!(path, format!("{}/{name}", dir.display()));
        assert_eq!(fs::read(&path).unwrap(), b"hello\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(Path::new(&path)), 0o600);
            assert_eq!(mode(&dir), 0o700);
            assert_eq!(mode(&root.path().join("a")), 0o700);
        }
        // Stored again: the file is kept, and nothing else is left.
        let again = s.store(&mut |w| w.write_all(b"hello\n"));
        assert!(matches!(again, FullSnapshot::Stored { .. }));
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let s = spill(root.path(), 1 << 20);
        let stored = s.store(&mut |w| {
            w.write_all(b"part")?;
            Err(io::Error::other("boom"))
        });
        assert!(
            matches!(&stored, FullSnapshot::Unavailable(r) if r.starts_with("spill failed: ")),
            "{stored:?}"
        );
        assert_eq!(fs::read_dir(root.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_file_in_the_way_is_unavailable() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("f");
        fs::write(&file, b"x").unwrap();
        let stored = spill(&file, 1 << 20).store(&mut |w| w.write_all(b"y"));
        assert!(matches!(stored, FullSnapshot::Unavailable(_)));
        let below = spill(&file.join("sub"), 1 << 20).store(&mut |w| w.write_all(b"y"));
        assert!(matches!(below, FullSnapshot::Unavailable(_)));
        assert_eq!(fs::read(&file).unwrap(), b"x");
    }

    #[test]
    fn eviction_removes_the_oldest_but_never_what_is_kept() {
        let root = tempfile::tempdir().unwrap();
        let s = spill(root.path(), 10);
        let mut paths = Vec::new();
        for (i, text) in ["aaaaaaaa", "bbbbbbbb", "cccccccc"].iter().enumerate() {
            let FullSnapshot::Stored { path, .. } = s.store(&mut |w| w.write_all(text.as_bytes()))
            else {
                panic!()
            };
            let when = SystemTime::now() - Duration::from_secs(100 - i as u64);
            File::open(&path).unwrap().set_modified(when).unwrap();
            paths.push(path);
        }
        fs::write(root.path().join("other.txt"), vec![b'x'; 100]).unwrap();
        // A stale temporary file of the program's, and a person's file
        // that merely looks temporary: only the first goes.
        let stale = root.path().join(".hydra-spill-a1B2c3D4e5F6.tmp");
        let notes = root.path().join(".tmp-my-notes");
        for file in [&stale, &notes] {
            fs::write(file, b"partial").unwrap();
            File::options()
                .write(true)
                .open(file)
                .unwrap()
                .set_modified(SystemTime::now() - Duration::from_secs(7200))
                .unwrap();
        }
        s.evict(&paths[..1]);
        // 24 bytes > 10: the oldest not kept (b) goes, then c; a is kept.
        assert!(Path::new(&paths[0]).exists());
        assert!(!Path::new(&paths[1]).exists());
        assert!(!Path::new(&paths[2]).exists());
        assert!(root.path().join("other.txt").exists());
        assert!(!stale.exists());
        assert!(notes.exists());
    }
}
