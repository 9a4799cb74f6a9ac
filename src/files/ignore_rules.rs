//! Git ignore rules for file candidates (reference.md §7a): the
//! `.gitignore` files from the cwd down to the listed folder (none above
//! the cwd, with or without a repository) and the cwd's
//! `.git/info/exclude`, matched by the `ignore` crate. Compiled matchers
//! are cached by path, size and modification time, so a keystroke in a
//! folder already seen costs one `stat` per level.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

/// Compiled files kept; the cache is cleared when it grows past this.
const CACHE_ENTRIES: usize = 512;

type Stamp = (u64, Option<SystemTime>);
type Cache = Mutex<HashMap<PathBuf, (Stamp, Option<Arc<Gitignore>>)>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The matcher of one ignore file, rooted at `root`; `None` when the file
/// does not exist or holds no rule.
fn matcher(root: &Path, file: &Path) -> Option<Arc<Gitignore>> {
    let meta = std::fs::metadata(file).ok().filter(|m| m.is_file())?;
    let stamp = (meta.len(), meta.modified().ok());
    if let Ok(cache) = cache().lock() {
        if let Some((cached, matcher)) = cache.get(file) {
            if *cached == stamp {
                return matcher.clone();
            }
        }
    }
    let mut builder = GitignoreBuilder::new(root);
    // A bad line is skipped, as Git does; the other lines still count.
    let _ = builder.add(file);
    let built = builder.build().ok().filter(|g| !g.is_empty()).map(Arc::new);
    if let Ok(mut cache) = cache().lock() {
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(file.to_path_buf(), (stamp, built.clone()));
    }
    built
}

/// The rules that apply to the entries of one folder, deepest first.
pub struct Rules {
    levels: Vec<Arc<Gitignore>>,
}

impl Rules {
    /// Rules for the entries of `cwd/folder` (`folder` empty or ending in
    /// `/`, already confined to the cwd).
    pub fn for_folder(cwd: &Path, folder: &str) -> Self {
        let mut levels = Vec::new();
        if let Some(exclude) = matcher(cwd, &cwd.join(".git/info/exclude")) {
            levels.push(exclude);
        }
        let mut dir = cwd.to_path_buf();
        let segments = folder.split('/').filter(|s| !s.is_empty() && *s != ".");
        for segment in std::iter::once("").chain(segments) {
            if !segment.is_empty() {
                dir.push(segment);
            }
            if let Some(level) = matcher(&dir, &dir.join(".gitignore")) {
                levels.push(level);
            }
        }
        levels.reverse();
        Rules { levels }
    }

    /// Whether the entry at `path` (under the cwd, as joined) is ignored:
    /// the deepest file with a matching rule decides.
    pub fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        for level in &self.levels {
            match level.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }
}
