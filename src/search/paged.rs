//! The index's folder as tantivy's own [`MmapDirectory`] serves it, but
//! with the read mappings made here, so that their resident pages can be
//! let go.
//!
//! tantivy reads every index file through a memory map. A page read stays
//! in the process's resident memory for as long as the file is mapped:
//! a merge reads whole segments, and in the language server of a large
//! store those pages were up to 58 MiB of its memory for the second each
//! merge took, and what completion's searches touched stayed too (issue 29
//! item 6: the server within 80 MiB at every moment, mapped index pages
//! included). [`Pages::release`] tells the kernel the process no longer
//! needs them (`MADV_DONTNEED`): they stay in the page cache, which the
//! system shares and takes back under pressure, and the next read maps
//! them again from there. Everything else (writes, deletes, the lock, the
//! meta file, watching) is [`MmapDirectory`]'s.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use memmap2::Mmap;
use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, WatchCallback, WatchHandle,
    WritePtr,
};
use tantivy::Directory;

/// An index folder whose read mappings are [`Pages`].
#[derive(Clone)]
pub struct PagedDirectory {
    inner: MmapDirectory,
    root: PathBuf,
    pages: Pages,
}

/// The read mappings of one [`PagedDirectory`], by file: each one mapped
/// once while anything reads it (a reload of the reader maps nothing
/// again), and gone when nothing does.
#[derive(Clone, Default)]
pub struct Pages {
    maps: Arc<Mutex<HashMap<PathBuf, Weak<Mmap>>>>,
    /// The process's resident file pages (its own code, mostly), in bytes,
    /// when the index's pages were last let go (or the directory opened):
    /// what [`Pages::release_above`] counts from. Its code's pages are
    /// counted too, and grow as more of it runs: a floor fixed at the
    /// opening had every search let go once the search code was mapped.
    floor: Arc<AtomicU64>,
}

impl std::fmt::Debug for PagedDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PagedDirectory")
            .field("root", &self.root)
            .finish()
    }
}

impl PagedDirectory {
    pub fn open(root: &Path) -> Result<Self, OpenDirectoryError> {
        let inner = MmapDirectory::open(root)?;
        Ok(PagedDirectory {
            // Where the inner directory resolves names too (it opens the
            // canonical path).
            root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
            inner,
            pages: Pages {
                floor: Arc::new(AtomicU64::new(resident_file_bytes().unwrap_or(0))),
                ..Pages::default()
            },
        })
    }

    /// The mappings' pages, to let go of them from anywhere.
    pub fn pages(&self) -> Pages {
        self.pages.clone()
    }
}

impl Pages {
    /// Lets go of every resident page of the mapped files; returns how
    /// many files are mapped.
    pub fn release(&self) -> usize {
        // Held while advised: a mapping is never unmapped under the call.
        let live: Vec<Arc<Mmap>> = self
            .maps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter_map(Weak::upgrade)
            .collect();
        for map in &live {
            dont_need(map);
        }
        if let Some(now) = resident_file_bytes() {
            self.floor.store(now, Ordering::Relaxed);
        }
        live.len()
    }

    /// [`Pages::release`] once the process holds more than `kept` bytes of
    /// mapped files beyond what it held after the last release (as the
    /// system counts them: `RssFile`); where that cannot be read, always.
    pub fn release_above(&self, kept: u64) {
        let floor = self.floor.load(Ordering::Relaxed);
        match resident_file_bytes() {
            Some(now) if now <= floor.saturating_add(kept) => {}
            _ => {
                self.release();
            }
        }
    }

    fn get_or_map(&self, path: &Path) -> Result<Option<Arc<Mmap>>, OpenReadError> {
        let mut maps = self.maps.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(map) = maps.get(path).and_then(Weak::upgrade) {
            return Ok(Some(map));
        }
        maps.retain(|_, map| map.strong_count() > 0);
        let Some(map) = map_file(path)? else {
            return Ok(None);
        };
        let map = Arc::new(map);
        maps.insert(path.to_path_buf(), Arc::downgrade(&map));
        Ok(Some(map))
    }
}

/// Lets go of [`Pages`] while it lives, whenever more than
/// [`Pager::KEPT`] of mapped pages came since the last time (looked at
/// every [`Pager::EVERY`]), and once more when it goes. A merge reads
/// whole segments, at 100–200 MB/s: let go every 100 ms, its pages were
/// 10–13 MiB of the language server's memory at the moments it peaked
/// (docs/performance.md, stop 44); looked at every 10 ms they stay within
/// a few MiB, and a build that maps nothing new lets go of nothing.
pub struct Pager {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    pages: Pages,
}

impl Pager {
    pub const EVERY: Duration = Duration::from_millis(10);
    /// The mapped pages a build may hold beyond what it held after the
    /// last release.
    pub const KEPT: u64 = 2 << 20;

