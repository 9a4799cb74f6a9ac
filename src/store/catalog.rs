//! The sessions of one store root: headers, titles and the winner of each id.
//!
//! One catalog serves the CLI (scan once) and the server (kept fresh file by
//! file). Per log it remembers the size and modification time it saw, the
//! format's scanner and how far it fed it, so a grown log costs only its new
//! lines and an unchanged one costs a `stat`.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::discover::{self, LogFile};
use crate::formats::lines::{self, Flow};
use crate::formats::{self, HeaderState, LogFormat, Scanner};
use crate::model::{Locator, Session, SessionHeader, StoreNote};

/// Which format a store's logs are in.
#[derive(Debug, Clone, Copy)]
pub enum FormatChoice {
    /// Decided per file from its first line.
    Auto,
    Fixed(&'static dyn LogFormat),
}

impl FormatChoice {
    pub fn name(self) -> &'static str {
        match self {
            FormatChoice::Auto => "auto",
            FormatChoice::Fixed(f) => f.name(),
        }
    }

    fn is_log_name(self, rel: &[u8]) -> bool {
        match self {
            FormatChoice::Auto => formats::all().iter().any(|f| f.is_log_name(rel)),
            FormatChoice::Fixed(f) => f.is_log_name(rel),
        }
    }

    fn pick(self, first_line: &[u8]) -> Option<&'static dyn LogFormat> {
        match self {
            FormatChoice::Auto => formats::detect(first_line),
            FormatChoice::Fixed(f) => Some(f),
        }
    }
}

impl PartialEq for FormatChoice {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for FormatChoice {}

/// What the catalog knows of one file.
#[derive(Debug, Clone)]
struct FileState {
    path: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
    format: Option<&'static dyn LogFormat>,
    /// The format's scanner, fed every complete line up to `consumed`.
    scanner: Option<Box<dyn Scanner>>,
    consumed: u64,
    header: HeaderState,
    /// Whether the scanner saw every line (not only up to the header).
    full: bool,
}

impl FileState {
    fn session_header(&self) -> Option<&SessionHeader> {
        match &self.header {
            HeaderState::Session(h) => Some(h),
            _ => None,
        }
    }
}

/// All sessions of one store root.
#[derive(Debug, Clone)]
pub struct Catalog {
    root: PathBuf,
    /// This store's position in the store list (for [`Locator`]s).
    index: usize,
    format: FormatChoice,
    files: BTreeMap<Vec<u8>, FileState>,
    /// id → relative path of the winning log.
    winners: HashMap<String, Vec<u8>>,
    missing: bool,
    unreadable: Option<String>,
    /// Whether every line is scanned (titles, capacity); `prepare` and
    /// `check` need only headers.
    titles: bool,
}

impl Catalog {
    /// Scans `root` fully: headers and titles.
    pub fn scan(root: &Path) -> Self {
        Self::scan_with(root, 0, FormatChoice::Auto, true)
    }

    /// Scans only the headers below `root` (titles stay `None`).
    pub fn scan_headers(root: &Path) -> Self {
        Self::scan_with(root, 0, FormatChoice::Auto, false)
    }

    /// Scans `root`, store number `index` of a list, in `format`.
    pub fn scan_with(root: &Path, index: usize, format: FormatChoice, titles: bool) -> Self {
        let mut catalog = Self::empty(root, index, format, titles);
        catalog.rescan();
        catalog
    }

