//! Finding candidate logs below a store root (session-log.md "Store"),
//! each with its stamp.
//!
//! The walk stats every log it keeps, relative to the folder it is reading
//! (one path component per look, not the whole path), and reads folders on
//! several threads: on an unchanged store of 100,000 logs the walk is most
//! of what a refresh costs.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::stamp::{DirStat, Stamp};

/// One `*.jsonl` regular file below the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    /// The path relative to the root, `/`-separated, as raw bytes: the
    /// order of these bytes decides which of two same-id logs wins.
    pub rel: Vec<u8>,
    /// The folder it is in, shared by the folder's files (a store of
    /// 100,000 logs has few folders): its name is the last part of `rel`.
    pub dir: Arc<Path>,
    /// What it looked like when the walk found it.
    pub(crate) stamp: Stamp,
}

impl LogFile {
    /// The relative path for messages.
    pub fn display(&self) -> String {
        String::from_utf8_lossy(&self.rel).into_owned()
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(file_name(&self.rel))
    }
}

/// The file name at the end of a relative path as [`find_logs`] names it.
pub fn file_name(rel: &[u8]) -> &OsStr {
    let name = match memchr::memrchr(b'/', rel) {
        Some(slash) => &rel[slash + 1..],
        None => rel,
    };
    os_str(name)
}

#[cfg(unix)]
fn os_str(bytes: &[u8]) -> &OsStr {
    use std::os::unix::ffi::OsStrExt;
    OsStr::from_bytes(bytes)
}

// Elsewhere relative paths are built from UTF-8 names only (`name_bytes`).
#[cfg(not(unix))]
fn os_str(bytes: &[u8]) -> &OsStr {
    OsStr::new(std::str::from_utf8(bytes).unwrap_or(""))
}

/// What a walk of a store found.
#[derive(Debug, Default)]
pub struct Walk {
    /// The logs, sorted by relative path bytes.
    pub logs: Vec<LogFile>,
    /// Folders below the root that could not be read (`rel: error`): their
    /// sessions are missing, and the user must be told.
    pub errors: Vec<String>,
    /// Regular files passed over by their name (no format of the store
    /// reads them): counted, so a store of such files alone can say why it
    /// lists nothing.
    pub unread: usize,
}

/// One directory's entries: names and kinds, the names in one buffer (a
/// folder of 1,000 logs is two allocations, not 1,000).
#[derive(Debug, Default)]
pub struct Entries {
    names: Vec<u8>,
    items: Vec<(usize, usize, EntryKind)>,
}

impl Entries {
    pub fn push(&mut self, name: &OsStr, kind: EntryKind) {
        let start = self.names.len();
        self.names.extend_from_slice(name_bytes(name));
        self.items.push((start, self.names.len(), kind));
    }

    pub fn iter(&self) -> impl Iterator<Item = (&OsStr, EntryKind)> + '_ {
        self.items
            .iter()
            .map(|&(start, end, kind)| (os_str(&self.names[start..end]), kind))
    }
}

/// The kind of one directory entry (symbolic links are `Other`: never
/// followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File,
    Other,
}

/// One folder as the walk reads it: its entries, and the folder kept open
/// to stat the files the walk keeps.
#[derive(Debug)]
pub(crate) struct Listing {
    pub entries: Entries,
    pub folder: DirStat,
}

/// Lists one folder (tests inject failures).
pub(crate) type Lister<'a> = dyn Fn(&Path) -> io::Result<Listing> + Sync + 'a;

/// Every regular file below `root` whose relative path `is_log` accepts,
/// with its stamp, sorted by relative path bytes. Symbolic links below the
/// root are never followed (the root itself may be one). A missing root is
/// an empty store (`Ok(None)`); a root that cannot be read is the error.
///
/// Each worker holds at most one folder open at a time (read whole, its
/// files stamped, closed before the next), so a store of thousands of
/// folders needs no more descriptors than one of a few.
pub fn find_logs(root: &Path, is_log: &(dyn Fn(&[u8]) -> bool + Sync)) -> io::Result<Option<Walk>> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    find_logs_with(root, is_log, &list_dir, workers)
}

