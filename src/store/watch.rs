//! Watching a store root for changes: file events are gathered into a
//! [`Pending`] set that the store applies on its next update.
//!
//! A log event refreshes that one path (the catalog reads only the appended
//! lines); a directory event, an overflow or the root coming and going
//! rescans, which reuses every unchanged file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::model::Wake;

/// The changes seen under one root since the last update.
#[derive(Debug, Default)]
pub struct Pending {
    pub paths: BTreeSet<PathBuf>,
    pub rescan: bool,
    /// The root itself came or went: watch it again.
    pub rearm: bool,
    /// An agent database (or its `-wal`, `-journal`) below the root was
    /// written: its store asks each database for its stamp.
    pub databases: bool,
}

impl Pending {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.rescan && !self.databases
    }

    fn add(&mut self, event: notify::Result<Event>, root: &Path) {
        let Ok(event) = event else {
            self.rescan = true;
            return;
        };
        if event.need_rescan() {
            self.rescan = true;
        }
        let structural = matches!(
            event.kind,
            EventKind::Create(_)
                | EventKind::Remove(_)
                | EventKind::Modify(ModifyKind::Name(_))
                | EventKind::Any
                | EventKind::Other
        );
        // Reads are events too (our own reads of logs and directories
        // among them): only a finished write matters.
        let relevant = match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
            EventKind::Access(_) => false,
            _ => true,
        };
        if !relevant {
            return;
        }
        for path in event.paths {
            if path != root && root.starts_with(&path) {
                // A folder on the way to the root came or went (the first
                // run, before `~/.hydra` exists): watch closer, look again.
                if structural {
                    self.rescan = true;
                    self.rearm = true;
                }
            } else if path == root {
                if structural {
                    self.rescan = true;
                    self.rearm = true;
                }
            } else if !path.starts_with(root) {
                // A sibling of the root, seen through the parent's watch.
            } else if path
                .extension()
                .is_some_and(|e| e == "jsonl" || e == "json")
                || is_history(&path)
            {
                // A `.json` too: a document rewritten in place (Cline's,
                // Continue's), or an index its sessions take facts from.
                self.paths.insert(path);
            } else if super::database::is_written_database(&path) {
                // A write a database reader must not miss (its `-shm`
                // excepted: readers write there too, this one among them).
                self.databases = true;
            } else if structural {
                // A directory came, went or moved: what it held is unknown.
                self.rescan = true;
            }
        }
    }
}

/// Whether `path` is an Aider chat history (appended to by every run, so a
/// write to it is read like a grown log's).
fn is_history(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == crate::formats::aider::FILE_NAME)
}

/// A watcher of one root feeding `pending` and calling `wake`.
pub struct RootWatcher {
    watcher: RecommendedWatcher,
    root: PathBuf,
    /// The nearest existing ancestor of the root, watched (not
    /// recursively) to see the root, or a folder on the way to it, appear.
    ancestor: Option<PathBuf>,
    /// Whether the tree below the root is watched, or the root alone.
    recursive: bool,
}

impl std::fmt::Debug for RootWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootWatcher")
            .field("root", &self.root)
            .finish()
    }
}

impl RootWatcher {
    /// Watches `root` (the tree below it when `recursive`; a store of one
    /// file watches only its folder).
    pub fn start(
        root: &Path,
        recursive: bool,
        pending: Arc<Mutex<Pending>>,
        wake: Wake,
    ) -> Option<Self> {
        let handler_root = root.to_path_buf();
        let handler = move |event: notify::Result<Event>| {
            // Wake only when this event left something to apply.
            let relevant = match pending.lock() {
                Ok(mut p) => {
                    p.add(event, &handler_root);
                    p.rearm || !p.is_empty()
                }
                Err(_) => false,
            };
            if relevant {
                wake();
            }
        };
        match notify::recommended_watcher(handler) {
            Ok(watcher) => {
                let mut this = RootWatcher {
                    watcher,
                    root: root.to_path_buf(),
                    ancestor: None,
                    recursive,
                };
                this.arm();
                Some(this)
            }
            Err(e) => {
                tracing::warn!("cannot watch the session store: {e}; changes show after a restart");
                None
            }
        }
    }

    /// Watches the root recursively, and its nearest existing ancestor (its
    /// parent, once that exists; not recursively) so the root's creation or
    /// removal is seen too, even when its parent does not exist yet.
    pub fn arm(&mut self) {
        let nearest = self
            .root
            .ancestors()
            .skip(1)
            .find(|a| a.is_dir())
            .map(Path::to_path_buf);
        if nearest != self.ancestor {
            if let Some(old) = self.ancestor.take() {
                let _ = self.watcher.unwatch(&old);
            }
            if let Some(ancestor) = &nearest {
                if let Err(e) = self.watcher.watch(ancestor, RecursiveMode::NonRecursive) {
                    tracing::warn!("cannot watch {}: {e}", ancestor.display());
                }
            }
            self.ancestor = nearest;
        }
        if self.root.is_dir() {
            let mode = if self.recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            if let Err(e) = self.watcher.watch(&self.root, mode) {
                tracing::warn!("cannot watch {}: {e}", self.root.display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::DataChange;

    /// A write to a log, to an Aider history, to a document rewritten in
    /// place (Cline's, Continue's) or to an index beside it is that one
    /// path to read again; a write to another file is nothing.
    #[test]
    fn a_write_to_a_history_is_a_path_to_refresh() {
        let root = Path::new("/store");
        let mut pending = Pending::default();
        for name in [
            "a/s.jsonl",
            "a/.aider.chat.history.md",
            "a/notes.md",
            "t/tasks/1/ui_messages.json",
            "t/state/taskHistory.json",
        ] {
            let event = Event::new(EventKind::Modify(ModifyKind::Data(DataChange::Content)))
                .add_path(root.join(name));
            pending.add(Ok(event), root);
        }
        let paths: Vec<&Path> = pending.paths.iter().map(PathBuf::as_path).collect();
        assert_eq!(
            paths,
            [
                Path::new("/store/a/.aider.chat.history.md"),
                Path::new("/store/a/s.jsonl"),
                Path::new("/store/t/state/taskHistory.json"),
                Path::new("/store/t/tasks/1/ui_messages.json")
            ]
        );
        assert!(!pending.rescan);
    }
}
