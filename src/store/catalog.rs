//! The sessions of one store root: headers, titles and the winner of each id.
//!
//! One catalog serves the CLI (scan once) and the server (kept fresh file by
//! file). Per log it remembers the size and modification time it saw, the
//! format's scanner and how far it fed it, so a grown log costs only its new
//! lines and an unchanged one costs a `stat`.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::io::{self, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::by_name::ByName;
use super::discover::{self, LogFile, Walk};
use super::record::{Cached, Payload, Record};
use super::stamp::Stamp;
use crate::formats::lines::{self, Flow, LongLines};
use crate::formats::{self, HeaderState, LogFormat, ScanMeta, Scanner};
use crate::fsio::{self, Links};
use crate::model::{Locator, Session, SessionHeader, SessionSink, StoreNote};

/// Index scans skip lines over [`lines::MAX_SCAN_LINE`] (an empty line
/// stands in for one): no title or header is that long.
const SCAN_LINES: LongLines = LongLines::Skip(lines::MAX_SCAN_LINE);

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

/// What the catalog knows of one file. Kept small: a store may hold
/// 100,000 logs. The file's name is its key (its path is the root joined
/// with it); what the log is lives in its scanner, not in a copy.
#[derive(Debug, Clone)]
struct FileState {
    stamp: Stamp,
    format: Option<&'static dyn LogFormat>,
    found: Found,
    /// How far the scanner was fed: every complete line up to here.
    consumed: u64,
    /// Whether the scanner saw every line (not only up to the header).
    full: bool,
    /// Whether this file holds the first session of its id (by name).
    winner: bool,
    /// The first line's length and hash once complete: a log rewritten in
    /// place with another header (same inode, grown) is read again, not
    /// resumed. `(0, 0)` when not known.
    first_line: (u32, u64),
}

/// What a scan of one file found.
#[derive(Debug, Clone)]
pub(crate) enum Found {
    /// No session: no scanner was started, or it has nothing more to say
    /// (no format, unreadable, not a session, nothing complete yet).
    Not(Box<HeaderState>),
    /// The format's scanner, which resumes after an append.
    Scanner(Box<dyn Scanner>),
    /// What a scan recorded, without its scanner, as the index cache holds
    /// it (decoded when asked): any change of the file scans it again from
    /// the start.
    Cached(Cached),
}

impl FileState {
    fn session_header(&self) -> Option<Cow<'_, SessionHeader>> {
        match &self.found {
            Found::Not(_) => None,
            Found::Scanner(s) => match s.header_ref() {
                Some(h) => Some(Cow::Borrowed(h)),
                None => match s.header() {
                    HeaderState::Session(h) => Some(Cow::Owned(h)),
                    _ => None,
                },
            },
            Found::Cached(c) => match c.header() {
                HeaderState::Session(h) => Some(Cow::Owned(h)),
                _ => None,
            },
        }
    }

    /// The session's id, borrowed where the state lends it (a cached one
    /// is not decoded).
    fn session_id(&self) -> Option<Cow<'_, str>> {
        match &self.found {
            Found::Cached(c) => c.session_id().map(Cow::Borrowed),
            _ => match self.session_header()? {
                Cow::Borrowed(h) => Some(Cow::Borrowed(h.id.as_str())),
                Cow::Owned(h) => Some(Cow::Owned(h.id)),
            },
        }
    }

    /// The session's header and metadata, decoding a cached state once.
    fn session(&self) -> Option<(SessionHeader, ScanMeta)> {
        match &self.found {
            Found::Cached(c) => c.session(),
            _ => Some((self.session_header()?.into_owned(), self.meta())),
        }
    }

    fn header(&self) -> HeaderState {
        match &self.found {
            Found::Not(h) => (**h).clone(),
            Found::Scanner(s) => s.header(),
            Found::Cached(c) => c.header(),
        }
    }

    fn meta(&self) -> ScanMeta {
        match &self.found {
            Found::Not(_) => ScanMeta::default(),
            Found::Scanner(s) => s.meta(),
            Found::Cached(c) => c.meta(),
        }
    }

    /// Whether an append can be fed to the scanner.
    fn resumable(&self) -> bool {
        self.full && matches!(&self.found, Found::Scanner(s) if s.resumable())
    }
}

