//! Where the index lives and what its files may be: under the cache
//! directory (`$XDG_CACHE_HOME/hydra-session/search/` when that variable is
//! absolute, else `~/.cache/hydra-session/search/`), one folder per store
//! list and build, folders 0700 and files 0600, never inside a store.
//! tantivy creates its files with the process's umask: [`narrow`] makes
//! each of them owner-only after every commit (the folder being 0700, no
//! other user could open them in between).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::config::paths;
use crate::fsio::{self, Links};
use crate::store::StoreSpec;

/// What makes an index of another layout or another build's readers
/// unusable: its folder's name changes with it, and a new index is built.
const LAYOUT: &str = concat!(
    // 3: session-level words and stems, file names whole, `v12` split.
    // 4: `stems` only the forms that differ from their word.
    "4+",
    env!("CARGO_PKG_VERSION"),
    "+formats.",
    env!("HYDRA_FORMATS_HASH")
);

/// The schema as JSON: an index of other fields (one that stored the
/// text, one without a field added since) is in another folder, built
/// anew, and the old folder left to [`super::lifecycle`].
fn schema_key() -> &'static str {
    static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        serde_json::to_string(&super::schema::Fields::new().schema).unwrap_or_default()
    })
}

/// The default root: `<cache>/hydra-session/search`.
pub fn default_root() -> Option<PathBuf> {
    paths::index_cache_dir().map(|d| d.join("search"))
}

/// The folder of the index of `stores` (each a root and its format's
/// name) under `root`.
pub fn index_dir(root: &Path, stores: &[(PathBuf, &str)]) -> PathBuf {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(LAYOUT.as_bytes());
    h.write(schema_key().as_bytes());
    for (path, format) in stores {
        h.write(path.to_string_lossy().as_bytes());
        h.write_u8(0);
        h.write(format.as_bytes());
        h.write_u8(0);
    }
    root.join(format!("index-{:016x}", h.finish()))
}

/// The folder of the index of the store list `specs` under `root`.
pub fn for_specs(root: &Path, specs: &[StoreSpec]) -> PathBuf {
    let stores: Vec<(PathBuf, &str)> = specs
        .iter()
        .map(|s| (s.path.clone(), s.format.name()))
        .collect();
    index_dir(root, &stores)
}

/// The default folder of the index of `specs`, when there is a cache
/// directory.
pub fn default_for(specs: &[StoreSpec]) -> Option<PathBuf> {
    default_root().map(|root| for_specs(&root, specs))
}

/// Makes `dir` ready to hold an index of stores at `roots`: refused when
/// it is inside one of them (nothing is ever written into a store) or is
/// not the current user's alone; created 0700 otherwise.
pub fn prepare(dir: &Path, roots: &[PathBuf]) -> Result<(), String> {
    if let Some(root) = roots.iter().find(|root| fsio::is_inside(dir, root)) {
        return Err(format!(
            "the search index {} would be inside the session store {}",
            dir.display(),
            root.display()
        ));
    }
    if let Some(parent) = dir.parent() {
        fsio::make_private_dir(parent).map_err(|e| e.to_string())?;
    }
    make_index_dir(dir)
}

/// Creates the index folder `dir` itself, 0700, exclusively (`mkdir`
/// fails on any name already there, a link included); an existing one
/// must be a real folder of the current user's, never a link: tantivy
/// would write through it and [`narrow`] change the modes of whatever it
/// points to.
pub fn make_index_dir(dir: &Path) -> Result<(), String> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    match builder.create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    let meta = fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if meta.file_type().is_symlink() {
        return Err(format!(
            "the search index {} is a link: an index is never written through one",
            dir.display()
        ));
    }
    if !meta.is_dir() {
        return Err(format!(
            "the search index {} is not a folder",
            dir.display()
        ));
    }
    // No link (checked just above, in a parent only this user can write):
    // the owner and the mode are the folder's own.
    fsio::make_private_dir(dir).map_err(|e| e.to_string())
}

