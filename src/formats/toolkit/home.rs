//! Where an agent keeps its files: the environment's paths as the agents
//! read them (a variable set and not empty; an `XDG_*` one only when
//! absolute; `~` under the home directory), and one default store place
//! as a format's row in [`crate::formats::table`] gives it.

use std::path::{Path, PathBuf};

/// One place a format's sessions are by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultPlace {
    pub path: PathBuf,
    /// Whether an environment variable named it: a store the person
    /// chose, whose problems are worth a warning. A store found only by
    /// its usual place is not.
    pub named: bool,
    /// This program's own store (hydra's): listed even when it does not
    /// exist, and read as `auto`, so any agent's logs put there are read.
    pub own: bool,
}

impl DefaultPlace {
    /// An agent's store at `path`, listed only when it exists.
    pub fn agent(path: PathBuf, named: bool) -> Self {
        Self {
            path,
            named,
            own: false,
        }
    }
}

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

/// An `XDG_*` variable as a path: only an absolute one counts (the XDG
/// specification's rule).
pub fn xdg_path(name: &str) -> Option<PathBuf> {
    env_path(name).filter(|p| p.is_absolute())
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

/// `$variable` resolved (see [`resolve_env`]), else `~/<usual>`; and
/// whether the variable named it.
pub fn env_or_home(variable: &str, usual: &str) -> Option<(PathBuf, bool)> {
    match resolve_env(variable) {
        Some(path) => Some((path, true)),
        None => home_dir().map(|home| (home.join(usual), false)),
    }
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