/// All sessions of one store root.
#[derive(Debug, Clone)]
pub struct Catalog {
    root: PathBuf,
    /// This store's position in the store list (for [`Locator`]s).
    index: usize,
    format: FormatChoice,
    /// By relative path; the key is shared with the sessions' locators.
    files: ByName<FileState>,
    /// Number of distinct ids.
    count: usize,
    /// Whether `count` and each file's `winner` are those of `files` (so a
    /// walk that changes nothing need not elect again).
    elected: bool,
    /// id → relative path of the winning log, built on the first
    /// [`Catalog::get`] after a change (the server never asks).
    by_id: OnceLock<HashMap<String, Arc<[u8]>>>,
    missing: bool,
    unreadable: Option<String>,
    /// Folders below the root that could not be read (`rel: error`).
    folder_errors: Vec<String>,
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
            files: ByName::default(),
            count: 0,
            elected: true,
            by_id: OnceLock::new(),
            missing: false,
            unreadable: None,
            folder_errors: Vec::new(),
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
        let walked = self.walker().walk();
        self.apply_walk(walked);
    }

    /// What walks this catalog's root, apart from the catalog: a walk can
    /// run while the catalog is seeded from its index cache.
    pub fn walker(&self) -> Walker {
        Walker {
            root: self.root.clone(),
            format: self.format,
        }
    }

    /// Brings the catalog to what a walk found: a log whose stamp is as
    /// recorded is kept as it is, the others are scanned.
    pub fn apply_walk(&mut self, walked: io::Result<Option<Walk>>) {
        let found = match walked {
            Ok(found) => {
                self.unreadable = None;
                found
            }
            Err(e) => {
                self.unreadable = Some(e.to_string());
                Some(Walk::default())
            }
        };
        self.missing = found.is_none();
        let found = found.unwrap_or_default();
        self.folder_errors = found.errors;
        let mut entries = std::mem::take(&mut self.files).into_entries();
        // Both lists are sorted by name: pair them in one pass. Unchanged
        // entries stay where they are (a store of 100,000 logs is not
        // copied to keep it); the others are taken out, each with its new
        // stamp, or none when it is gone.
        let mut logs = found.logs.into_iter().peekable();
        let mut changed = Vec::new();
        let mut fates = Vec::new();
        let taken: Vec<_> = entries
            .extract_if(.., |(name, state)| {
                // One comparison per step: new logs come before this entry.
                let log = loop {
                    match logs.peek().map(|log| (*log.rel).cmp(&**name)) {
                        Some(Ordering::Less) => changed.extend(logs.next().map(Work::new)),
                        Some(Ordering::Equal) => break logs.next(),
                        _ => break None,
                    }
                };
                match log {
                    Some(log) if log.stamp == state.stamp => false,
                    log => {
                        fates.push(log);
                        true
                    }
                }
            })
            .collect();
        changed.extend(logs.map(Work::new));
        let unchanged = changed.is_empty() && taken.is_empty();
        rejudge_shadowed(&mut entries, &mut changed);
        for ((rel, previous), log) in taken.into_iter().zip(fates) {
            if let Some(log) = log {
                changed.push(Work {
                    rel,
                    dir: log.dir,
                    stamp: log.stamp,
                    previous: Some(previous),
                });
            }
        }
        let scanned = refresh_all(changed, self.format, self.titles);
        // Still in order: entries were only taken out.
        self.files = ByName::from_sorted_unchecked(entries);
        self.files.merge(ByName::from_sorted(scanned));
        // The same files with the same stamps: the same winners.
        if !(unchanged && self.elected) {
            self.elect();
        }
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
        let previous = self.files.remove_entry(&rel[..]);
        let rel = previous
            .as_ref()
            .map_or_else(|| Arc::from(rel), |p| p.0.clone());
        let previous = previous.map(|p| p.1);
        let before = previous.as_ref().map(|s| s.stamp);
        // Only regular files count; a symbolic link is not followed.
        let state = Stamp::of_path(path)
            .map(|stamp| refresh_state(path, stamp, previous, self.format, self.titles));
        let after = state.as_ref().map(|s| s.stamp);
        let shadowed = shadowed_name(&rel);
        if let Some(state) = state {
            self.files.insert(rel, state);
        }
        // A new `X.jsonl`: its `X.json` is judged again (`rejudge_shadowed`).
        let json = path.to_str().and_then(|p| p.strip_suffix(".jsonl"));
        if let (None, Some(stem)) = (before, json) {
            if self.files.remove_entry(&shadowed[..]).is_some() {
                self.refresh_path(&PathBuf::from(format!("{stem}.json")));
            }
        }
        if before != after {
            self.elect();
            return true;
        }
        false
    }

    /// Marks the first file of each id (by name) as its winner.
    fn elect(&mut self) {
        self.by_id = OnceLock::new();
        self.elected = true;
        let mut seen: HashSet<String, FastHash> = HashSet::default();
        let mut borrowed: HashSet<&str, FastHash> =
            HashSet::with_capacity_and_hasher(self.files.len(), FastHash::default());
        let mut winners = Vec::with_capacity(self.files.len());
        for state in self.files.values() {
            let won = match state.session_id() {
                None => false,
                Some(Cow::Borrowed(id)) => !seen.contains(id) && borrowed.insert(id),
                Some(Cow::Owned(id)) => !borrowed.contains(id.as_str()) && seen.insert(id),
            };
            winners.push(won);
        }
        drop((seen, borrowed));
        self.count = winners.iter().filter(|&&w| w).count();
        for (state, won) in self.files.values_mut().zip(winners) {
            state.winner = won;
        }
    }

    /// Number of sessions (distinct ids).
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The session with this id.
    pub fn get(&self, id: &str) -> Option<Session> {
        let rel = self.id_map().get(id)?;
        self.session_at(rel, self.files.get(rel)?)
    }

    /// id → name of the winning log, built on first use after a change.
    fn id_map(&self) -> &HashMap<String, Arc<[u8]>> {
        self.by_id.get_or_init(|| {
            self.files
                .iter()
                .filter(|(_, state)| state.winner)
                .filter_map(|(rel, state)| Some((state.session_id()?.into_owned(), rel.clone())))
                .collect()
        })
    }

    fn session_at(&self, rel: &Arc<[u8]>, state: &FileState) -> Option<Session> {
        let (mut header, meta) = state.session()?;
        let full = state.full;
        if header.label.is_none() && full {
            // (A recorded state keeps the label its parent gave it.)
            header.label = match &state.found {
                Found::Scanner(s) => s.parent().and_then(|p| self.child_title(&p)),
                _ => None,
            };
        }
        Some(Session {
            header,
            locator: Locator {
                store: self.index,
                format: state.format.map_or("", |f| f.name()),
                name: rel.clone(),
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
        let rel = self.id_map().get(parent.as_str())?;
        match &self.files.get(rel)?.found {
            Found::Scanner(s) => s.child_title(key),
            _ => None,
        }
    }

    /// Every session, in relative-path order.
    pub fn sessions(&self) -> Vec<Session> {
        let mut out = Vec::with_capacity(self.count);
        self.for_each_session(&mut |s| out.push(s));
        out
    }

    /// Hands every session to `f`, in relative-path order.
    pub fn for_each_session(&self, f: &mut dyn FnMut(Session)) {
        for (rel, state) in &self.files {
            if state.winner {
                if let Some(session) = self.session_at(rel, state) {
                    f(session);
                }
            }
        }
    }

    /// Hands `sink` the sessions it wants, in relative-path order; a
    /// cached session is asked by its key before it is decoded.
    pub fn offer_sessions(&self, sink: &mut dyn SessionSink) {
        for (rel, state) in &self.files {
            if !state.winner {
                continue;
            }
            let cached = match &state.found {
                Found::Cached(c) => match c.key(state.full) {
                    Some(key) if sink.wants(key) => true,
                    _ => continue,
                },
                _ => false,
            };
            if let Some(session) = self.session_at(rel, state) {
                if cached || sink.wants(session.key()) {
                    sink.take(session);
                }
            }
        }
    }

    /// The ids of the sessions with their logs' names, in relative-path
    /// order (borrowed when the format's scanner lends them).
    pub fn ids(&self) -> impl Iterator<Item = (Cow<'_, str>, &[u8])> + '_ {
        self.files
            .iter()
            .filter(|(_, s)| s.winner)
            .filter_map(|(rel, state)| Some((state.session_id()?, &rel[..])))
    }

    /// Whether every log is scanned to its end (titles, capacity).
    pub fn titles(&self) -> bool {
        self.titles
    }

    /// Adds files as an index cache recorded them: the rescan that must
    /// follow keeps each whose stamp is unchanged, and scans the others
    /// again. Adds nothing, and returns `None`, when any record is `None`
    /// (a cache is used whole or not at all); else how many it added.
    pub(crate) fn seed(&mut self, records: impl Iterator<Item = Option<Record>>) -> Option<usize> {
        let mut winners = 0;
        let seeded = records.map(|r| {
            let r = r?;
            winners += usize::from(r.winner);
            // A cache's records keep their payload as its bytes.
            let Payload::Cached(cached) = r.payload else {
                return None;
            };
            let state = FileState {
                stamp: r.stamp,
                format: r.format,
                found: Found::Cached(cached),
                consumed: r.consumed,
                full: r.full,
                winner: r.winner,
                first_line: (0, 0),
            };
            Some((r.rel, state))
        });
        let mut files = ByName::from_sorted(seeded.collect::<Option<Vec<_>>>()?);
        let added = files.len();
        // Into an empty catalog, the winners are as the cache recorded them
        // (it was written from an elected catalog); else the rescan that
        // must follow elects them.
        self.elected = self.files.len() == 0;
        self.count = winners;
        // What the catalog held already wins over the cache.
        files.merge(std::mem::take(&mut self.files));
        self.files = files;
        Some(added)
    }

    /// The number of files, and how many of them are as a seed recorded.
    pub(crate) fn recorded(&self) -> (usize, usize) {
        let recorded = self
            .files
            .values()
            .filter(|s| matches!(s.found, Found::Cached(_)))
            .count();
        (self.files.len(), recorded)
    }

    /// Every file as an index cache keeps it, in relative-path order.
    pub(crate) fn for_each_record(&self, f: &mut dyn FnMut(Record)) {
        for (rel, state) in &self.files {
            let payload = match &state.found {
                // As read from the cache: written back as it is.
                Found::Cached(c) => Payload::Cached(c.clone()),
                found => {
                    let mut header = state.header();
                    // A sub-agent's display title comes from its parent's
                    // log: keep it as found, since no scanner is there to
                    // ask later.
                    if let (HeaderState::Session(h), Found::Scanner(s)) = (&mut header, found) {
                        if h.label.is_none() && state.full {
                            h.label = s.parent().and_then(|p| self.child_title(&p));
                        }
                    }
                    Payload::Values(header, state.meta())
                }
            };
            f(Record {
                rel: rel.clone(),
                stamp: state.stamp,
                format: state.format,
                consumed: state.consumed,
                full: state.full,
                winner: state.winner,
                payload,
            });
        }
    }

    /// Lines skipped over every session of this store.
    pub fn skipped_lines(&self) -> u64 {
        self.files
            .values()
            .map(|s| match &s.found {
                Found::Cached(c) => c.skipped_lines(),
                _ => s.meta().skipped_lines,
            })
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
                store: store.clone(),
                error: e.clone(),
            });
        }
        for error in &self.folder_errors {
            notes.push(StoreNote::FolderUnreadable {
                store: store.clone(),
                error: error.clone(),
            });
        }
        // The winner of each id that has losers.
        let mut winners: HashMap<String, &[u8]> = HashMap::new();
        for (rel, state) in &self.files {
            // A winner holds a session and needs no note (nor a decode).
            if state.winner {
                continue;
            }
            let rel_text = || String::from_utf8_lossy(rel).into_owned();
            match state.session_id() {
                Some(id) => {
                    winners.entry(id.to_string()).or_default();
                    notes.push(StoreNote::Duplicate {
                        rel: rel_text(),
                        id: id.into_owned(),
                        winner: String::new(),
                    });
                }
                None => match state.header() {
                    HeaderState::NotASession(why) => notes.push(StoreNote::NotASession {
                        rel: rel_text(),
                        why,
                    }),
                    HeaderState::Pending => notes.push(StoreNote::NotASession {
                        rel: rel_text(),
                        why: pending_reason(state.stamp.size, state.consumed).to_string(),
                    }),
                    HeaderState::Session(_) => {}
                },
            }
        }
        if !winners.is_empty() {
            for (rel, state) in &self.files {
                if let Some(id) = state.session_id().filter(|_| state.winner) {
                    if let Some(slot) = winners.get_mut(&*id) {
                        *slot = rel;
                    }
                }
            }
            for note in &mut notes {
                if let StoreNote::Duplicate { id, winner, .. } = note {
                    if let Some(rel) = winners.get(id) {
                        *winner = String::from_utf8_lossy(rel).into_owned();
                    }
                }
            }
        }
        notes
    }
}

