//! Paths from settings and the environment.

use std::path::PathBuf;

// The environment's paths are the formats' (where each agent keeps its
// files); the settings read them alike.
pub use crate::formats::toolkit::home::{current_dir, env_path, home_dir, resolve, resolve_env};

/// Where the command line keeps its index caches:
/// `$XDG_CACHE_HOME/hydra-session`, else `~/.cache/hydra-session` (an XDG
/// path that is not absolute is ignored, as the XDG spec asks).
pub fn index_cache_dir() -> Option<PathBuf> {
    let base = env_path("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| home_dir().map(|h| h.join(".cache")))?;
    Some(base.join("hydra-session"))
}

// Where Claude Code keeps its files is its format's to say.
pub use crate::formats::claude_code::defaults::config_dir as claude_config_dir;
