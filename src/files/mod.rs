//! File mentions on the file system: candidates (reference.md §7a),
//! existence, hover facts and links (server.md "File mentions"). The
//! grammar is the core's (`reference::file_mention`); this module is the
//! part that looks at folders. Every walk is bounded in entries and time,
//! and nothing reads more of a file than it shows.

mod ignore_rules;
mod listing;

use std::fs;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::config::paths;
use crate::fsio::{self, Links};
use crate::reference::candidates::check_limit;
use crate::reference::diagnostics::{Diagnostic, Severity};
use crate::reference::file_mention::{self, FileMention};
use crate::reference::ReferenceError;

/// Compiles the Git ignore rules of a workspace's top folder ahead of the
/// first keystroke (the server calls it once per workspace folder).
pub fn warm(cwd: &Path) {
    let _ = ignore_rules::Rules::for_folder(cwd, "");
}

/// The diagnostic code of a file mention whose path does not exist.
pub const NOT_FOUND: &str = "FILE_REFERENCE_NOT_FOUND";

/// One read of a folder keeps at most 100,000 entries that match the
/// typed prefix and walks past at most 1,000,000 entries: the prefix is
/// tested first, so an entry that does not match costs a comparison, and
/// the walk of a folder of 200,000 entries finds every match (the whole
/// `files` command took 0.2 s in a debug build at a load of 8). The time
/// bound is for slow (network) file systems; a local folder within the
/// entry bound does not reach it even on a loaded machine, so what is
/// found does not depend on the load. A cut listing is marked incomplete.
const WALK: listing::Bounds = listing::Bounds {
    kept: 100_000,
    walked: 1_000_000,
    time: Duration::from_secs(1),
};
/// Hover shows text files up to this size…
const MAX_PREVIEW_BYTES: u64 = 1 << 20;
/// …and this many lines or folder entries.
const PREVIEW_LINES: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileKind {
    // Folders sort first.
    Directory,
    File,
}

/// One file candidate: `{"path","kind"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCandidate {
    pub path: String,
    pub kind: FileKind,
}

/// File candidates, and whether the limit (or a walk bound) cut them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileList {
    pub items: Vec<FileCandidate>,
    pub incomplete: bool,
    /// Entries of the folder listed (all of them, hidden ones included),
    /// and whether its walk stopped at a bound.
    pub folder_entries: usize,
    pub folder_cut: bool,
}

/// The file candidates of `query` (the raw text after `@`) inside `cwd`
/// (reference.md §7a).
pub fn candidates(cwd: Option<&Path>, query: &str, limit: u64) -> Result<FileList, ReferenceError> {
    let limit = check_limit(limit)?;
    let Some(cwd) = cwd else {
        return Ok(FileList::default());
    };
    let path = file_mention::query_path(query);
    let (folder, prefix) = file_mention::split_query(&path);
    Ok(list(cwd, folder, prefix, limit).unwrap_or_default())
}

/// Whether a folder part stays inside the cwd as written.
fn folder_is_confined(folder: &str) -> bool {
    !folder.starts_with('/') && !folder.starts_with('~') && !folder.split('/').any(|s| s == "..")
}

fn list(cwd: &Path, folder: &str, prefix: &str, limit: usize) -> Option<FileList> {
    if !folder_is_confined(folder) {
        return None;
    }
    let cwd_real = fs::canonicalize(cwd).ok()?;
    let dir = cwd.join(folder);
    if !folder.is_empty() {
        // Through links only when the folder really is inside the cwd.
        let real = fs::canonicalize(&dir).ok()?;
        if !real.starts_with(&cwd_real) {
            return None;
        }
    }
    let listing = listing::listing(&dir, prefix, WALK)?;
    let mut entries = matching(&listing, prefix);
    // Only the first entries are shown: order those, and the rest only if
    // ignored entries leave too few.
    let head = (limit * 2 + 64).min(entries.len());
    if head < entries.len() {
        entries.select_nth_unstable(head);
    }
    entries[..head].sort_unstable();
    let rules = ignore_rules::Rules::for_folder(cwd, folder);
    let mut items = Vec::new();
    let mut incomplete = listing.cut;
    for i in 0..entries.len() {
        if i == head {
            entries[head..].sort_unstable();
        }
        let (kind, name) = entries[i];
        let ignored = rules.is_ignored(&dir.join(name), kind == FileKind::Directory);
        if ignored {
            continue;
        }
        if items.len() == limit {
            incomplete = true;
            break;
        }
        let mut path = format!("{folder}{name}");
        if kind == FileKind::Directory {
            path.push('/');
        }
        items.push(FileCandidate { path, kind });
    }
    Some(FileList {
        items,
        incomplete,
        folder_entries: listing.entries.len(),
        folder_cut: listing.cut,
    })
}

