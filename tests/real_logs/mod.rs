//! The shared real transcripts (`../shared/real-logs/`, other people's
//! files the project does not copy): where they are, or `None` after
//! counting the test as skipped (`tests/skip`: in CI that fails it).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/real-logs/<agent>`, or `None` (said on stderr) when absent.
pub fn real_logs(agent: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-logs")
        .join(agent);
    if dir.is_dir() {
        Some(dir)
    } else {
        crate::skip::skipped(&format!("{} is absent", dir.display()));
        None
    }
}

/// A temporary store holding copies of `parts` (files or folders relative
/// to the agent's real logs) at the same relative paths, so a test sees
/// exactly the transcripts it names and nothing else there.
pub fn store_of(agent: &str, parts: &[&str]) -> Option<tempfile::TempDir> {
    let from = real_logs(agent)?;
    let store = tempfile::tempdir().expect("temp dir");
    for part in parts {
        copy(&from.join(part), &store.path().join(part));
    }
    Some(store)
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read dir").flatten() {
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(from, to).expect("copy");
    }
}
