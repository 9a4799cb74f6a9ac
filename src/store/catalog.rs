//! The store's sessions: headers, titles and the winner of each id.
//!
//! One catalog serves the CLI (scan once) and the server (kept fresh file by
//! file). Per log it remembers the size and modification time it saw and
//! how far it parsed, so a grown log costs only its new lines and an
//! unchanged one costs a `stat`.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::discover::{self, LogFile};
use super::line::Header;
use super::log::{self, EventCursor, NotASession};

/// A session of the store (the winner for its id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub header: Header,
    pub path: PathBuf,
    /// Path relative to the store root, for messages.
    pub rel: String,
    /// The latest non-empty title; `None` when there is none or the log
    /// cannot be read.
    pub title: Option<String>,
}

impl Session {
    /// `title ?? id`: the candidate label.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.header.id)
    }
}

/// Something worth telling the user about the store (never fatal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreNote {
    Missing,
    Unreadable(String),
    NotASession {
        rel: String,
        why: String,
    },
    Duplicate {
        rel: String,
        id: String,
        winner: String,
    },
}

impl std::fmt::Display for StoreNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreNote::Missing => f.write_str("the session store does not exist; it is empty"),
            StoreNote::Unreadable(e) => write!(f, "the session store cannot be read: {e}"),
            StoreNote::NotASession { rel, why } => {
                write!(f, "{rel}: skipped, not a session: {why}")
            }
            StoreNote::Duplicate { rel, id, winner } => {
                write!(f, "{rel}: duplicate session id {id:?}, {winner} wins")
            }
        }
    }
}

#[derive(Debug, Clone)]
struct FileState {
    path: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
    header: Result<Header, NotASession>,
    /// Title scan: the cursor after the last complete line, and the bytes
    /// consumed; `None` once a line failed (the log is unreadable).
    scan: Option<(EventCursor, u64)>,
}

impl FileState {
    fn title(&self) -> Option<String> {
        self.scan
            .as_ref()
            .and_then(|(cursor, _)| cursor.title.clone())
    }
}

/// All sessions of one store root.
#[derive(Debug, Clone)]
pub struct Catalog {
    root: PathBuf,
    files: BTreeMap<Vec<u8>, FileState>,
    /// id → relative path of the winning log.
    winners: HashMap<String, Vec<u8>>,
    missing: bool,
    unreadable: Option<String>,
    /// Whether titles are kept (a full scan of every log); `prepare` and
    /// `check` need only headers.
    titles: bool,
}

impl Catalog {
    /// Scans `root` fully: headers and titles.
    pub fn scan(root: &Path) -> Self {
        Self::scan_with(root, true)
    }

    /// Scans only the headers below `root` (titles stay `None`).
    pub fn scan_headers(root: &Path) -> Self {
        Self::scan_with(root, false)
    }

