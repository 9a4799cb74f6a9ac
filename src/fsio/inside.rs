//! Whether a folder is inside another however either is written.

use std::fs;
use std::path::Path;

/// Whether `dir` (which may not exist yet) is `root` or below it, however
/// either is written: compared as canonical paths, and by device and inode
/// (a bind mount, or a link the canonical path does not show). A path that
/// cannot be settled counts as inside.
pub fn is_inside(dir: &Path, root: &Path) -> bool {
    // The nearest existing ancestor: what is still to be created below it
    // is inside whatever holds it (a `..` there cannot be settled).
    let mut existing = dir;
    while fs::symlink_metadata(existing).is_err() {
        let (Some(parent), Some(_)) = (existing.parent(), existing.file_name()) else {
            return true;
        };
        existing = parent;
    }
    let Ok(real) = fs::canonicalize(existing) else {
        return true;
    };
    let Ok(root_real) = fs::canonicalize(root) else {
        // A store that does not exist yet: as written.
        return dir.starts_with(root);
    };
    if real.starts_with(&root_real) {
        return true;
    }
    // Where device and inode cannot be known, the canonical paths decide.
    let Some(root_id) = file_id(&root_real) else {
        return false;
    };
    real.ancestors().any(|a| file_id(a) == Some(root_id))
}

/// A file's device and inode.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    let meta = fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}
