//! Watching an OpenCode data folder: its databases and their `-wal` (not
//! recursively: the folder also holds OpenCode's snapshots and logs,
//! which say nothing about sessions). Any write there marks the store
//! dirty; the next update asks each database for its stamp.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::sources::is_database_name;
use crate::model::Wake;

/// Whether `event` may change what the folder's databases hold: a write
/// to a database or its `-wal`, or a `-shm` coming or going (OpenCode
/// starting, its last process stopping: how the database is opened
/// changes). Writes to a `-shm` are not: readers write there too, this
/// store among them.
fn relevant(event: &Event, storage: &Path) -> bool {
    if event.need_rescan() {
        return true;
    }
    let structural = matches!(
        event.kind,
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
    );
    let written = match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    };
    event.paths.iter().any(|path| {
        // The older tree (watched only while it is what is read).
        if path.starts_with(storage) {
            return structural || (written && path.extension().is_some_and(|e| e == "json"));
        }
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        if let Some(base) = name.strip_suffix("-shm") {
            return structural && is_database_name(base);
        }
        written && is_database_name(name.strip_suffix("-wal").unwrap_or(name))
    })
}

/// A watcher of one data folder.
pub struct OpencodeWatcher {
    watcher: RecommendedWatcher,
    root: PathBuf,
    armed: bool,
    /// Whether `storage/` is watched (recursively).
    tree_armed: bool,
}

impl std::fmt::Debug for OpencodeWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpencodeWatcher")
            .field("root", &self.root)
            .finish()
    }
}

impl OpencodeWatcher {
    pub fn start(root: &Path, dirty: Arc<AtomicBool>, wake: Wake) -> Option<Self> {
        let storage = root.join("storage");
        let handler = move |event: notify::Result<Event>| {
            // A lost event (an error): look again.
            if event.as_ref().map_or(true, |e| relevant(e, &storage)) {
                dirty.store(true, Ordering::SeqCst);
                wake();
            }
        };
        match notify::recommended_watcher(handler) {
            Ok(watcher) => {
                let mut this = OpencodeWatcher {
                    watcher,
                    root: root.to_path_buf(),
                    armed: false,
                    tree_armed: false,
                };
                this.arm(false);
                Some(this)
            }
            Err(e) => {
                tracing::warn!(
                    "cannot watch the OpenCode store: {e}; changes show after a restart"
                );
                None
            }
        }
    }

    /// Whether the folder is watched (it exists): until it is, nothing
    /// tells its changes.
    pub fn is_armed(&self) -> bool {
        self.armed
    }

    /// Watches the folder once it exists, and its `storage/` tree while
    /// `tree` (it is what is read: the folder has no database).
    pub fn arm(&mut self, tree: bool) {
        if !self.armed && self.root.is_dir() {
            match self.watcher.watch(&self.root, RecursiveMode::NonRecursive) {
                Ok(()) => self.armed = true,
                Err(e) => tracing::warn!("cannot watch {}: {e}", self.root.display()),
            }
        }
        let storage = self.root.join("storage");
        if tree && !self.tree_armed {
            match self.watcher.watch(&storage, RecursiveMode::Recursive) {
                Ok(()) => self.tree_armed = true,
                Err(e) => tracing::warn!("cannot watch {}: {e}", storage.display()),
            }
        } else if !tree && self.tree_armed {
            let _ = self.watcher.unwatch(&storage);
            self.tree_armed = false;
        }
    }
}