/// One directory's entries, names and kinds, with the directory kept open
/// for [`DirStat::stamp`].
pub(crate) fn list_dir(dir: &Path) -> io::Result<Listing> {
    let folder = DirStat::open(Arc::from(dir))?;
    let entries = read_entries(&folder)?;
    Ok(Listing { entries, folder })
}

/// The entries of an open folder, read through its descriptor into one
/// reused buffer (no allocation per entry).
#[cfg(target_os = "linux")]
fn read_entries(folder: &DirStat) -> io::Result<Entries> {
    let mut buf = Vec::with_capacity(32 * 1024);
    let mut out = Entries::default();
    let mut entries = rustix::fs::RawDir::new(folder.fd(), buf.spare_capacity_mut());
    while let Some(entry) = entries.next() {
        let entry = entry?;
        push_entry(
            folder,
            entry.file_name().to_bytes(),
            entry.file_type(),
            &mut out,
        );
    }
    Ok(out)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn read_entries(folder: &DirStat) -> io::Result<Entries> {
    let mut reader = rustix::fs::Dir::read_from(folder.fd())?;
    let mut out = Entries::default();
    while let Some(entry) = reader.read() {
        let entry = entry?;
        push_entry(
            folder,
            entry.file_name().to_bytes(),
            entry.file_type(),
            &mut out,
        );
    }
    Ok(out)
}

#[cfg(unix)]
fn push_entry(folder: &DirStat, name: &[u8], file_type: rustix::fs::FileType, out: &mut Entries) {
    use rustix::fs::FileType;
    use std::os::unix::ffi::OsStrExt;
    if name == b"." || name == b".." {
        return;
    }
    let kind_of = |t: FileType| match t {
        FileType::Directory => EntryKind::Dir,
        FileType::RegularFile => EntryKind::File,
        _ => EntryKind::Other,
    };
    let kind = match file_type {
        // Some file systems leave the type to a stat (not following a link).
        FileType::Unknown => {
            match rustix::fs::statat(folder.fd(), name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => kind_of(FileType::from_raw_mode(st.st_mode as _)),
                Err(_) => EntryKind::Other,
            }
        }
        t => kind_of(t),
    };
    out.push(OsStr::from_bytes(name), kind);
}

#[cfg(not(unix))]
fn read_entries(folder: &DirStat) -> io::Result<Entries> {
    let mut out = Entries::default();
    for entry in std::fs::read_dir(folder.dir())? {
        let entry = entry?;
        let kind = match entry.file_type()? {
            t if t.is_dir() => EntryKind::Dir,
            t if t.is_file() => EntryKind::File,
            _ => EntryKind::Other,
        };
        out.push(&entry.file_name(), kind);
    }
    Ok(out)
}

/// Folders still to read, shared by the workers.
#[derive(Default)]
struct Queue {
    /// Each folder's path and relative path (not open).
    folders: Vec<(PathBuf, Vec<u8>)>,
    /// Workers reading a folder now (which may add folders).
    busy: usize,
}

/// [`find_logs`] over any directory lister, with `workers` threads.
pub(crate) fn find_logs_with(
    root: &Path,
    is_log: &(dyn Fn(&[u8]) -> bool + Sync),
    list: &Lister<'_>,
    workers: usize,
) -> io::Result<Option<Walk>> {
    let top = match list(root) {
        Ok(listing) => listing,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut walk = Walk::default();
    let mut folders = Vec::new();
    visit(top, &[], is_log, &mut folders, &mut walk);
    if !folders.is_empty() {
        let queue = Mutex::new(Queue { folders, busy: 0 });
        let changed = Condvar::new();
        // Each worker sorts what it found; the sorted runs are merged.
        let work = || {
            let mut part = read_folders(root, is_log, list, &queue, &changed);
            sort_by_name(&mut part.logs);
            part
        };
        let found: Vec<Walk> = if workers <= 1 {
            vec![work()]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..workers).map(|_| scope.spawn(work)).collect();
                handles.into_iter().filter_map(|h| h.join().ok()).collect()
            })
        };
        for part in found {
            walk.logs.extend(part.logs);
            walk.errors.extend(part.errors);
            walk.unread += part.unread;
        }
    }
    // A stable sort finds the workers' sorted runs and merges them.
    walk.logs.sort_by(|a, b| a.rel.cmp(&b.rel));
    walk.errors.sort();
    Ok(Some(walk))
}

