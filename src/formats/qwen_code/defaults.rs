//! Where Qwen Code keeps its chats (agent-logs-files-3.md "Default
//! stores"): `projects/` in its runtime folder, `~/.qwen` unless
//! `QWEN_RUNTIME_DIR` moves it; set, the default is not read.

use std::path::Path;

use super::unverified;
use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$QWEN_RUNTIME_DIR/projects` when the variable counts
/// ([`unverified::runtime_dir_counts`]), else `~/.qwen/projects`.
pub fn default_stores() -> Vec<DefaultPlace> {
    let named = home::env_path("QWEN_RUNTIME_DIR")
        .filter(|p| unverified::runtime_dir_counts(p))
        .map(|p| home::resolve(&p, Path::new("/")));
    let (dir, is_named) = match named {
        Some(dir) => (Some(dir), true),
        None => (home::home_dir().map(|h| h.join(".qwen")), false),
    };
    dir.map(|d| DefaultPlace::agent(d.join("projects"), is_named))
        .into_iter()
        .collect()
}
