//! Where the shared real transcripts are for unit tests: other people's
//! files in `../shared/real-logs/`, read there and never copied into the
//! project. When absent, the test is counted as skipped by the same rule
//! as the integration tests' (`tests/skip`: in CI that fails it).

use std::path::{Path, PathBuf};

// The integration tests' skip counter, shared rather than written again.
#[path = "../../../tests/skip/mod.rs"]
mod skip;

/// `../shared/real-logs/<agent>`, or `None` after counting the test as
/// skipped (said on stderr) when absent.
pub fn real_logs(agent: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-logs")
        .join(agent);
    if dir.is_dir() {
        Some(dir)
    } else {
        skip::skipped(&format!("{} is absent", dir.display()));
        None
    }
}
