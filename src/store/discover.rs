//! Finding candidate logs below a store root (session-log.md "Store").

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One `*.jsonl` regular file below the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    /// The path relative to the root, `/`-separated, as raw bytes: the
    /// order of these bytes decides which of two same-id logs wins.
    pub rel: Vec<u8>,
    pub path: PathBuf,
}

impl LogFile {
    /// The relative path for messages.
    pub fn display(&self) -> String {
        String::from_utf8_lossy(&self.rel).into_owned()
    }
}

/// Every regular file below `root` whose relative path `is_log` accepts,
/// sorted by relative path bytes. Symbolic links below the root are never
/// followed (the root itself may be one). A missing root is an empty store
/// (`Ok(None)`).
pub fn find_logs(root: &Path, is_log: &dyn Fn(&[u8]) -> bool) -> io::Result<Option<Vec<LogFile>>> {
    let top = match fs::read_dir(root) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    let mut pending = vec![(Vec::new(), top)];
    while let Some((prefix, dir)) = pending.pop() {
        for entry in dir {
            // A directory that vanishes or cannot be read mid-walk is skipped:
            // stores change under us and that is not fatal.
            let Ok(entry) = entry else { continue };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let mut rel = prefix.clone();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name_bytes(&entry.file_name()));
            if kind.is_dir() {
                if let Ok(sub) = fs::read_dir(entry.path()) {
                    pending.push((rel, sub));
                }
            } else if kind.is_file() && is_log(&rel) {
                found.push(LogFile {
                    rel,
                    path: entry.path(),
                });
            }
        }
    }
    found.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Some(found))
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