/// The entries of a listing a name prefix selects (case-insensitive):
/// hidden ones only for a prefix starting with `.`, `.git` never.
fn matching<'l>(listing: &'l listing::Listing, prefix: &str) -> Vec<(FileKind, &'l str)> {
    let hidden_ok = prefix.starts_with('.');
    let prefix_lower = prefix.to_lowercase();
    listing
        .entries
        .iter()
        .filter(|(_, name)| {
            name != ".git"
                && (hidden_ok || !name.starts_with('.'))
                && starts_with_lower(name, prefix, &prefix_lower)
        })
        .map(|(kind, name)| (*kind, name.as_str()))
        .collect()
}

/// `name` starts with `prefix`, both lower-cased (reference.md §7).
fn starts_with_lower(name: &str, prefix: &str, prefix_lower: &str) -> bool {
    if prefix.is_empty() {
        return true;
    }
    if name.is_ascii() && prefix.is_ascii() {
        return name.len() >= prefix.len()
            && name.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes());
    }
    name.to_lowercase().starts_with(prefix_lower)
}

/// Where a mentioned path is: absolute as written, `~/` under the home
/// directory, else under `cwd` (none without one).
pub fn resolve(cwd: Option<&Path>, path: &str) -> Option<PathBuf> {
    if path.starts_with('/') {
        return Some(PathBuf::from(path));
    }
    if path == "~" || path.starts_with("~/") {
        return paths::home_dir()
            .map(|home| home.join(path.trim_start_matches('~').trim_start_matches('/')));
    }
    cwd.map(|cwd| cwd.join(path))
}

/// Whether `path` exists, following links (a broken link does not).
fn exists(path: &Path) -> bool {
    fs::metadata(path).is_ok()
}

/// The file mentions of `text` as the server sees them: quoted ones, and
/// bare ones that name something existing (or whose first segment exists
/// when they hold a `/`). Each with whether its path exists.
pub fn mentions(text: &str, cwd: Option<&Path>) -> Vec<(FileMention, Option<PathBuf>)> {
    file_mention::scan(text)
        .into_iter()
        .filter_map(|m| check(m, cwd))
        .collect()
}

/// The file mention of `text` that holds `offset`, if it counts (only that
/// one is looked up).
pub fn mention_at(
    text: &str,
    offset: usize,
    cwd: Option<&Path>,
) -> Option<(FileMention, Option<PathBuf>)> {
    let m = file_mention::scan(text)
        .into_iter()
        .find(|m| m.span.start <= offset && offset < m.span.end)?;
    check(m, cwd)
}

/// Whether a possible mention counts, and where its path is when it exists.
fn check(m: FileMention, cwd: Option<&Path>) -> Option<(FileMention, Option<PathBuf>)> {
    let resolved = resolve(cwd, &m.path);
    let found = resolved.as_deref().is_some_and(exists);
    let counts = m.quoted
        || found
        || m.first_segment()
            .and_then(|first| resolve(cwd, first))
            .is_some_and(|p| exists(&p));
    counts.then(|| (m, resolved.filter(|_| found)))
}

/// `FILE_REFERENCE_NOT_FOUND` for every file mention whose path does not
/// exist.
pub fn diagnostics(text: &str, cwd: Option<&Path>) -> Vec<Diagnostic> {
    mentions(text, cwd)
        .into_iter()
        .filter(|(_, found)| found.is_none())
        .map(|(m, _)| Diagnostic {
            range: m.span.clone(),
            severity: Severity::Warning,
            code: NOT_FOUND,
            message: format!("no file or folder {:?}", m.path),
            canonical: None,
        })
        .collect()
}

/// The links of existing file mentions: span and file.
pub fn links(text: &str, cwd: Option<&Path>) -> Vec<(Range<usize>, PathBuf)> {
    mentions(text, cwd)
        .into_iter()
        .filter_map(|(m, found)| found.map(|p| (m.span, p)))
        .collect()
}

/// What hover shows of an existing file or folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub path: PathBuf,
    pub kind: &'static str,
    pub size: u64,
    pub modified: Option<SystemTime>,
    pub content: Content,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Nothing is shown, and why.
    Hidden(&'static str),
    Text {
        lines: usize,
        head: Vec<String>,
        extension: String,
    },
    Folder {
        /// Entries counted (a lower bound when `more`).
        entries: usize,
        more: bool,
        first: Vec<String>,
    },
}

/// Hover facts of the file mention `m` (none when its path does not
/// exist). Reads at most 1 MiB of a regular text file inside the cwd.
///
/// The file is opened first and what was opened is checked: its type and
/// size by `fstat`, its real path (the kernel's, of the open file) against
/// the workspace, and the text read from that same open file. A path
/// swapped between a file and a link out of the workspace can therefore
/// never show the outside file.
pub fn info(m: &FileMention, cwd: Option<&Path>) -> Option<FileInfo> {
    info_opened(m, cwd, &mut |_| {})
}

