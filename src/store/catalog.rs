//! The sessions of one store root: headers, titles and the winner of each id.
//!
//! One catalog serves the CLI (scan once) and the server (kept fresh file by
//! file). Per log it remembers the size and modification time it saw, the
//! format's scanner and how far it fed it, so a grown log costs only its new
//! lines and an unchanged one costs a `stat` (the scans are in
//! [`super::scan`], the election of each id's log in [`super::election`],
//! the store's notes in [`super::notes`]).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use super::aider::{Histories, Place};
use super::by_name::ByName;
use super::discover::{self, Walk};
use super::election;
use super::file_state::{FileState, Found};
use super::record::{Payload, PayloadBuffer, Record};
use super::release;
use super::scan::{refresh_all, refresh_state, Batches, Walker, Work};
use super::stamp::Stamp;
use crate::formats::{aider, FormatChoice, HeaderState};
use crate::model::{Locator, Session, SessionSink};

/// All sessions of one store root.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub(super) root: PathBuf,
    /// This store's position in the store list (for [`Locator`]s).
    index: usize,
    format: FormatChoice,
    /// By relative path; the key is shared with the sessions' locators.
    pub(super) files: ByName<FileState>,
    /// Number of distinct ids.
    count: usize,
    /// Whether `count` and each file's `winner` are those of `files` (so a
    /// walk that changes nothing need not elect again).
    elected: bool,
    /// id → relative path of the winning log, built on the first
    /// [`Catalog::get`] after a change (the server never asks).
    by_id: OnceLock<HashMap<String, Arc<[u8]>>>,
    pub(super) missing: bool,
    pub(super) unreadable: Option<String>,
    /// Folders below the root that could not be read (`rel: error`).
    pub(super) folder_errors: Vec<String>,
    /// Files of the last walk that no format of the store reads.
    pub(super) unread_files: usize,
    /// Whether every line is scanned (titles, capacity); `prepare` and
    /// `check` need only headers.
    titles: bool,
    /// Aider's chat histories below the root (a store of format `aider`
    /// or `auto`): many sessions per file, so kept beside `files`.
    aider: Option<Histories>,
    /// A store of one file (an Aider history found through a workspace
    /// folder): its name in the root, the only file looked at.
    single: Option<std::ffi::OsString>,
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
            unread_files: 0,
            titles,
            aider: format.reads_aider().then(Histories::default),
            single: None,
        }
    }

    /// A catalog of the one file at `path` (its store root is the file's
    /// folder), not scanned yet: an Aider history found through a
    /// workspace folder (agent-logs-files-3.md "Default stores").
    pub fn single_file(path: &Path, index: usize, format: FormatChoice, titles: bool) -> Self {
        let root = path.parent().unwrap_or(path);
        Catalog {
            single: path.file_name().map(ToOwned::to_owned),
            ..Self::empty(root, index, format, titles)
        }
    }

    /// The store as its notes and status name it: the root, or the one
    /// file of a store of one file.
    pub fn display_path(&self) -> PathBuf {
        match &self.single {
            Some(name) => self.root.join(name),
            None => self.root.clone(),
        }
    }

    /// Whether this is a store of one file.
    pub fn is_single_file(&self) -> bool {
        self.single.is_some()
    }

    fn place(&self) -> Place {
        Place {
            index: self.index,
            titles: self.titles,
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
            single: self.single.clone(),
        }
    }

    /// Brings the catalog to what a walk found: a log whose stamp is as
    /// recorded is kept as it is, the others are scanned.
    pub fn apply_walk(&mut self, walked: io::Result<Option<Walk>>) {
        let mut scan = self.begin_walk(walked);
        while self.scan_batch(&mut scan, None) {}
    }

    /// The first step of [`Self::apply_walk`]: pairs the walk with the
    /// catalog, keeps the unchanged logs and returns the others to scan
    /// with [`Self::scan_batch`] (the catalog is only whole again after
    /// the last batch).
    pub(super) fn begin_walk(&mut self, walked: io::Result<Option<Walk>>) -> Batches {
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
        let mut found = found.unwrap_or_default();
        self.folder_errors = found.errors;
        self.unread_files = found.unread;
        // Aider's histories hold many sessions each: kept apart.
        if let Some(histories) = &mut self.aider {
            let (theirs, logs) = found
                .logs
                .into_iter()
                .partition(|log| aider::is_history_name(&log.rel));
            found.logs = logs;
            histories.apply(theirs);
        }
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
                    Some(log) if state.is_current(&log.stamp) => false,
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
        // Still in order: entries were only taken out.
        self.files = ByName::from_sorted_unchecked(entries);
        // Nothing to scan: the election is the last step. The same files
        // with the same stamps: the same winners.
        if changed.is_empty() && !(unchanged && self.elected) {
            self.elect();
        }
        Batches::new(changed)
    }

    /// Scans the next batch of a walk begun by [`Self::begin_walk`] into
    /// the catalog and elects; whether a batch is left. With `release`
    /// (now), the scanners of the batch's old logs are let go of as they
    /// are read ([`super::release::let_go_of_read`]): a long-lived face's
    /// first scan.
    pub(super) fn scan_batch(
        &mut self,
        batches: &mut Batches,
        release: Option<SystemTime>,
    ) -> bool {
        let Some(batch) = batches.next(self.files.len()) else {
            return false;
        };
        let scanned = refresh_all(batch, self.format, self.titles, release);
        self.files.merge(ByName::from_sorted(scanned));
        self.elect();
        !batches.is_empty()
    }

    /// Re-reads one path after a change notification. Returns whether the
    /// catalog changed.
    pub fn refresh_path(&mut self, path: &Path) -> bool {
        let Some(rel) = discover::relative_log_path(&self.root, path) else {
            return false;
        };
        if let Some(histories) = &mut self.aider {
            if aider::is_history_name(&rel) {
                let only = self.single.as_ref().map(|n| n.as_encoded_bytes());
                if only.is_some_and(|only| only != &rel[..]) {
                    return false;
                }
                return histories.refresh(&rel, path);
            }
        }
        if self.single.is_some() {
            return false;
        }
        if !self.format.is_log_name_in(&self.root, &rel) {
            // A side file (Copilot CLI's `workspace.yaml`): its log again.
            let side = discover::file_name(&rel).as_encoded_bytes();
            let logs: Vec<&str> = self.format.logs_of_side_file(side).collect();
            let mut changed = false;
            for log in logs {
                changed |= path
                    .parent()
                    .is_some_and(|dir| self.refresh_path(&dir.join(log)));
            }
            // An index many logs take facts from (Cline's, Continue's
            // list): each log below its folder is stamped again, and only
            // those whose facts changed are read again.
            let scopes: Vec<Vec<u8>> = self.format.side_scopes(&rel).collect();
            for scope in scopes {
                let under: Vec<PathBuf> = self
                    .files
                    .iter()
                    .filter(|(name, _)| name.starts_with(&scope))
                    .map(|(name, _)| self.root.join(discover::name_path(name)))
                    .collect();
                for log in under {
                    changed |= self.refresh_path(&log);
                }
            }
            return changed;
        }
        let previous = self.files.remove_entry(&rel[..]);
        let rel = previous
            .as_ref()
            .map_or_else(|| Arc::from(rel), |p| p.0.clone());
        let previous = previous.map(|p| p.1);
        let before = previous.as_ref().map(|s| s.stamp);
        // Read again under an equal stamp: what it holds may differ, and
        // only a difference is a change.
        let racy = previous
            .as_ref()
            .filter(|s| s.racy)
            .map(|s| (s.header(), s.meta()));
        // Only regular files count; a symbolic link is not followed.
        let sides = self
            .format
            .side_files_of(discover::file_name(&rel).as_encoded_bytes());
        let dir = path.parent().unwrap_or(path);
        let facts = self.format.side_facts_of(path);
        let state = Stamp::of_path(path)
            .map(|stamp| stamp.with_sides(dir, sides))
            .map(|stamp| facts.map_or(stamp, |f| stamp.with_facts(f)))
            .map(|stamp| refresh_state(path, stamp, previous, self.format, self.titles));
        let after = state.as_ref().map(|s| s.stamp);
        let reread = racy.is_some_and(|was| {
            state
                .as_ref()
                .is_some_and(|now| (now.header(), now.meta()) != was)
        });
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
        if before != after || reread {
            self.elect();
            return true;
        }
        false
    }

    /// Marks the first file of each id (by name) as its winner.
    fn elect(&mut self) {
        self.by_id = OnceLock::new();
        self.elected = true;
        self.count = election::elect(&mut self.files);
    }

    /// Number of sessions (distinct ids).
    pub fn len(&self) -> usize {
        self.count + self.aider.as_ref().map_or(0, Histories::len)
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0 && self.aider.as_ref().is_none_or(Histories::is_empty)
    }

    /// The session with this id.
    pub fn get(&self, id: &str) -> Option<Session> {
        if let Some(rel) = self.id_map().get(id) {
            return self.session_at(rel, self.files.get(rel)?);
        }
        self.aider.as_ref()?.get(self.place(), id)
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
            stamp: state.stamp.key(self.index, rel).token(),
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
        if let Some(histories) = &self.aider {
            histories.for_each_session(self.place(), f);
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
        if let Some(histories) = &self.aider {
            histories.for_each_session(self.place(), &mut |session| {
                if sink.wants(session.key()) {
                    sink.take(session);
                }
            });
        }
    }

    /// The ids of the sessions with their logs' names, in relative-path
    /// order (borrowed when the format's scanner lends them).
    pub fn ids(&self) -> impl Iterator<Item = (Cow<'_, str>, &[u8])> + '_ {
        let histories = self.aider.iter().flat_map(|h| h.ids());
        self.files
            .iter()
            .filter(|(_, s)| s.winner)
            .filter_map(|(rel, state)| Some((state.session_id()?, &rel[..])))
            .chain(histories.map(|(id, rel)| (Cow::Owned(id), rel)))
    }

    /// What the Aider histories report: files and runs that are no
    /// session.
    pub(super) fn aider_notes(&self) -> Vec<crate::model::StoreNote> {
        self.aider
            .as_ref()
            .map(Histories::notes)
            .unwrap_or_default()
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
                // Judged now, later than the read the cache recorded: a
                // state racy then is racy now.
                racy: super::file_state::racy_read(&r.rel, &r.stamp),
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

    /// Lets go of the scanners of the logs not written to within
    /// [`release::KEEP_SCANNER_FOR`] of `now`, or not among the
    /// [`release::MOST_HOT`] written last, keeping instead what the index cache
    /// records of them, in one buffer of those records' payloads alone. A
    /// scanner is what resumes a log after an append; of 100,000 logs
    /// nearly all are old and will never grow again, and their scanners
    /// were a quarter of the language server's memory
    /// (docs/performance.md). Such a log that does grow is read again from
    /// its start, once. The parent of a log whose scanner stays keeps its
    /// own too: a sub-agent's label is asked of its parent's scanner.
    ///
    /// The states already held as records move into the same buffer, so
    /// the ones they pointed into (the whole cache file read at start,
    /// names and stamps included; a first scan's batches) are freed.
    pub(crate) fn release_scanners(&mut self, now: SystemTime) {
        let hot = release::hot(
            self.files.values().map(|state| &state.stamp),
            now,
            release::MOST_HOT,
        );
        let parents: HashSet<Arc<[u8]>> = self
            .files
            .values()
            .zip(&hot)
            .filter(|(_, hot)| **hot)
            .filter_map(|(state, _)| match &state.found {
                Found::Scanner(s) => s.parent(),
                _ => None,
            })
            .filter_map(|(parent, _)| self.id_map().get(parent.as_str()).cloned())
            .collect();
        let mut buffer = PayloadBuffer::default();
        let released: Vec<bool> = self
            .files
            .iter()
            .zip(&hot)
            .map(|((rel, state), hot)| {
                let release = match state.found {
                    Found::Scanner(_) => !hot && !parents.contains(rel),
                    Found::Cached(_) => true,
                    Found::Not(_) => false,
                };
                release && buffer.push(&self.payload_of(state))
            })
            .collect();
        let mut cached = buffer.finish().into_iter();
        // One payload was pushed for each state released, in order.
        for (state, _) in self.files.values_mut().zip(released).filter(|(_, r)| *r) {
            if let Some(c) = cached.next() {
                state.found = Found::Cached(c);
                state.first_line = (0, 0);
            }
        }
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

    /// What the index cache records of one file's scan.
    fn payload_of(&self, state: &FileState) -> Payload {
        match &state.found {
            // As read from the cache: written back as it is.
            Found::Cached(c) => Payload::Cached(c.clone()),
            found => {
                let mut header = state.header();
                // A sub-agent's display title comes from its parent's log:
                // keep it as found, since no scanner is there to ask later.
                if let (HeaderState::Session(h), Found::Scanner(s)) = (&mut header, found) {
                    if h.label.is_none() && state.full {
                        h.label = s.parent().and_then(|p| self.child_title(&p));
                    }
                }
                Payload::Values(header, state.meta())
            }
        }
    }

    /// Every file as an index cache keeps it, in relative-path order.
    pub(crate) fn for_each_record(&self, f: &mut dyn FnMut(Record)) {
        for (rel, state) in &self.files {
            let payload = self.payload_of(state);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::StoreNote;
    use std::fs;

    fn header(id: &str, created_at: u64) -> String {
        format!("{{\"type\":\"session\",\"id\":\"{id}\",\"createdAt\":{created_at}}}\n")
    }

    /// Line `seq` of a log: a title event.
    fn title(seq: u64, t: &str) -> String {
        format!("{{\"seq\":{seq},\"type\":\"session/title\",\"data\":{{\"title\":\"{t}\"}}}}\n")
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

    /// Issue 27 item 15, the catalog's part: a whole document (Gemini's
    /// `session-*.json`, Copilot Chat's `.json`) seen half-written, then
    /// completed in place (same inode, grown), is a session after a
    /// refresh of its path, as after a fresh scan. (This held before the
    /// issue: what loses it is above the catalog.)
    #[test]
    fn a_document_seen_half_written_then_completed_in_place_is_a_session() {
        let gemini = concat!(
            "{\n  \"sessionId\": \"g-doc\",\n  \"projectHash\": \"h\",\n",
            "  \"startTime\": \"2026-01-01T09:00:00.000Z\",\n  \"messages\": [\n",
            "    {\"id\": \"1\", \"type\": \"user\", \"content\": \"hello\"},\n",
            "    {\"id\": \"2\", \"type\": \"gemini\", \"content\": \"hi\"}\n  ]\n}\n"
        );
        let chat = concat!(
            "{\n  \"version\": 3,\n  \"sessionId\": \"c-doc\",\n",
            "  \"creationDate\": 1796026500000,\n  \"requests\": [\n",
            "    {\"message\": {\"text\": \"hello\"}, \"response\": [{\"value\": \"hi\"}]}\n",
            "  ]\n}\n"
        );
        for (format, rel, doc, id) in [
            (
                "gemini",
                "tmp/p/chats/session-2026-01-01T09-00-gdoc.json",
                gemini,
                "g-doc",
            ),
            ("copilot-chat", "ws/chatSessions/c-doc.json", chat, "c-doc"),
        ] {
            // Created empty (as a write begins), cut inside the first line,
            // after it, and half-way.
            for half in [0, 1, 2, doc.len() / 2] {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join(rel);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, &doc[..half]).unwrap();
                let choice = FormatChoice::by_name(format).unwrap();
                let mut catalog = Catalog::scan_with(dir.path(), 0, choice, true);
                assert!(catalog.get(id).is_none(), "{format} cut at {half}");
                let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
                std::io::Write::write_all(&mut file, &doc.as_bytes()[half..]).unwrap();
                drop(file);
                catalog.refresh_path(&path);
                assert!(
                    catalog.get(id).is_some(),
                    "{format} cut at {half}: a refresh misses it"
                );
                // A fresh scan agrees (what the CLI sees).
                let fresh = Catalog::scan_with(dir.path(), 0, choice, true);
                assert!(
                    fresh.get(id).is_some(),
                    "{format}: the fixture is no session"
                );
            }
        }
    }

    /// Issue 10 item 10: a log replaced by an atomic rename was parsed from
    /// the old offset; the old id stayed and titles crossed over.
    #[test]
    fn a_log_replaced_by_a_rename_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
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

    /// Copilot CLI's `workspace.yaml` changed alone (a rename, another
    /// cwd; `events.jsonl` untouched): the session is read again, by a
    /// walk and by a change notice naming the side file.
    #[test]
    fn a_side_file_that_changes_alone_re_reads_its_session() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s1");
        fs::create_dir(&session).unwrap();
        fs::write(
            session.join("events.jsonl"),
            concat!(
                r#"{"type":"session.start","data":{"sessionId":"s1"}}"#,
                "\n",
                r#"{"type":"user.message","data":{"content":"first prompt"}}"#,
                "\n"
            ),
        )
        .unwrap();
        let workspace = session.join("workspace.yaml");
        let format = FormatChoice::by_name("copilot-cli").unwrap();
        let mut catalog = Catalog::scan_with(dir.path(), 0, format, true);
        let facts = |c: &Catalog| c.get("s1").map(|s| (s.title, s.header.cwd));
        assert_eq!(facts(&catalog), Some((Some("first prompt".into()), None)));
        fs::write(&workspace, "cwd: /a\nuser_named: true\nname: Renamed\n").unwrap();
        catalog.rescan();
        assert_eq!(
            facts(&catalog),
            Some((Some("Renamed".into()), Some("/a".into())))
        );
        fs::write(&workspace, "cwd: /b\nuser_named: true\nname: Again\n").unwrap();
        assert!(catalog.refresh_path(&workspace));
        assert_eq!(
            facts(&catalog),
            Some((Some("Again".into()), Some("/b".into())))
        );
        // Unchanged since: nothing to do.
        assert!(!catalog.refresh_path(&workspace));
        fs::remove_file(&workspace).unwrap();
        assert!(catalog.refresh_path(&workspace));
        assert_eq!(facts(&catalog), Some((Some("first prompt".into()), None)));
    }
}