    pub fn start(pages: Pages) -> Pager {
        let (stop, stopped) = mpsc::channel::<()>();
        let released = pages.clone();
        // Without a thread the pages are still let go when the pager goes.
        let thread = std::thread::Builder::new()
            .name("search-pager".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(Self::EVERY) {
                    released.release_above(Self::KEPT);
                }
            })
            .ok();
        Pager {
            stop: Some(stop),
            thread,
            pages,
        }
    }
}

impl Drop for Pager {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.pages.release();
    }
}

/// `path` mapped for reading; `None` for an empty file (which cannot be).
fn map_file(path: &Path) -> Result<Option<Mmap>, OpenReadError> {
    let file = File::open(path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            OpenReadError::FileDoesNotExist(path.to_path_buf())
        } else {
            OpenReadError::wrap_io_error(e, path.to_path_buf())
        }
    })?;
    let len = file
        .metadata()
        .map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))?
        .len();
    if len == 0 {
        return Ok(None);
    }
    // SAFETY: tantivy writes an index file once, whole, before any reader
    // opens it, and never changes it in place afterwards (a new segment is
    // new files; a merged one is deleted only when nothing maps it), so the
    // mapped bytes do not change under the readers; tantivy's own directory
    // maps them the same way.
    unsafe { Mmap::map(&file) }
        .map(Some)
        .map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))
}

/// The process's resident pages of mapped files (`RssFile`), in bytes.
fn resident_file_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("RssFile:"))?;
    let kib: u64 = line
        .trim_start_matches("RssFile:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(unix)]
fn dont_need(map: &Mmap) {
    // SAFETY: `Mmap::map` maps the file shared and read-only. Dropping the
    // resident pages of such a mapping loses nothing: the next read maps
    // the file's bytes again (from the page cache, else the disk), and
    // the file does not change (`map_file`). The mapping stays mapped
    // while this runs: `map` is borrowed from a live `Arc`.
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
}

#[cfg(not(unix))]
fn dont_need(_map: &Mmap) {}

/// A mapping as tantivy's bytes: they live in the mapping, which does not
/// move when this does.
struct Mapped(Arc<Mmap>);

impl Deref for Mapped {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

// SAFETY: the bytes are the mapping's, at an address fixed until it is
// unmapped, which happens only when the last `Arc` goes.
unsafe impl stable_deref_trait::StableDeref for Mapped {}

impl Directory for PagedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let bytes = match self.pages.get_or_map(&self.root.join(path))? {
            Some(map) => OwnedBytes::new(Mapped(map)),
            None => OwnedBytes::empty(),
        };
        Ok(Arc::new(bytes))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.inner.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_the_same_before_and_after_its_pages_are_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("a.idx"), &bytes).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        let directory = PagedDirectory::open(dir.path()).unwrap();
        let handle = directory.get_file_handle(Path::new("a.idx")).unwrap();
        let before = handle.read_bytes(0..bytes.len()).unwrap();
        assert_eq!(before.as_slice(), &bytes[..]);
        assert_eq!(directory.pages().release(), 1);
        assert_eq!(
            handle.read_bytes(1000..5000).unwrap().as_slice(),
            &bytes[1000..5000]
        );
        assert_eq!(before.as_slice(), &bytes[..]);
        // One mapping per file while it is read.
        let again = directory.get_file_handle(Path::new("a.idx")).unwrap();
        assert_eq!(directory.pages().release(), 1);
        drop((handle, again, before));
        assert_eq!(directory.pages().release(), 0);
        let empty = directory.get_file_handle(Path::new("empty")).unwrap();
        assert_eq!(empty.len(), 0);
        assert!(matches!(
            directory.get_file_handle(Path::new("missing")),
            Err(OpenReadError::FileDoesNotExist(_))
        ));
    }

    #[test]
    fn reads_while_the_pages_are_let_go_again_and_again_see_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let bytes: Vec<u8> = (0..(4u32 << 20))
            .map(|i| (i.wrapping_mul(31) >> 3) as u8)
            .collect();
        std::fs::write(dir.path().join("big.pos"), &bytes).unwrap();
        let directory = PagedDirectory::open(dir.path()).unwrap();
        let handle = directory.get_file_handle(Path::new("big.pos")).unwrap();
        let pages = directory.pages();
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    pages.release();
                }
            });
            let mut at = 12_345usize;
            for _ in 0..2_000 {
                at = (at * 7919 + 104_729) % (bytes.len() - 70_000);
                let read = handle.read_bytes(at..at + 70_000).unwrap();
                assert_eq!(read.as_slice(), &bytes[at..at + 70_000]);
            }
            done.store(true, Ordering::Relaxed);
        });
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_process_s_mapped_pages_are_counted() {
        // At least this test binary's own code is resident and mapped.
        assert!(resident_file_bytes().is_some_and(|bytes| bytes > 0));
    }
}
