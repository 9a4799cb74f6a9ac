//! One folder's entries, read once and kept while the folder is unchanged:
//! every keystroke after the first in a folder filters a list in memory
//! instead of reading the folder again. A folder's modification time
//! changes whenever an entry is added, removed or renamed; a listing taken
//! within a second of that time is not kept (its clock may not have ticked
//! since), as Git does for its index.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use super::FileKind;

/// Folders kept; the cache is cleared when it grows past this.
const CACHED_FOLDERS: usize = 64;
/// A listing this close to its folder's modification time is not kept.
const RACY: Duration = Duration::from_secs(1);

/// The entries of one folder that may be candidates: folders, regular
/// files and links to them, with UTF-8 names free of line breaks; `.git`
/// included (callers leave it out). In directory order.
#[derive(Debug, Default)]
pub struct Listing {
    pub entries: Vec<(FileKind, String)>,
    /// Whether the walk stopped at its entry or time bound.
    pub cut: bool,
}

type Cache = Mutex<HashMap<PathBuf, (SystemTime, Arc<Listing>)>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The listing of `dir`, from the cache when the folder is unchanged.
pub fn listing(dir: &Path, max_entries: usize, max_walk: Duration) -> Option<Arc<Listing>> {
    let modified = fs::metadata(dir).ok()?.modified().ok();
    if let (Some(modified), Ok(cache)) = (modified, cache().lock()) {
        if let Some((when, listing)) = cache.get(dir) {
            if *when == modified {
                return Some(listing.clone());
            }
        }
    }
    let listing = Arc::new(read(dir, max_entries, max_walk)?);
    let settled = modified.filter(|m| {
        SystemTime::now()
            .duration_since(*m)
            .is_ok_and(|age| age > RACY)
    });
    if let (Some(modified), Ok(mut cache)) = (settled, cache().lock()) {
        if cache.len() >= CACHED_FOLDERS {
            cache.clear();
        }
        cache.insert(dir.to_path_buf(), (modified, listing.clone()));
    }
    Some(listing)
}

/// Reads `dir`, at most `max_entries` entries and for at most `max_walk`.
pub fn read(dir: &Path, max_entries: usize, max_walk: Duration) -> Option<Listing> {
    let started = Instant::now();
    let mut out = Listing::default();
    for (seen, entry) in fs::read_dir(dir).ok()?.enumerate() {
        if seen >= max_entries || (seen % 256 == 255 && started.elapsed() > max_walk) {
            out.cut = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if name.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
            continue;
        }
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let kind = if file_type.is_dir() {
            FileKind::Directory
        } else if file_type.is_file() {
            FileKind::File
        } else if file_type.is_symlink() {
            // Listed by what it points to; broken or looping: left out.
            match fs::metadata(entry.path()) {
                Ok(m) if m.is_dir() => FileKind::Directory,
                Ok(m) if m.is_file() => FileKind::File,
                _ => continue,
            }
        } else {
            // FIFOs, sockets, devices.
            continue;
        };
        out.entries.push((kind, name));
    }
    Some(out)
}
