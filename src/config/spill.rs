//! Where full snapshots are spilled (server.md "Configuration",
//! reference.md §5a): a directory made absolute and normalised lexically.

use std::path::{Component, Path, PathBuf};

use super::paths;

/// The spill directory a call uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpillDir {
    /// No spilling (`--no-spill`, `spillDir: ""`).
    Disabled,
    /// Spill here (absolute, normalised).
    Dir(PathBuf),
    /// The default directory cannot be known (no home directory): every
    /// spill fails with this reason.
    Unknown(String),
}

/// `$XDG_CACHE_HOME/hydra-session/snapshots` when that variable is an
/// absolute path, else `~/.cache/hydra-session/snapshots`.
pub fn default_dir() -> SpillDir {
    let base = match paths::env_path("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        Some(cache) => cache,
        None => match paths::home_dir() {
            Some(home) => home.join(".cache"),
            None => {
                return SpillDir::Unknown(
                    "no home directory for the default spill directory".into(),
                )
            }
        },
    };
    SpillDir::Dir(normalize(&base.join("hydra-session").join("snapshots")))
}

/// A configured spill directory: `""` disables spilling; `~/` is the home
/// directory; a relative path is under `base`.
pub fn configured_dir(configured: &str, base: &Path) -> SpillDir {
    if configured.is_empty() {
        return SpillDir::Disabled;
    }
    SpillDir::Dir(normalize(&paths::resolve(Path::new(configured), base)))
}

/// Removes `.`, `..` and empty segments lexically; links are not resolved.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_normalised_lexically() {
        assert_eq!(
            normalize(Path::new("/a/./b//c/../d/")),
            PathBuf::from("/a/b/d")
        );
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
        assert_eq!(
            configured_dir("s/../t", Path::new("/w")),
            SpillDir::Dir(PathBuf::from("/w/t"))
        );
        assert_eq!(configured_dir("", Path::new("/w")), SpillDir::Disabled);
    }
}
