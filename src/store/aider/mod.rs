//! Aider's chat histories in a store (agent-logs-files-3.md "Aider"): each
//! `.aider.chat.history.md` holds many sessions, one per run, so its files
//! are not catalog entries (one file, one session) but kept here, beside
//! them, by the catalog of the same root: one walk finds both, and a
//! store of format `aider` is a catalog with no line logs. A default
//! store is one such file ([`super::catalog::Catalog::single_file`]).
//!
//! Incremental: an appended file reads only its new lines (its last run
//! goes on, new runs follow); a run's id never changes on append.

mod history;

use std::path::Path;
use std::sync::Arc;

use self::history::History;
use super::discover::LogFile;
use super::stamp::Stamp;
use crate::formats::aider::{self, Run};
use crate::model::{Locator, Session, SessionHeader, StoreNote};

/// The history files of one store root, by relative path.
#[derive(Debug, Clone, Default)]
pub struct Histories {
    /// Sorted by name; the name is shared with the sessions' locators.
    files: Vec<(Arc<[u8]>, History)>,
}

/// What a session is built with besides its run.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place {
    /// The store's position in the list.
    pub index: usize,
    /// Whether titles are shown (a full scan).
    pub titles: bool,
}

impl Histories {
    /// Brings the files to what a walk found (`logs`, sorted by name):
    /// unchanged ones are kept, grown ones read from where they stopped,
    /// gone ones dropped.
    pub(super) fn apply(&mut self, logs: Vec<LogFile>) {
        let mut old = std::mem::take(&mut self.files).into_iter().peekable();
        for log in logs {
            let mut previous = None;
            while let Some((name, _)) = old.peek() {
                match (**name).cmp(&log.rel[..]) {
                    std::cmp::Ordering::Less => {
                        old.next();
                    }
                    std::cmp::Ordering::Equal => {
                        previous = old.next();
                        break;
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            let path = log.path();
            let (rel, previous) = match previous {
                Some((rel, history)) => (rel, Some(history)),
                None => (Arc::from(log.rel), None),
            };
            let history = History::refresh(&path, log.dir, log.stamp, previous);
            self.files.push((rel, history));
        }
    }

    /// Re-reads the file `rel` at `path` after a change notice; whether
    /// anything changed.
    pub(super) fn refresh(&mut self, rel: &[u8], path: &Path) -> bool {
        let at = self.files.binary_search_by(|(name, _)| (**name).cmp(rel));
        let stamp = Stamp::of_path(path);
        match (at, stamp) {
            (Ok(at), Some(stamp)) => {
                let (name, previous) = self.files.remove(at);
                let before = previous.stamp;
                let dir = previous.dir.clone();
                let history = History::refresh(path, dir, stamp, Some(previous));
                let changed = before != history.stamp;
                self.files.insert(at, (name, history));
                changed
            }
            (Ok(at), None) => {
                self.files.remove(at);
                true
            }
            (Err(at), Some(stamp)) => {
                let dir: Arc<Path> = Arc::from(path.parent().unwrap_or(path));
                let history = History::refresh(path, dir, stamp, None);
                self.files.insert(at, (Arc::from(rel), history));
                true
            }
            (Err(_), None) => false,
        }
    }

    /// The runs that are sessions, in name then file order, with their
    /// file.
    fn sessions_with(&self) -> impl Iterator<Item = (&Arc<[u8]>, &History, &Run)> {
        self.files.iter().flat_map(|(rel, history)| {
            history
                .scan
                .runs()
                .iter()
                .filter(|run| run.has_message)
                .map(move |run| (rel, history, run))
        })
    }

    /// Number of sessions.
    pub fn len(&self) -> usize {
        self.sessions_with().count()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions_with().next().is_none()
    }

    /// Hands every session to `f`, in name then file order.
    pub(super) fn for_each_session(&self, place: Place, f: &mut dyn FnMut(Session)) {
        for (rel, history, run) in self.sessions_with() {
            f(session(place, rel, history, run));
        }
    }

    /// The session with this id: its file is named in the id.
    pub(super) fn get(&self, place: Place, id: &str) -> Option<Session> {
        let named = id.strip_prefix("aider:")?;
        let rel = &named[..named.rfind('#')?];
        let at = self
            .files
            .binary_search_by(|(name, _)| (**name).cmp(rel.as_bytes()))
            .ok()?;
        let (rel, history) = &self.files[at];
        let text = String::from_utf8_lossy(rel);
        let run = history
            .scan
            .runs()
            .iter()
            .find(|run| run.has_message && run.id(&text) == id)?;
        Some(session(place, rel, history, run))
    }

    /// Every session's id with its file's name, in session order.
    pub(super) fn ids(&self) -> impl Iterator<Item = (String, &[u8])> + '_ {
        self.sessions_with()
            .map(|(rel, _, run)| (run.id(&String::from_utf8_lossy(rel)), &rel[..]))
    }

    /// Files that hold no run, and runs that hold no message: not sessions.
    pub(super) fn notes(&self) -> Vec<StoreNote> {
        let mut notes = Vec::new();
        for (rel, history) in &self.files {
            let text = String::from_utf8_lossy(rel);
            if let Some(error) = &history.error {
                notes.push(StoreNote::NotASession {
                    rel: text.into_owned(),
                    why: error.clone(),
                });
                continue;
            }
            let runs = history.scan.runs();
            if runs.is_empty() {
                notes.push(StoreNote::NotASession {
                    rel: text.into_owned(),
                    why: "no run header line (`# aider chat started at …`)".into(),
                });
                continue;
            }
            for run in runs.iter().filter(|r| !r.has_message) {
                let id = run.id(&text);
                let run_name = id.strip_prefix("aider:").unwrap_or(&id);
                notes.push(StoreNote::NotASession {
                    rel: run_name.to_string(),
                    why: "no user or assistant message".into(),
                });
            }
        }
        notes
    }
}

/// One run as a session of the store.
fn session(place: Place, rel: &Arc<[u8]>, history: &History, run: &Run) -> Session {
    let text = String::from_utf8_lossy(rel);
    let modified = u64::try_from(history.stamp.mtime)
        .ok()
        .map(|secs| secs.saturating_mul(1000) + u64::from(history.stamp.mtime_nsec / 1_000_000));
    Session {
        header: SessionHeader {
            version: 0,
            id: run.id(&text),
            created_at: run.created_at(modified),
            cwd: aider::unverified::cwd_of(&history.dir),
            label: None,
        },
        locator: Locator {
            store: place.index,
            format: aider::NAME,
            name: rel.clone(),
        },
        title: run.title.clone().filter(|_| place.titles),
        capacity: None,
        unreadable: history.scan.failure().map(str::to_string),
        skipped_lines: 0,
        stamp: history.stamp.key(place.index, rel).token(),
    }
}

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;