/// A quick hasher for ids in memory (a collision costs only a comparison).
type FastHash = std::hash::BuildHasherDefault<WordHash>;

/// Eight bytes at a time, as rustc's FxHash does.
#[derive(Default)]
struct WordHash(u64);

impl WordHash {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for WordHash {
    fn finish(&self) -> u64 {
        // A product's low bits depend only on its factors' low bits, and
        // the table picks buckets by them: mix the high bits down.
        let h = (self.0 ^ (self.0 >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            self.add(u64::from_le_bytes(w));
        }
        let mut last = [0u8; 8];
        let rest = words.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
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

/// A walk of one catalog's root.
#[derive(Debug, Clone)]
pub struct Walker {
    root: PathBuf,
    format: FormatChoice,
}

impl Walker {
    pub fn walk(&self) -> io::Result<Option<Walk>> {
        discover::find_logs(&self.root, &|rel| self.format.is_log_name(rel))
    }
}

/// `X.json` for the log `X.jsonl`, else an empty name.
fn shadowed_name(rel: &[u8]) -> Vec<u8> {
    rel.strip_suffix(b".jsonl")
        .map(|stem| [stem, b".json"].concat())
        .unwrap_or_default()
}

/// A new `X.jsonl` holds the session of an `X.json` beside it (Gemini,
/// Copilot Chat: agent-logs-more.md "One session, two layouts"), whose own
/// stamp did not change: that `.json` is taken out of `entries` and
/// scanned again, so it stops being a session.
fn rejudge_shadowed(entries: &mut Vec<(Arc<[u8]>, FileState)>, changed: &mut Vec<Work>) {
    let mut again = Vec::new();
    for work in changed.iter().filter(|w| w.previous.is_none()) {
        let json = shadowed_name(&work.rel);
        if let Ok(at) = entries.binary_search_by(|(name, _)| (**name).cmp(&json[..])) {
            let (rel, state) = entries.remove(at);
            again.push(Work {
                rel,
                dir: work.dir.clone(),
                stamp: state.stamp,
                previous: None,
            });
        }
    }
    changed.extend(again);
}

/// One log to scan: new, or changed since its `previous` state.
struct Work {
    rel: Arc<[u8]>,
    dir: Arc<Path>,
    stamp: Stamp,
    previous: Option<FileState>,
}

impl Work {
    /// A log the catalog did not have.
    fn new(log: LogFile) -> Work {
        Work {
            rel: Arc::from(log.rel),
            dir: log.dir,
            stamp: log.stamp,
            previous: None,
        }
    }
}

/// Scans many files, spread over the machine's cores: a first index reads
/// every log for its title, and the files are independent.
fn refresh_all(work: Vec<Work>, format: FormatChoice, titles: bool) -> Vec<(Arc<[u8]>, FileState)> {
    const MIN_PER_THREAD: usize = 64;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(work.len() / MIN_PER_THREAD)
        .max(1);
    let refresh = |chunk: Vec<Work>| -> Vec<(Arc<[u8]>, FileState)> {
        chunk
            .into_iter()
            .map(|w| {
                let path = w.dir.join(discover::file_name(&w.rel));
                let state = refresh_state(&path, w.stamp, w.previous, format, titles);
                (w.rel, state)
            })
            .collect()
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
fn refresh_state(
    path: &Path,
    stamp: Stamp,
    previous: Option<FileState>,
    format: FormatChoice,
    titles: bool,
) -> FileState {
    if let Some(prev) = previous {
        if prev.stamp == stamp {
            return prev;
        }
        if stamp.size > prev.stamp.size
            && stamp.same_file(&prev.stamp)
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
    let size = stamp.size;
    let mut state = FileState {
        stamp,
        format: None,
        found: Found::Not(Box::new(HeaderState::Pending)),
        consumed: 0,
        full: titles,
        winner: false,
        first_line: (0, 0),
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
                    let Some(picked) = choice.pick(line) else {
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

/// A line's length and FNV-1a hash: enough to see that a file no longer
/// starts the same, without keeping the line.
fn fingerprint(line: &[u8]) -> (u32, u64) {
    let hash = line.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (u32::try_from(line.len()).unwrap_or(u32::MAX), hash)
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
    if let Some(first) = first_line {
        state.first_line = first;
    }
    Some(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
    fn a_rescan_after_scattered_changes_equals_a_fresh_scan() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let title = |seq: u64, t: &str| {
            format!("{{\"seq\":{seq},\"type\":\"session/title\",\"data\":{{\"title\":\"{t}\"}}}}\n")
        };
        let path = |i: u32| root.join(format!("d{}/s{i:03}.jsonl", i % 7));
        for d in 0..7 {
            fs::create_dir(root.join(format!("d{d}"))).unwrap();
        }
        for i in 0..200 {
            // Every tenth id twice: duplicates across folders.
            let id = format!("id{}", if i % 10 == 0 { i / 10 } else { i });
            fs::write(path(i), header(&id, u64::from(i)) + &title(1, "T")).unwrap();
        }
        let mut catalog = Catalog::scan(root);
        // Interleaved in name order: appended, removed, replaced, added.
        for i in (0..200).step_by(9) {
            let mut file = fs::OpenOptions::new().append(true).open(path(i)).unwrap();
            std::io::Write::write_all(&mut file, title(2, &format!("New {i}")).as_bytes()).unwrap();
        }
        for i in (3..200).step_by(11) {
            fs::remove_file(path(i)).unwrap();
        }
        for i in (5..200).step_by(23) {
            let _ = fs::remove_file(path(i));
            fs::write(path(i), header(&format!("other{i}"), 9)).unwrap();
        }
        for i in 200..230 {
            fs::write(path(i), header(&format!("id{}", i - 190), 5)).unwrap();
        }
        catalog.rescan();
        let fresh = Catalog::scan(root);
        assert_eq!(catalog.sessions(), fresh.sessions());
        assert_eq!(catalog.notes(), fresh.notes());
        assert_eq!(catalog.len(), fresh.len());
        assert_eq!(
            catalog.get("id9").map(|s| s.title),
            fresh.get("id9").map(|s| s.title)
        );
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

    /// Issue 10 item 10: a log replaced by an atomic rename was parsed from
    /// the old offset; the old id stayed and titles crossed over.
    #[test]
    fn a_log_replaced_by_a_rename_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let title = |seq: u64, t: &str| {
            format!("{{\"seq\":{seq},\"type\":\"session/title\",\"data\":{{\"title\":\"{t}\"}}}}\n")
        };
        fs::write(&path, header("old", 1) + &title(1, "Old")).unwrap();
        let mut catalog = Catalog::scan(dir.path());
        assert_eq!(catalog.get("old").and_then(|s| s.title), Some("Old".into()));
        // Written beside, renamed over: larger, another id.
        let fresh = dir.path().join("s.jsonl.tmp");
        fs::write(
            &fresh,
            header("new", 2) + &title(1, "New") + &title(2, "Newer") + &title(3, "Newest"),
        )
        .unwrap();
        fs::rename(&fresh, &path).unwrap();
        assert!(catalog.refresh_path(&path));
        assert!(catalog.get("old").is_none());
        assert_eq!(
            catalog.get("new").and_then(|s| s.title),
            Some("Newest".into())
        );
    }

    /// The same file rewritten in place, larger and with another header.
    #[test]
    fn a_log_rewritten_in_place_with_another_header_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, header("first", 1)).unwrap();
        let mut catalog = Catalog::scan(dir.path());
        assert!(catalog.get("first").is_some());
        let mut file = fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut file, (header("other", 2) + &header("x", 3)).as_bytes())
            .unwrap();
        drop(file);
        catalog.refresh_path(&path);
        assert!(catalog.get("first").is_none());
        assert!(catalog.get("other").is_some());
    }
}
