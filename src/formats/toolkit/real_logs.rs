//! Where the shared real transcripts are for unit tests: other people's
//! files in `../shared/real-logs/`, read there and never copied into the
//! project. When absent, a test says it was skipped.

use std::path::{Path, PathBuf};

/// `../shared/real-logs/<agent>`, or `None` (said on stderr) when absent.
// A skipped test says so (the core otherwise never prints).
#[allow(clippy::print_stderr)]
pub fn real_logs(agent: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-logs")
        .join(agent);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped 1 test: {} is absent", dir.display());
        None
    }
}