    fn scan_with(root: &Path, titles: bool) -> Self {
        let mut catalog = Catalog {
            root: root.to_path_buf(),
            files: BTreeMap::new(),
            winners: HashMap::new(),
            missing: false,
            unreadable: None,
            titles,
        };
        catalog.rescan();
        catalog
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Walks the root again, reusing what is unchanged.
    pub fn rescan(&mut self) {
        let found = match discover::find_logs(&self.root) {
            Ok(found) => {
                self.unreadable = None;
                found
            }
            Err(e) => {
                self.unreadable = Some(e.to_string());
                Some(Vec::new())
            }
        };
        self.missing = found.is_none();
        let work: Vec<_> = found
            .unwrap_or_default()
            .into_iter()
            .map(|LogFile { rel, path }| {
                let previous = self.files.remove(&rel);
                (rel, path, previous)
            })
            .collect();
        self.files = refresh_all(work, self.titles);
        self.elect();
    }

    /// Re-reads one path after a change notification. Returns whether the
    /// catalog changed.
    pub fn refresh_path(&mut self, path: &Path) -> bool {
        let Some(rel) = discover::relative_log_path(&self.root, path) else {
            return false;
        };
        let previous = self.files.remove(&rel);
        let before = previous.as_ref().map(|s| (s.size, s.modified));
        // Only regular files count; a symbolic link is not followed.
        let is_file = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
        let state = if is_file {
            refresh_state(path.to_path_buf(), previous, self.titles)
        } else {
            None
        };
        let after = state.as_ref().map(|s| (s.size, s.modified));
        if let Some(state) = state {
            self.files.insert(rel, state);
        }
        if before != after {
            self.elect();
            return true;
        }
        false
    }

    fn elect(&mut self) {
        self.winners.clear();
        for (rel, state) in &self.files {
            if let Ok(header) = &state.header {
                self.winners
                    .entry(header.id.clone())
                    .or_insert_with(|| rel.clone());
            }
        }
    }

    /// Number of sessions (distinct ids).
    pub fn len(&self) -> usize {
        self.winners.len()
    }

    pub fn is_empty(&self) -> bool {
        self.winners.is_empty()
    }

    /// The session with this id.
    pub fn get(&self, id: &str) -> Option<Session> {
        let rel = self.winners.get(id)?;
        self.session_at(rel)
    }

    fn session_at(&self, rel: &[u8]) -> Option<Session> {
        let state = self.files.get(rel)?;
        let header = state.header.as_ref().ok()?;
        Some(Session {
            header: header.clone(),
            path: state.path.clone(),
            rel: String::from_utf8_lossy(rel).into_owned(),
            title: state.title(),
        })
    }

    /// Every session, in relative-path order.
    pub fn sessions(&self) -> Vec<Session> {
        self.files
            .iter()
            .filter(|(rel, state)| {
                state
                    .header
                    .as_ref()
                    .is_ok_and(|h| self.winners.get(&h.id).is_some_and(|w| w == *rel))
            })
            .filter_map(|(rel, _)| self.session_at(rel))
            .collect()
    }

    /// What to report about the store: missing, skipped files, duplicates.
    pub fn notes(&self) -> Vec<StoreNote> {
        let mut notes = Vec::new();
        if self.missing {
            notes.push(StoreNote::Missing);
        }
        if let Some(e) = &self.unreadable {
            notes.push(StoreNote::Unreadable(e.clone()));
        }
        for (rel, state) in &self.files {
            let rel_text = String::from_utf8_lossy(rel).into_owned();
            match &state.header {
                Err(why) => notes.push(StoreNote::NotASession {
                    rel: rel_text,
                    why: why.to_string(),
                }),
                Ok(header) => {
                    if let Some(winner) = self.winners.get(&header.id).filter(|w| *w != rel) {
                        notes.push(StoreNote::Duplicate {
                            rel: rel_text,
                            id: header.id.clone(),
                            winner: String::from_utf8_lossy(winner).into_owned(),
                        });
                    }
                }
            }
        }
        notes
    }
}

/// Refreshes many files, spread over the machine's cores: a first index
/// reads every log for its title, and the files are independent.
fn refresh_all(
    work: Vec<(Vec<u8>, PathBuf, Option<FileState>)>,
    titles: bool,
) -> BTreeMap<Vec<u8>, FileState> {
    const MIN_PER_THREAD: usize = 64;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(work.len() / MIN_PER_THREAD)
        .max(1);
    let refresh = |chunk: Vec<(Vec<u8>, PathBuf, Option<FileState>)>| -> Vec<(Vec<u8>, FileState)> {
        chunk
            .into_iter()
            .filter_map(|(rel, path, previous)| {
                refresh_state(path, previous, titles).map(|s| (rel, s))
            })
            .collect()
    };
    if threads == 1 {
        return refresh(work).into_iter().collect();
    }
    let per_thread = work.len().div_ceil(threads);
    let mut chunks = Vec::with_capacity(threads);
    let mut work = work.into_iter();
    for _ in 0..threads {
        chunks.push(work.by_ref().take(per_thread).collect::<Vec<_>>());
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(|| refresh(chunk)))
            .collect();
        // A worker that died leaves its files out; the next rescan retries them.
        handles
            .into_iter()
            .filter_map(|h| h.join().ok())
            .flatten()
            .collect()
    })
}

/// Brings one file's state up to date, parsing only what it needs.
fn refresh_state(path: PathBuf, previous: Option<FileState>, titles: bool) -> Option<FileState> {
    let meta = fs::metadata(&path).ok()?;
    let (size, modified) = (meta.len(), meta.modified().ok());
    if let Some(prev) = previous {
        if prev.size == size && prev.modified == modified {
            return Some(prev);
        }
        if size > prev.size && prev.header.is_ok() {
            if let Some((mut cursor, consumed)) = prev.scan.clone() {
                let scan = append_scan(&path, &mut cursor, consumed, size).map(|c| (cursor, c));
                return Some(FileState {
                    path,
                    size,
                    modified,
                    header: prev.header,
                    scan,
                });
            }
        }
    }
    let (header, scan) = if titles {
        full_scan(&path)
    } else {
        (log::read_header(&path).map(|(h, _)| h), None)
    };
    Some(FileState {
        path,
        size,
        modified,
        header,
        scan,
    })
}