fn sort_by_name(logs: &mut [LogFile]) {
    logs.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
}

/// One worker: takes folders from the queue until none is left and no
/// other worker can add one.
fn read_folders(
    root: &Path,
    is_log: &(dyn Fn(&[u8]) -> bool + Sync),
    list: &Lister<'_>,
    queue: &Mutex<Queue>,
    changed: &Condvar,
) -> Walk {
    let mut walk = Walk::default();
    let mut found = Vec::new();
    loop {
        let next = {
            let mut q = queue.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if let Some(folder) = q.folders.pop() {
                    q.busy += 1;
                    break Some(folder);
                }
                if q.busy == 0 {
                    break None;
                }
                q = changed.wait(q).unwrap_or_else(PoisonError::into_inner);
            }
        };
        let Some((dir, rel)) = next else {
            changed.notify_all();
            return walk;
        };
        match list(&dir) {
            Ok(listing) => visit(listing, &rel, is_log, &mut found, &mut walk),
            // A folder that vanished mid-walk: stores change under us.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                let rel = String::from_utf8_lossy(&rel).into_owned();
                tracing::warn!("{}: cannot read the folder {rel}: {e}", root.display());
                walk.errors.push(format!("{rel}: {e}"));
            }
        }
        let mut q = queue.lock().unwrap_or_else(PoisonError::into_inner);
        q.folders.append(&mut found);
        q.busy -= 1;
        drop(q);
        changed.notify_all();
    }
}

/// Takes one folder's logs (stamped) and queues its subfolders.
fn visit(
    listing: Listing,
    prefix: &[u8],
    is_log: &(dyn Fn(&[u8]) -> bool + Sync),
    folders: &mut Vec<(PathBuf, Vec<u8>)>,
    walk: &mut Walk,
) {
    let Listing { entries, folder } = listing;
    for (name, kind) in entries.iter() {
        let mut rel = Vec::with_capacity(prefix.len() + 1 + name.len());
        rel.extend_from_slice(prefix);
        if !rel.is_empty() {
            rel.push(b'/');
        }
        rel.extend_from_slice(name_bytes(name));
        match kind {
            EntryKind::Dir => folders.push((folder.dir().join(name), rel)),
            EntryKind::File if is_log(&rel) => {
                // Gone since the listing, or no longer a regular file.
                if let Some(stamp) = folder.stamp(name) {
                    let dir = folder.dir().clone();
                    walk.logs.push(LogFile { rel, dir, stamp });
                }
            }
            EntryKind::File => walk.unread += 1,
            _ => {}
        }
    }
}

/// The path, relative to its store, of a log named `name` there.
#[cfg(unix)]
pub fn name_path(name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(name))
}

#[cfg(not(unix))]
pub fn name_path(name: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(name).into_owned())
}

