//! One folder's entries that a typed name prefix selects, read once and
//! kept while the folder is unchanged: every keystroke after the first in
//! a folder filters a list in memory instead of reading the folder again
//! (a longer prefix selects a subset of what a shorter one read). The
//! prefix filters while reading, so a folder of 200,000 entries yields
//! every match of `f19999` in one pass: the bound on what is kept applies
//! to matches, not to the entries walked past. A folder's modification
//! time changes whenever an entry is added, removed or renamed; a listing
//! taken within a second of that time is not kept (its clock may not have
//! ticked since), as Git does for its index.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use super::{starts_with_lower, FileKind};

/// Folders kept; the cache is cleared when it grows past this.
const CACHED_FOLDERS: usize = 64;
/// A listing this close to its folder's modification time is not kept.
const RACY: Duration = Duration::from_secs(1);

/// The entries of one folder that may be candidates and whose names start
/// with the listing's prefix (case-insensitive): folders, regular files and
/// links to them, with UTF-8 names free of line breaks; `.git` included
/// (callers leave it out). In directory order.
#[derive(Debug, Default)]
pub struct Listing {
    pub entries: Vec<(FileKind, String)>,
    /// Whether the walk stopped at one of its bounds.
    pub cut: bool,
    /// The prefix the entries were selected by, lower-cased.
    prefix_lower: String,
}

/// How much one read of a folder may cost.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Matching entries kept.
    pub kept: usize,
    /// Entries walked past, matching or not.
    pub walked: usize,
    /// Time spent walking, counted once `untimed` entries were walked.
    pub time: Duration,
    /// Entries always walked, however long they take: what is found in a
    /// folder of up to this many entries never depends on the machine's
    /// load (a loaded machine can take over a second for 200,000).
    pub untimed: usize,
}

type Cache = Mutex<HashMap<PathBuf, (SystemTime, Arc<Listing>)>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The listing of `dir` for `prefix`, from the cache when the folder is
/// unchanged and a complete listing for a prefix of `prefix` is kept.
pub fn listing(dir: &Path, prefix: &str, bounds: Bounds) -> Option<Arc<Listing>> {
    let prefix_lower = prefix.to_lowercase();
    let modified = fs::metadata(dir).ok()?.modified().ok();
    if let (Some(modified), Ok(cache)) = (modified, cache().lock()) {
        if let Some((when, listing)) = cache.get(dir) {
            // A cut listing may miss matches a narrower read would find.
            if *when == modified && !listing.cut && prefix_lower.starts_with(&listing.prefix_lower)
            {
                return Some(listing.clone());
            }
        }
    }
    let listing = Arc::new(read(dir, prefix, bounds)?);
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

/// Reads the entries of `dir` whose names start with `prefix`
/// (case-insensitive), within `bounds`.
pub fn read(dir: &Path, prefix: &str, bounds: Bounds) -> Option<Listing> {
    let started = Instant::now();
    let prefix_lower = prefix.to_lowercase();
    let mut out = Listing::default();
    for (seen, entry) in fs::read_dir(dir).ok()?.enumerate() {
        if seen >= bounds.walked
            || out.entries.len() >= bounds.kept
            || (seen >= bounds.untimed && seen % 256 == 255 && started.elapsed() > bounds.time)
        {
            out.cut = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        // First the test most entries fail, before any other look.
        if !starts_with_lower(&name, prefix, &prefix_lower)
            || name.contains(['\n', '\r', '\u{2028}', '\u{2029}'])
        {
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
    out.prefix_lower = prefix_lower;
    Some(out)
}