    /// A catalog of `root` that has not been scanned yet.
    pub fn empty(root: &Path, index: usize, format: FormatChoice, titles: bool) -> Self {
        Catalog {
            root: root.to_path_buf(),
            index,
            format,
            files: BTreeMap::new(),
            winners: HashMap::new(),
            missing: false,
            unreadable: None,
            titles,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn format(&self) -> FormatChoice {
        self.format
    }

    /// Walks the root again, reusing what is unchanged.
    pub fn rescan(&mut self) {
        let found = match discover::find_logs(&self.root, &|rel| self.format.is_log_name(rel)) {
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
        self.files = refresh_all(work, self.format, self.titles);
        self.elect();
    }

    /// Re-reads one path after a change notification. Returns whether the
    /// catalog changed.
    pub fn refresh_path(&mut self, path: &Path) -> bool {
        let Some(rel) = discover::relative_log_path(&self.root, path) else {
            return false;
        };
        if !self.format.is_log_name(&rel) {
            return false;
        }
        let previous = self.files.remove(&rel);
        let before = previous.as_ref().map(|s| (s.size, s.modified));
        // Only regular files count; a symbolic link is not followed.
        let is_file = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
        let state = if is_file {
            refresh_state(path.to_path_buf(), previous, self.format, self.titles)
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
            if let Some(header) = state.session_header() {
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
        let header = state.session_header()?;
        let meta = state.scanner.as_ref().map(|s| s.meta()).unwrap_or_default();
        let full = state.full;
        let mut header = header.clone();
        if header.label.is_none() && full {
            header.label = meta.parent.as_ref().and_then(|p| self.child_title(p));
        }
        Some(Session {
            header,
            locator: Locator {
                store: self.index,
                format: state.format.map_or("", |f| f.name()),
                name: Arc::from(rel),
            },
            title: meta.title.filter(|_| full),
            capacity: meta.capacity.filter(|_| full),
            unreadable: meta.failure,
            skipped_lines: meta.skipped_lines,
        })
    }

    /// The display title the session `parent` gives its child `key`
    /// (a sub-agent's Task description), when that session is here.
    fn child_title(&self, (parent, key): &(String, String)) -> Option<String> {
        let state = self.files.get(self.winners.get(parent)?)?;
        let meta = state.scanner.as_ref()?.meta();
        meta.child_titles
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, title)| title)
    }

    /// Every session, in relative-path order.
    pub fn sessions(&self) -> Vec<Session> {
        self.files
            .iter()
            .filter(|(rel, state)| {
                state
                    .session_header()
                    .is_some_and(|h| self.winners.get(&h.id).is_some_and(|w| w == *rel))
            })
            .filter_map(|(rel, _)| self.session_at(rel))
            .collect()
    }

    /// Lines skipped over every session of this store.
    pub fn skipped_lines(&self) -> u64 {
        self.files
            .values()
            .filter_map(|s| s.scanner.as_ref())
            .map(|s| s.meta().skipped_lines)
            .sum()
    }

    /// What to report about the store: missing, skipped files, duplicates.
    pub fn notes(&self) -> Vec<StoreNote> {
        let mut notes = Vec::new();
        let store = self.root.display().to_string();
        if self.missing {
            notes.push(StoreNote::Missing {
                store: store.clone(),
            });
        }
        if let Some(e) = &self.unreadable {
            notes.push(StoreNote::Unreadable {
                store,
                error: e.clone(),
            });
        }
        for (rel, state) in &self.files {
            let rel_text = String::from_utf8_lossy(rel).into_owned();
            match &state.header {
                HeaderState::NotASession(why) => notes.push(StoreNote::NotASession {
                    rel: rel_text,
                    why: why.clone(),
                }),
                HeaderState::Pending => notes.push(StoreNote::NotASession {
                    rel: rel_text,
                    why: pending_reason(state.size, state.consumed).to_string(),
                }),
                HeaderState::Session(header) => {
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

fn pending_reason(size: u64, consumed: u64) -> &'static str {
    if size == 0 {
        "empty file"
    } else if consumed == 0 {
        "line 1 is not ended by a newline"
    } else {
        // Complete lines were read, and none made it a session (a Claude
        // Code transcript with no `sessionId`, for instance).
        "no complete line identifies a session"
    }
}

/// Refreshes many files, spread over the machine's cores: a first index
/// reads every log for its title, and the files are independent.
fn refresh_all(
    work: Vec<(Vec<u8>, PathBuf, Option<FileState>)>,
    format: FormatChoice,
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
                refresh_state(path, previous, format, titles).map(|s| (rel, s))
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
fn refresh_state(
    path: PathBuf,
    previous: Option<FileState>,
    format: FormatChoice,
    titles: bool,
) -> Option<FileState> {
    let meta = fs::metadata(&path).ok()?;
    let (size, modified) = (meta.len(), meta.modified().ok());
    if let Some(prev) = previous {
        if prev.size == size && prev.modified == modified {
            return Some(prev);
        }
        if size > prev.size && prev.full {
            if let Some(grown) = append_scan(prev.clone(), size, modified) {
                return Some(grown);
            }
        }
    }
    Some(full_scan(path, size, modified, format, titles))
}

/// Scans a log from its first line: its format, header and (with `titles`)
/// every line's metadata.
fn full_scan(
    path: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
    choice: FormatChoice,
    titles: bool,
) -> FileState {
    let mut state = FileState {
        path,
        size,
        modified,
        format: None,
        scanner: None,
        consumed: 0,
        header: HeaderState::Pending,
        full: titles,
    };
    let mut file = match File::open(&state.path) {
        Ok(file) => file,
        Err(e) => {
            state.header = HeaderState::NotASession(format!("cannot read: {e}"));
            state.full = false;
            return state;
        }
    };
    let modified_millis = modified
        .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| u64::try_from(d.as_millis()).ok());
    let never = || false;
    let mut scanner: Option<Box<dyn Scanner>> = None;
    let mut format = None;
    let walked = lines::for_each_line::<()>(&mut file, size, &never, &mut |line| {
        let scanner = match &mut scanner {
            Some(s) => s,
            None => {
                let Some(picked) = choice.pick(line) else {
                    return Ok(Flow::Stop);
                };
                format = Some(picked);
                let scanner = scanner.insert(picked.scanner());
                if let Some(millis) = modified_millis {
                    scanner.file_modified(millis);
                }
                scanner
            }
        };
        scanner.line(line);
        let done = scanner.is_done() || (!titles && scanner.header() != HeaderState::Pending);
        Ok(if done { Flow::Stop } else { Flow::Continue })
    });
    let consumed = match walked {
        Ok(consumed) => consumed,
        Err(lines::LinesError::Io(e)) => {
            state.header = HeaderState::NotASession(format!("cannot read: {e}"));
            state.full = false;
            return state;
        }
        Err(_) => 0,
    };
    match (&scanner, consumed) {
        (None, 0) => {}
        (None, _) => {
            state.header = HeaderState::NotASession("not a log of any known format".into());
        }
        (Some(s), _) => state.header = s.header(),
    }
    state.format = format;
    state.scanner = scanner;
    state.consumed = consumed;
    state
}

/// Feeds the scanner the complete lines appended after `consumed`.
fn append_scan(mut state: FileState, size: u64, modified: Option<SystemTime>) -> Option<FileState> {
    let scanner = state.scanner.as_mut()?;
    if scanner.is_done() {
        state.size = size;
        state.modified = modified;
        return Some(state);
    }
    let mut file = File::open(&state.path).ok()?;
    file.seek(SeekFrom::Start(state.consumed)).ok()?;
    let never = || false;
    let used = lines::for_each_line::<()>(&mut file, size - state.consumed, &never, &mut |line| {
        scanner.line(line);
        Ok(if scanner.is_done() {
            Flow::Stop
        } else {
            Flow::Continue
        })
    })
    .ok()?;
    state.header = scanner.header();
    state.consumed += used;
    state.size = size;
    state.modified = modified;
    Some(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(id: &str, created_at: u64) -> String {
        format!("{{\"type\":\"session\",\"id\":\"{id}\",\"createdAt\":{created_at}}}\n")
    }

    #[test]
    fn same_id_the_first_relative_path_wins() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("a")).unwrap();
        fs::write(root.join("a/b.jsonl"), header("dup", 1)).unwrap();
        fs::write(root.join("a-b.jsonl"), header("dup", 2)).unwrap();
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
        let outside = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("x.jsonl"), header("outside", 1)).unwrap();
        symlink(
            outside.path().join("x.jsonl"),
            store.path().join("link.jsonl"),
        )
        .unwrap();
        symlink(outside.path(), store.path().join("linked-dir")).unwrap();
        assert!(Catalog::scan(store.path()).is_empty());
        // The root itself may be a link.
        let parent = tempfile::tempdir().unwrap();
        symlink(outside.path(), parent.path().join("root")).unwrap();
        assert_eq!(Catalog::scan(&parent.path().join("root")).len(), 1);
    }

    #[test]
    fn a_grown_log_is_parsed_from_where_it_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let title = |seq: u64, t: &str| {
            format!("{{\"seq\":{seq},\"type\":\"session/title\",\"data\":{{\"title\":\"{t}\"}}}}\n")
        };
        fs::write(&path, header("s", 1) + &title(1, "One")).unwrap();
        let mut catalog = Catalog::scan(dir.path());
        assert_eq!(catalog.get("s").and_then(|s| s.title), Some("One".into()));
        let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
        std::io::Write::write_all(&mut file, title(2, "Two").as_bytes()).unwrap();
        assert!(catalog.refresh_path(&path));
        assert_eq!(catalog.get("s").and_then(|s| s.title), Some("Two".into()));
        // A bad appended line leaves the session without a title.
        std::io::Write::write_all(&mut file, b"{\"seq\":2,\"type\":\"x\"}\n").unwrap();
        catalog.refresh_path(&path);
        let session = catalog.get("s").unwrap();
        assert_eq!(session.title, None);
        assert!(session.unreadable.is_some());
    }

    #[test]
    fn capacity_follows_appended_route_events() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let head = "{\"type\":\"session\",\"id\":\"s\",\"createdAt\":1,\"options\":{\"contextWindow\":9000}}\n";
        fs::write(&path, head).unwrap();
        let mut catalog = Catalog::scan(dir.path());
        assert_eq!(catalog.get("s").and_then(|s| s.capacity), Some(9000));
        let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
        let route = |seq: u64, data: &str| {
            format!("{{\"seq\":{seq},\"type\":\"route/assembled\",\"data\":{data}}}\n")
        };
        std::io::Write::write_all(&mut file, route(1, "{\"contextWindow\":200000}").as_bytes())
            .unwrap();
        assert!(catalog.refresh_path(&path));
        assert_eq!(catalog.get("s").and_then(|s| s.capacity), Some(200000));
        // A last route without a window means no capacity.
        std::io::Write::write_all(&mut file, route(2, "{}").as_bytes()).unwrap();
        catalog.refresh_path(&path);
        assert_eq!(catalog.get("s").and_then(|s| s.capacity), None);
        // A non-object `data` makes the line invalid: the log fails to read.
        std::io::Write::write_all(&mut file, route(3, "[]").as_bytes()).unwrap();
        catalog.refresh_path(&path);
        assert!(catalog.get("s").unwrap().unreadable.is_some());
    }

    #[test]
    fn a_header_completed_later_makes_a_session() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let line = header("late", 1);
        fs::write(&path, &line[..10]).unwrap();
        let mut catalog = Catalog::scan(dir.path());
        assert!(catalog.is_empty());
        fs::write(&path, &line).unwrap();
        assert!(catalog.refresh_path(&path));
        assert_eq!(catalog.len(), 1);
    }
}