/// Reads the header and scans every event line for the title. Only a log
/// that fails is read again, for its header alone: a bad event line leaves
/// a session without a title, a bad header leaves no session.
fn full_scan(path: &Path) -> (Result<Header, NotASession>, Option<(EventCursor, u64)>) {
    match log::read_log(path, "", &|| false, &mut |_| {}) {
        Ok(read) => (Ok(read.header), Some((read.cursor, read.consumed))),
        Err(_) => (log::read_header(path).map(|(header, _)| header), None),
    }
}

/// Parses the complete lines appended after `consumed`.
fn append_scan(path: &Path, cursor: &mut EventCursor, consumed: u64, size: u64) -> Option<u64> {
    let mut file = File::open(path).ok()?;
    file.seek(SeekFrom::Start(consumed)).ok()?;
    let mut bytes = Vec::with_capacity((size - consumed) as usize);
    file.take(size - consumed).read_to_end(&mut bytes).ok()?;
    let used = log::resume(cursor, &bytes).ok()?;
    Some(consumed + used)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(id: &str, created_at: u64) -> String {
        format!("{{\"type\":\"session\",\"id\":\"{id}\",\"createdAt\":{created_at}}}\n")
    }

    #[test]
    fn same_id_the_first_relative_path_wins() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let root = dir.path();
        fs::create_dir(root.join("a")).expect("mkdir");
        fs::write(root.join("a/b.jsonl"), header("dup", 1)).expect("write");
        fs::write(root.join("a-b.jsonl"), header("dup", 2)).expect("write");
        let catalog = Catalog::scan(root);
        // `a-b.jsonl` sorts before `a/b.jsonl` ('-' < '/').
        assert_eq!(catalog.get("dup").map(|s| s.header.created_at), Some(2));
        assert!(
            matches!(&catalog.notes()[..], [StoreNote::Duplicate { rel, .. }] if rel == "a/b.jsonl")
        );
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_below_the_root_are_not_followed() {
        use std::os::unix::fs::symlink;
        let Ok(outside) = tempfile::tempdir() else {
            return;
        };
        let Ok(store) = tempfile::tempdir() else {
            return;
        };
        fs::write(outside.path().join("x.jsonl"), header("outside", 1)).expect("write");
        symlink(
            outside.path().join("x.jsonl"),
            store.path().join("link.jsonl"),
        )
        .expect("link file");
        symlink(outside.path(), store.path().join("linked-dir")).expect("link dir");
        assert!(Catalog::scan(store.path()).is_empty());
        // The root itself may be a link.
        let Ok(parent) = tempfile::tempdir() else {
            return;
        };
        symlink(outside.path(), parent.path().join("root")).expect("link root");
        assert_eq!(Catalog::scan(&parent.path().join("root")).len(), 1);
    }

    #[test]
    fn a_grown_log_is_parsed_from_where_it_stopped() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let path = dir.path().join("s.jsonl");
        let title = |seq: u64, t: &str| {
            format!("{{\"seq\":{seq},\"type\":\"session/title\",\"data\":{{\"title\":\"{t}\"}}}}\n")
        };
        fs::write(&path, header("s", 1) + &title(1, "One")).expect("write");
        let mut catalog = Catalog::scan(dir.path());
        assert_eq!(catalog.get("s").and_then(|s| s.title), Some("One".into()));
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        std::io::Write::write_all(&mut file, title(2, "Two").as_bytes()).expect("append");
        assert!(catalog.refresh_path(&path));
        assert_eq!(catalog.get("s").and_then(|s| s.title), Some("Two".into()));
        // A bad appended line leaves the session without a title.
        std::io::Write::write_all(&mut file, b"{\"seq\":2,\"type\":\"x\"}\n").expect("append");
        catalog.refresh_path(&path);
        assert_eq!(catalog.get("s").and_then(|s| s.title), None);
    }
}
