//! Finding candidate logs below a store root (session-log.md "Store").

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One `*.jsonl` regular file below the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    /// The path relative to the root, `/`-separated, as raw bytes: the
    /// order of these bytes decides which of two same-id logs wins.
    pub rel: Vec<u8>,
    /// The folder it is in, shared by the folder's files (a store of
    /// 100,000 logs has few folders): its name is the last part of `rel`.
    pub dir: Arc<Path>,
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
}

/// One directory's entries: names and kinds.
pub type Entries = Vec<(std::ffi::OsString, EntryKind)>;

/// The kind of one directory entry (symbolic links are `Other`: never
/// followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File,
    Other,
}

/// Every regular file below `root` whose relative path `is_log` accepts,
/// sorted by relative path bytes. Symbolic links below the root are never
/// followed (the root itself may be one). A missing root is an empty store
/// (`Ok(None)`); a root that cannot be read is the error.
///
/// At most one directory is open at a time: each is read whole and closed
/// before the next is opened, so a store of thousands of folders needs no
/// more descriptors than one of a single folder.
pub fn find_logs(root: &Path, is_log: &dyn Fn(&[u8]) -> bool) -> io::Result<Option<Walk>> {
    find_logs_with(root, is_log, &list_dir)
}

/// One directory's entries: names and kinds; the directory is closed on
/// return.
pub fn list_dir(dir: &Path) -> io::Result<Entries> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = match entry.file_type()? {
            t if t.is_dir() => EntryKind::Dir,
            t if t.is_file() => EntryKind::File,
            _ => EntryKind::Other,
        };
        out.push((entry.file_name(), kind));
    }
    Ok(out)
}

/// [`find_logs`] over any directory lister (tests inject failures).
pub fn find_logs_with(
    root: &Path,
    is_log: &dyn Fn(&[u8]) -> bool,
    list: &dyn Fn(&Path) -> io::Result<Entries>,
) -> io::Result<Option<Walk>> {
    let top = match list(root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut walk = Walk::default();
    // Folders still to read: their path and relative path (not open).
    let mut pending: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let visit = |dir: &Path,
                 prefix: &[u8],
                 entries: Vec<(std::ffi::OsString, EntryKind)>,
                 pending: &mut Vec<(PathBuf, Vec<u8>)>,
                 walk: &mut Walk| {
        let mut shared: Option<Arc<Path>> = None;
        for (name, kind) in entries {
            let mut rel = prefix.to_vec();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name_bytes(&name));
            match kind {
                EntryKind::Dir => pending.push((dir.join(&name), rel)),
                EntryKind::File if is_log(&rel) => walk.logs.push(LogFile {
                    rel,
                    dir: shared.get_or_insert_with(|| Arc::from(dir)).clone(),
                }),
                _ => {}
            }
        }
    };
    visit(root, &[], top, &mut pending, &mut walk);
    while let Some((dir, rel)) = pending.pop() {
        match list(&dir) {
            Ok(entries) => visit(&dir, &rel, entries, &mut pending, &mut walk),
            // A folder that vanished mid-walk: stores change under us.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                let rel = String::from_utf8_lossy(&rel).into_owned();
                tracing::warn!("{}: cannot read the folder {rel}: {e}", root.display());
                walk.errors.push(format!("{rel}: {e}"));
            }
        }
    }
    walk.logs.sort_by(|a, b| a.rel.cmp(&b.rel));
    walk.errors.sort();
    Ok(Some(walk))
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
        let walk = find_logs_with(dir.path(), &|_| true, &failing)
            .unwrap()
            .unwrap();
        let rels: Vec<String> = walk.logs.iter().map(LogFile::display).collect();
        assert_eq!(rels, ["a/s.jsonl", "c/s.jsonl"]);
        assert_eq!(walk.errors.len(), 1);
        assert!(walk.errors[0].starts_with("b: "), "{:?}", walk.errors);
    }

    #[test]
    fn one_folder_is_open_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..50 {
            let sub = dir.path().join(format!("{i}")).join("deeper");
            fs::create_dir_all(&sub).unwrap();
            fs::write(sub.join("s.jsonl"), "{}\n").unwrap();
        }
        let open = std::cell::Cell::new(0usize);
        let max = std::cell::Cell::new(0usize);
        let counting = |path: &Path| {
            open.set(open.get() + 1);
            max.set(max.get().max(open.get()));
            let listed = list_dir(path);
            open.set(open.get() - 1);
            listed
        };
        let walk = find_logs_with(dir.path(), &|_| true, &counting)
            .unwrap()
            .unwrap();
        assert_eq!(walk.logs.len(), 50);
        assert_eq!(max.get(), 1);
    }
}
