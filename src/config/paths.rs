//! Paths from settings and the environment.

use std::path::{Path, PathBuf};

/// `$HOME`, when set and not empty.
pub fn home_dir() -> Option<PathBuf> {
    env_path("HOME")
}

/// An environment variable as a path, when set and not empty.
pub fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Where the command line keeps its index caches:
/// `$XDG_CACHE_HOME/hydra-session`, else `~/.cache/hydra-session` (an XDG
/// path that is not absolute is ignored, as the XDG spec asks).
pub fn index_cache_dir() -> Option<PathBuf> {
    let base = env_path("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| home_dir().map(|h| h.join(".cache")))?;
    Some(base.join("hydra-session"))
}

/// The process's current directory (empty when it cannot be known).
pub fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// A configured path made absolute: `~` and `~/…` are under the home
/// directory; a relative path is under `base`.
pub fn resolve(path: &Path, base: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~") {
        if let Some(home) = home_dir() {
            return home.join(rest);
        }
    }
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// A path from the environment: relative to the process's current
/// directory, whichever face reads it.
pub fn resolve_env(name: &str) -> Option<PathBuf> {
    env_path(name).map(|p| resolve(&p, &current_dir()))
}

/// Claude Code's configuration directory: `$CLAUDE_CONFIG_DIR`, else
/// `~/.claude`.
pub fn claude_config_dir() -> Option<PathBuf> {
    resolve_env("CLAUDE_CONFIG_DIR").or_else(|| home_dir().map(|h| h.join(".claude")))
}

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home() -> Option<PathBuf> {
    resolve_env("CODEX_HOME").or_else(|| home_dir().map(|h| h.join(".codex")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_under_the_base() {
        let base = Path::new("/w");
        assert_eq!(resolve(Path::new("/abs"), base), PathBuf::from("/abs"));
        assert_eq!(resolve(Path::new("rel/s"), base), PathBuf::from("/w/rel/s"));
        if let Some(home) = home_dir() {
            assert_eq!(resolve(Path::new("~/x"), base), home.join("x"));
            assert_eq!(resolve(Path::new("~"), base), home);
        }
    }
}