/// Narrows every file of the index folder to 0600 (through the open file,
/// never following a link), every folder to 0700.
pub fn narrow(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_file() {
            if let Ok(file) = fsio::open_regular(&entry.path(), Links::NoFollow) {
                let _ = fsio::make_private_file(&file);
            }
        } else if kind.is_dir() {
            let _ = fsio::make_private_dir(&entry.path());
        }
    }
}

/// The bytes of the files of `dir`.
pub fn size(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Whether the file system that holds (or would hold) `dir` has no
/// block left for an unprivileged writer: `status` says search is off
/// then, as the next update would find.
pub fn is_full(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        // The nearest folder that exists: the index may not be built yet.
        dir.ancestors()
            .find_map(|d| rustix::fs::statvfs(d).ok())
            .is_some_and(|fs| fs.f_bavail == 0)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        false
    }
}

/// Moves an index folder that cannot be read (corrupt, or not an index
/// of this program's) aside, to `<name>.broken-<ms>`, where a person can
/// look at it; the next open builds a new one.
pub fn move_aside(dir: &Path, now_ms: u64) -> io::Result<PathBuf> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let aside = dir.with_file_name(format!("{name}.broken-{now_ms}"));
    fs::rename(dir, &aside)?;
    Ok(aside)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn an_index_is_never_inside_a_store_and_is_owner_only() {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        fs::create_dir(&store).unwrap();
        let inside = index_dir(&store.join(".cache"), &[(store.clone(), "auto")]);
        assert!(prepare(&inside, std::slice::from_ref(&store))
            .unwrap_err()
            .contains("inside the session store"));
        assert!(!store.join(".cache").exists());
        let dir = index_dir(&tmp.path().join("search"), &[(store.clone(), "auto")]);
        prepare(&dir, &[store]).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(dir.parent().unwrap()), 0o700);
        let file = dir.join("meta.json");
        fs::write(&file, "{}").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        narrow(&dir);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(size(&dir), 2);
        let aside = move_aside(&dir, 7).unwrap();
        assert!(aside.to_string_lossy().ends_with(".broken-7") && !dir.exists());
    }

    /// Issue 27 item 8: a link planted at the index folder's name is
    /// refused, and neither the folder it points to nor its files change.
    #[test]
    fn a_link_at_the_index_folder_is_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("elsewhere");
        fs::create_dir(&target).unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
        let file = target.join("notes.txt");
        fs::write(&file, "mine").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        let dir = index_dir(&tmp.path().join("search"), &[(PathBuf::from("/s"), "auto")]);
        fs::create_dir_all(dir.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &dir).unwrap();
        let refused = prepare(&dir, &[PathBuf::from("/s")]).unwrap_err();
        assert!(refused.contains("is a link"), "{refused}");
        let opened = crate::search::Search::open(&dir, &[PathBuf::from("/s")], 1);
        assert!(opened.is_err());
        assert_eq!((mode(&target), mode(&file)), (0o755, 0o644));
        assert_eq!(fs::read_dir(&target).unwrap().count(), 1);
        // A file there is no folder either.
        fs::remove_file(&dir).unwrap();
        fs::write(&dir, "").unwrap();
        assert!(prepare(&dir, &[PathBuf::from("/s")])
            .unwrap_err()
            .contains("not a folder"));
    }

    #[test]
    fn each_store_list_has_its_own_index() {
        let root = Path::new("/c");
        let a = index_dir(root, &[(PathBuf::from("/s"), "auto")]);
        assert_ne!(a, index_dir(root, &[(PathBuf::from("/s"), "codex")]));
        assert_ne!(a, index_dir(root, &[(PathBuf::from("/t"), "auto")]));
        assert_eq!(a, index_dir(root, &[(PathBuf::from("/s"), "auto")]));
    }
}