/// The relative path of `path` below `root`, as `find_logs` would name it.
pub fn relative_log_path(root: &Path, path: &Path) -> Option<Vec<u8>> {
    let rel = path.strip_prefix(root).ok()?;
    let mut out = Vec::new();
    for part in rel.components() {
        match part {
            std::path::Component::Normal(name) => {
                if !out.is_empty() {
                    out.push(b'/');
                }
                out.extend_from_slice(name_bytes(name));
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(unix)]
fn name_bytes(name: &std::ffi::OsStr) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes()
}

#[cfg(not(unix))]
fn name_bytes(name: &std::ffi::OsStr) -> &[u8] {
    name.to_str().map(str::as_bytes).unwrap_or(b"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn unreadable_folders_are_reported_not_swallowed() {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["a", "b", "c"] {
            fs::create_dir(dir.path().join(sub)).unwrap();
            fs::write(dir.path().join(sub).join("s.jsonl"), "{}\n").unwrap();
        }
        let failing = |path: &Path| {
            if path.ends_with("b") {
                Err(io::Error::from_raw_os_error(24)) // EMFILE
            } else {
                list_dir(path)
            }
        };
        for workers in [1, 3] {
            let walk = find_logs_with(dir.path(), &|_| true, &failing, workers)
                .unwrap()
                .unwrap();
            let rels: Vec<String> = walk.logs.iter().map(LogFile::display).collect();
            assert_eq!(rels, ["a/s.jsonl", "c/s.jsonl"]);
            assert_eq!(walk.errors.len(), 1);
            assert!(walk.errors[0].starts_with("b: "), "{:?}", walk.errors);
        }
    }

    #[test]
    fn each_worker_holds_one_folder_open_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..50 {
            let sub = dir.path().join(format!("{i}")).join("deeper");
            fs::create_dir_all(&sub).unwrap();
            fs::write(sub.join("s.jsonl"), "{}\n").unwrap();
        }
        for workers in [1, 2, 4] {
            let open = AtomicUsize::new(0);
            let max = AtomicUsize::new(0);
            let counting = |path: &Path| {
                let now = open.fetch_add(1, Ordering::SeqCst) + 1;
                max.fetch_max(now, Ordering::SeqCst);
                let listed = list_dir(path);
                open.fetch_sub(1, Ordering::SeqCst);
                listed
            };
            let walk = find_logs_with(dir.path(), &|_| true, &counting, workers)
                .unwrap()
                .unwrap();
            assert_eq!(walk.logs.len(), 50);
            assert!(max.load(Ordering::SeqCst) <= workers, "{workers} workers");
        }
    }

    #[test]
    fn logs_come_sorted_by_relative_path_with_their_stamps() {
        let dir = tempfile::tempdir().unwrap();
        // Byte order, not a folder-first walk: "a-b" < "a.jsonl" < "a/x".
        for rel in [
            "a/x.jsonl",
            "a.jsonl",
            "a-b/y.jsonl",
            "b.jsonl",
            "a/c/z.jsonl",
        ] {
            let path = dir.path().join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, rel).unwrap();
        }
        fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let walk = find_logs(dir.path(), &|rel| rel.ends_with(b".jsonl"))
            .unwrap()
            .unwrap();
        let rels: Vec<String> = walk.logs.iter().map(LogFile::display).collect();
        assert_eq!(
            rels,
            [
                "a-b/y.jsonl",
                "a.jsonl",
                "a/c/z.jsonl",
                "a/x.jsonl",
                "b.jsonl"
            ]
        );
        for log in &walk.logs {
            assert_eq!(log.stamp.size, log.rel.len() as u64);
            assert_eq!(Stamp::of_path(&log.path()), Some(log.stamp));
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_below_the_root_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("o.jsonl"), "{}\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("o.jsonl"), dir.path().join("l.jsonl"))
            .unwrap();
        let walk = find_logs(dir.path(), &|_| true).unwrap().unwrap();
        assert!(walk.logs.is_empty(), "{:?}", walk.logs);
    }

    #[test]
    fn a_missing_root_is_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        assert!(find_logs(&dir.path().join("nowhere"), &|_| true)
            .unwrap()
            .is_none());
    }
}
