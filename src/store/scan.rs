//! Scanning logs: one file from its first line or from where its scan
//! stopped, and many at once spread over the machine's cores.

use std::hash::Hasher;
use std::io::{self, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rustc_hash::FxHasher;

use super::discover::{self, LogFile, Walk};
use super::file_state::{racy_read, FileState, Found};
use super::release;
use super::stamp::Stamp;
use crate::formats::lines::{self, Flow, LongLines};
use crate::formats::{FormatChoice, HeaderState, Scanner};
use crate::fsio::{self, Links};

/// Index scans skip lines over [`lines::MAX_SCAN_LINE`] (an empty line
/// stands in for one): no title or header is that long.
const SCAN_LINES: LongLines = LongLines::Skip(lines::MAX_SCAN_LINE);

/// A walk of one catalog's root.
#[derive(Debug, Clone)]
pub struct Walker {
    pub(super) root: PathBuf,
    pub(super) format: FormatChoice,
    /// A store of one file (an Aider history found through a workspace):
    /// its name in the root, the only file looked at.
    pub(super) single: Option<std::ffi::OsString>,
}

impl Walker {
    pub fn walk(&self) -> io::Result<Option<Walk>> {
        if let Some(name) = &self.single {
            return Ok(single_file(&self.root, name));
        }
        let mut walk = discover::find_logs(&self.root, &|rel| {
            self.format.is_log_name_in(&self.root, rel)
        })?;
        for log in walk.iter_mut().flat_map(|w| w.logs.iter_mut()) {
            let name = discover::file_name(&log.rel).as_encoded_bytes();
            let mut sides = self.format.side_files_of(name).peekable();
            if sides.peek().is_some() {
                log.stamp = log.stamp.with_sides(&log.dir, sides);
            }
            let path = log.dir.join(discover::file_name(&log.rel));
            if let Some(facts) = self.format.side_facts_of(&path) {
                log.stamp = log.stamp.with_facts(facts);
            }
        }
        Ok(walk)
    }
}

/// The walk of a store of one file: that file when it is a regular file,
/// nothing when it is not; `None` (a missing store) when its folder is gone.
fn single_file(root: &Path, name: &std::ffi::OsStr) -> Option<Walk> {
    if !root.is_dir() {
        return None;
    }
    let dir: Arc<Path> = Arc::from(root);
    let logs = Stamp::of_path(&root.join(name))
        .map(|stamp| LogFile {
            rel: name.as_encoded_bytes().to_vec(),
            dir,
            stamp,
        })
        .into_iter()
        .collect();
    // The folder's other files are no part of a one-file store.
    Some(Walk {
        logs,
        errors: Vec::new(),
        unread: 0,
    })
}

/// One log to scan: new, or changed since its `previous` state.
pub(super) struct Work {
    pub(super) rel: Arc<[u8]>,
    pub(super) dir: Arc<Path>,
    pub(super) stamp: Stamp,
    pub(super) previous: Option<FileState>,
}

impl Work {
    /// A log the catalog did not have.
    pub(super) fn new(log: LogFile) -> Work {
        Work {
            rel: Arc::from(log.rel),
            dir: log.dir,
            stamp: log.stamp,
            previous: None,
        }
    }
}

/// How many logs the first batch of a walk's scan holds.
const FIRST_BATCH: usize = 4096;

/// The logs a walk left to scan, handed out in batches so that a long
/// first scan can be shown part by part (`FsStore::update_in_parts`).
/// Each batch holds at least as many logs as the catalog already has, so
/// the batches double: electing and viewing the catalog after each costs
/// about as much again as doing it once at the end, never a pass per few
/// thousand logs over 100,000.
pub(super) struct Batches {
    work: Vec<Work>,
    first: usize,
}

impl Batches {
    pub(super) fn new(work: Vec<Work>) -> Self {
        Batches {
            work,
            first: first_batch().max(1),
        }
    }

    /// The same logs, with a first batch of `first` (at least one).
    #[cfg(test)]
    pub(super) fn with_first_batch(self, first: usize) -> Self {
        Batches {
            first: first.max(1),
            ..self
        }
    }

    /// The next batch for a catalog that holds `held` files; `None` once
    /// every log is handed out.
    pub(super) fn next(&mut self, held: usize) -> Option<Vec<Work>> {
        if self.work.is_empty() {
            return None;
        }
        let n = self.first.max(held).min(self.work.len());
        Some(self.work.drain(..n).collect())
    }

    pub(super) fn is_empty(&self) -> bool {
        self.work.is_empty()
    }
}

/// [`FIRST_BATCH`], or in debug builds `HYDRA_SESSION_TEST_SCAN_BATCH`
/// when set: an integration test can then see the first batch of a store
/// of a few logs.
fn first_batch() -> usize {
    #[cfg(debug_assertions)]
    if let Some(n) = std::env::var("HYDRA_SESSION_TEST_SCAN_BATCH")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    FIRST_BATCH
}

/// How many logs a worker scans before it lets go of their scanners, when
/// it does ([`release::let_go_of_read`]): a batch of 50,000 logs kept
/// theirs until its end, 13 MiB. (4 in unit tests, so that the stores of
/// a few dozen logs there are released in several parts.)
const RELEASE_EVERY: usize = if cfg!(test) { 4 } else { 1024 };

/// Scans many files, spread over the machine's cores: a first index reads
/// every log for its title, and the files are independent. With `release`
/// (now), each worker lets go of the old logs' scanners every
/// [`RELEASE_EVERY`] logs.
pub(super) fn refresh_all(
    work: Vec<Work>,
    format: FormatChoice,
    titles: bool,
    release: Option<SystemTime>,
) -> Vec<(Arc<[u8]>, FileState)> {
    const MIN_PER_THREAD: usize = 64;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(work.len() / MIN_PER_THREAD)
        .max(1);
    let refresh = |chunk: Vec<Work>| -> Vec<(Arc<[u8]>, FileState)> {
        let mut out = Vec::with_capacity(chunk.len());
        let mut released = 0;
        for w in chunk {
            let path = w.dir.join(discover::file_name(&w.rel));
            let state = refresh_state(&path, w.stamp, w.previous, format, titles);
            out.push((w.rel, state));
            if let Some(now) = release.filter(|_| out.len() - released == RELEASE_EVERY) {
                release::let_go_of_read(&mut out[released..], now);
                released = out.len();
            }
        }
        if let Some(now) = release {
            release::let_go_of_read(&mut out[released..], now);
        }
        out
    };
    if threads == 1 {
        return refresh(work);
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

/// Brings one file's state up to its current `stamp`, parsing only what
/// it needs.
pub(super) fn refresh_state(
    path: &Path,
    stamp: Stamp,
    previous: Option<FileState>,
    format: FormatChoice,
    titles: bool,
) -> FileState {
    if let Some(prev) = previous {
        if prev.is_current(&stamp) {
            return prev;
        }
        // A side file that changed changes what earlier lines meant.
        if stamp.size > prev.stamp.size
            && stamp.same_file(&prev.stamp)
            && stamp.side == prev.stamp.side
            && prev.resumable()
            && same_first_line(path, prev.first_line)
        {
            if let Some(grown) = append_scan(path, prev, stamp) {
                return grown;
            }
        }
    }
    full_scan(path, stamp, format, titles)
}

/// Scans a log from its first line: its format, header and (with `titles`)
/// every line's metadata.
fn full_scan(path: &Path, stamp: Stamp, choice: FormatChoice, titles: bool) -> FileState {
    let mut state = first_scan(path, stamp, choice, titles);
    state.racy = racy_read(path.as_os_str().as_encoded_bytes(), &stamp);
    state
}

fn first_scan(path: &Path, stamp: Stamp, choice: FormatChoice, titles: bool) -> FileState {
    let size = stamp.size;
    let mut state = FileState {
        stamp,
        format: None,
        found: Found::Not(Box::new(HeaderState::Pending)),
        consumed: 0,
        full: titles,
        winner: false,
        first_line: (0, 0),
        racy: false,
    };
    let mut file = match fsio::open_regular(path, Links::NoFollow) {
        Ok(file) => file,
        Err(e) => {
            state.found = Found::Not(Box::new(HeaderState::NotASession(format!(
                "cannot read: {e}"
            ))));
            state.full = false;
            return state;
        }
    };
    let modified_millis = u64::try_from(stamp.mtime)
        .ok()
        .map(|secs| secs.saturating_mul(1000) + u64::from(stamp.mtime_nsec / 1_000_000));
    if let Some(document) = choice.document_format(path) {
        // A whole document, handed to its scanner at once: a compact one
        // has no line end at all.
        let mut scanner = document.scanner();
        if let Some(millis) = modified_millis {
            scanner.file_modified(millis);
        }
        scanner.file_path(path);
        if let Err(e) = scanner.document(&mut std::io::Read::take(&mut file, size)) {
            state.found = Found::Not(Box::new(HeaderState::NotASession(format!(
                "cannot read: {e}"
            ))));
            state.full = false;
            return state;
        }
        state.found = settle(scanner);
        state.format = Some(document);
        state.consumed = size;
        return state;
    }
    let never = || false;
    let mut scanner: Option<Box<dyn Scanner>> = None;
    let mut format = None;
    let mut first_line = (0, 0);
    // Bounded lines: a region without a newline (a sparse or half-written
    // file) is read through, never into memory.
    let walked =
        lines::for_each_line_bounded::<()>(&mut file, size, SCAN_LINES, &never, &mut |line| {
            let scanner = match &mut scanner {
                Some(s) => s,
                None => {
                    first_line = fingerprint(line);
                    let Some(picked) = choice.pick(path, line) else {
                        return Ok(Flow::Stop);
                    };
                    format = Some(picked);
                    let scanner = scanner.insert(picked.scanner());
                    if let Some(millis) = modified_millis {
                        scanner.file_modified(millis);
                    }
                    scanner.file_path(path);
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
            state.found = Found::Not(Box::new(HeaderState::NotASession(format!(
                "cannot read: {e}"
            ))));
            state.full = false;
            return state;
        }
        Err(_) => 0,
    };
    state.found = match (scanner, consumed) {
        (None, 0) => Found::Not(Box::new(HeaderState::Pending)),
        (None, _) => Found::Not(Box::new(HeaderState::NotASession(
            "not a log of any known format".into(),
        ))),
        (Some(s), _) => settle(s),
    };
    state.format = format;
    state.consumed = consumed;
    state.first_line = first_line;
    state
}

/// A line's length and hash: enough to see that a file no longer starts
/// the same, without keeping the line. Kept in memory only (a seeded state
/// has none), so the hash need not be stable across builds. Never
/// `(0, 0)`, which stands for "not known": an empty line is known too.
fn fingerprint(line: &[u8]) -> (u32, u64) {
    let mut hasher = FxHasher::default();
    hasher.write(line);
    (
        u32::try_from(line.len()).unwrap_or(u32::MAX),
        hasher.finish() | 1,
    )
}

/// Whether the file at `path` still starts with the first line seen before
/// (true when none was seen: nothing to compare).
fn same_first_line(path: &Path, (len, hash): (u32, u64)) -> bool {
    if (len, hash) == (0, 0) {
        return true;
    }
    let Ok(mut file) = fsio::open_regular(path, Links::NoFollow) else {
        return false;
    };
    let mut now = vec![0; len as usize + 2];
    let mut read = 0;
    while read < now.len() {
        match std::io::Read::read(&mut file, &mut now[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    let now = &now[..read];
    let line = now.split(|&b| b == b'\n').next().unwrap_or(now);
    let line = lines::strip_cr(line);
    now.len() > line.len() && fingerprint(line) == (len, hash)
}

/// Keeps a scanner only while its log is a session or may become one.
fn settle(scanner: Box<dyn Scanner>) -> Found {
    match scanner.header() {
        HeaderState::NotASession(why) if scanner.is_done() => {
            Found::Not(Box::new(HeaderState::NotASession(why)))
        }
        _ => Found::Scanner(scanner),
    }
}

/// Feeds the scanner the complete lines appended after `consumed`.
fn append_scan(path: &Path, mut state: FileState, stamp: Stamp) -> Option<FileState> {
    let size = stamp.size;
    let Found::Scanner(scanner) = &mut state.found else {
        return None;
    };
    if scanner.is_done() {
        state.stamp = stamp;
        state.racy = racy_read(path.as_os_str().as_encoded_bytes(), &stamp);
        return Some(state);
    }
    let mut file = fsio::open_regular(path, Links::NoFollow).ok()?;
    file.seek(SeekFrom::Start(state.consumed)).ok()?;
    let never = || false;
    // Only the growth is read, in bounded chunks (never reserved whole).
    let growth = size - state.consumed;
    let mut at_first = state.consumed == 0;
    let mut first_line = None;
    let used =
        lines::for_each_line_bounded::<()>(&mut file, growth, SCAN_LINES, &never, &mut |line| {
            if at_first {
                first_line = Some(fingerprint(line));
                at_first = false;
            }
            scanner.line(line);
            Ok(if scanner.is_done() {
                Flow::Stop
            } else {
                Flow::Continue
            })
        })
        .ok()?;
    state.consumed += used;
    state.stamp = stamp;
    state.racy = racy_read(path.as_os_str().as_encoded_bytes(), &stamp);
    if let Some(first) = first_line {
        state.first_line = first;
    }
    Some(state)
}