/// [`info`], with `opened` called once the path is open (tests swap the
/// path there).
fn info_opened(
    m: &FileMention,
    cwd: Option<&Path>,
    opened: &mut dyn FnMut(&Path),
) -> Option<FileInfo> {
    let path = resolve(cwd, &m.path)?;
    // A device or FIFO is described, never opened.
    let first = fs::metadata(&path).ok()?;
    let openable = first.is_file() || first.is_dir();
    let file = if openable {
        open_no_follow(&path)
    } else {
        None
    };
    let (file, meta) = match file {
        Some(file) => {
            opened(&path);
            let meta = file.metadata().ok()?;
            (Some(file), meta)
        }
        None if openable => {
            return Some(FileInfo {
                kind: if first.is_dir() { "folder" } else { "file" },
                size: first.len(),
                modified: first.modified().ok(),
                content: Content::Hidden("unreadable"),
                path,
            })
        }
        None => (None, first),
    };
    let real = match &file {
        Some(file) => real_path(file, &path, &meta),
        // Nothing of it is read: where it is only decides the message.
        None => fs::canonicalize(&path).ok(),
    };
    let inside = cwd
        .and_then(|cwd| fs::canonicalize(cwd).ok())
        .zip(real)
        .filter(|(cwd_real, real)| real.starts_with(cwd_real));
    let kind = if meta.is_dir() {
        "folder"
    } else if meta.is_file() {
        "file"
    } else {
        "special file"
    };
    let content = match (inside, kind, file) {
        (None, _, _) => Content::Hidden("outside the workspace"),
        (Some(_), "file", _) if meta.len() > MAX_PREVIEW_BYTES => {
            Content::Hidden("larger than 1 MiB")
        }
        (Some(_), "file", Some(file)) => text_content(file, &path),
        (Some((cwd_real, real)), "folder", _) => folder_content(cwd, &cwd_real, &real),
        _ => Content::Hidden("not a regular file"),
    };
    Some(FileInfo {
        path,
        kind,
        size: meta.len(),
        modified: meta.modified().ok(),
        content,
    })
}

/// Opens `path` without blocking and without following a link as its last
/// component; a link is opened at its canonical path, the same way (what
/// it points to is then judged by what was opened).
fn open_no_follow(path: &Path) -> Option<fs::File> {
    match fsio::open_nonblocking(path, Links::NoFollow) {
        Ok(file) => Some(file),
        Err(_) => fsio::open_nonblocking(&fs::canonicalize(path).ok()?, Links::NoFollow).ok(),
    }
}

/// The real path of the open `file`: the kernel's where it tells, else the
/// canonical path of `path` when it still is the same file (device and
/// inode).
fn real_path(file: &fs::File, path: &Path, meta: &fs::Metadata) -> Option<PathBuf> {
    if let Some(real) = fsio::opened_path(file) {
        return Some(real);
    }
    let real = fs::canonicalize(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = fs::metadata(&real).ok()?;
        if (now.dev(), now.ino()) != (meta.dev(), meta.ino()) {
            return None;
        }
    }
    let _ = meta;
    Some(real)
}

fn text_content(file: fs::File, path: &Path) -> Content {
    let mut bytes = Vec::new();
    if file
        .take(MAX_PREVIEW_BYTES)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return Content::Hidden("unreadable");
    }
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Content::Hidden("binary");
    };
    if text.contains('\0') {
        return Content::Hidden("binary");
    }
    let lines = text.lines().count();
    Content::Text {
        lines,
        head: text
            .lines()
            .take(PREVIEW_LINES)
            .map(str::to_string)
            .collect(),
        extension: path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_string(),
    }
}

fn folder_content(cwd: Option<&Path>, cwd_real: &Path, real: &Path) -> Content {
    let Ok(rel) = real.strip_prefix(cwd_real) else {
        return Content::Hidden("outside the workspace");
    };
    let Some(rel) = rel.to_str() else {
        return Content::Hidden("not UTF-8");
    };
    let folder = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}/")
    };
    // One listing gives both the first names and the count.
    let Some(list) = cwd.and_then(|cwd| list(cwd, &folder, "", PREVIEW_LINES)) else {
        return Content::Hidden("unreadable");
    };
    Content::Folder {
        entries: list.folder_entries,
        more: list.folder_cut,
        first: list
            .items
            .into_iter()
            .map(|c| c.path[folder.len()..].to_string())
            .collect(),
    }
}

#[cfg(test)]
mod tests;
