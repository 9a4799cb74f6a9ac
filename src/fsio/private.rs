//! Owner-only folders and files, and temporary files that cannot be
//! planted.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// Random characters in a temporary file's name.
pub const TEMP_RANDOM: usize = 12;

/// Whether `name` is a temporary file name [`private_temp_file`] makes
/// with `prefix` and `suffix`: the program removes only such files.
pub fn is_temp_name(name: &str, prefix: &str, suffix: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(suffix))
        .is_some_and(|random| {
            random.len() == TEMP_RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// A new file `prefix` + random + `suffix` in `dir`, mode 0600, created
/// with `O_CREAT|O_EXCL` (so never through a link planted at its name:
/// with `O_EXCL` a link fails to open wherever it points) under a name
/// nobody can guess. Removed when dropped unless persisted.
pub fn private_temp_file(
    dir: &Path,
    prefix: &str,
    suffix: &str,
) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(prefix)
        .suffix(suffix)
        .rand_bytes(TEMP_RANDOM);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o600));
    }
    builder.tempfile_in(dir)
}

/// Creates `dir` and any missing parent, each created folder mode 0700.
/// An existing folder is left as it is.
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    if !fs::metadata(dir)?.is_dir() {
        return Err(io::Error::other("not a directory"));
    }
    Ok(())
}

/// Why a folder cannot hold the program's own files.
#[derive(Debug)]
pub enum DirRefused {
    /// It could not be looked at, created or narrowed.
    Io { dir: PathBuf, error: io::Error },
    /// Another user owns it.
    OtherOwner { dir: PathBuf, owner: u32, me: u32 },
    /// Other users can write to it.
    WritableByOthers { dir: PathBuf },
}

impl DirRefused {
    fn io(dir: &Path, error: io::Error) -> Self {
        DirRefused::Io {
            dir: dir.to_path_buf(),
            error,
        }
    }
}

impl std::fmt::Display for DirRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DirRefused::Io { dir, error } => write!(f, "{}: {error}", dir.display()),
            DirRefused::OtherOwner { dir, owner, me } => write!(
                f,
                "{} is owned by another user (uid {owner}, not {me})",
                dir.display()
            ),
            DirRefused::WritableByOthers { dir } => {
                write!(f, "{} is writable by other users", dir.display())
            }
        }
    }
}

impl std::error::Error for DirRefused {}

/// Why the program must not keep its files in `dir`: a folder owned by
/// another user, or one other users can write to, lets them replace what
/// the program stored. `Ok` for a folder of the current user that others
/// cannot write.
pub fn refuse_shared_dir(dir: &Path) -> Result<(), DirRefused> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(dir).map_err(|e| DirRefused::io(dir, e))?;
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            return Err(DirRefused::OtherOwner {
                dir: dir.to_path_buf(),
                owner: meta.uid(),
                me,
            });
        }
        if meta.mode() & 0o002 != 0 {
            return Err(DirRefused::WritableByOthers {
                dir: dir.to_path_buf(),
            });
        }
    }
    let _ = dir;
    Ok(())
}

/// Creates `dir` (folders 0700), refuses it when it is shared
/// ([`refuse_shared_dir`]), and narrows an existing one to 0700: for the
/// program's own folders (the index cache).
pub fn make_private_dir(dir: &Path) -> Result<(), DirRefused> {
    create_private_dir_all(dir).map_err(|e| DirRefused::io(dir, e))?;
    refuse_shared_dir(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(dir)
            .map_err(|e| DirRefused::io(dir, e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| DirRefused::io(dir, e))?;
        }
    }
    Ok(())
}

/// Narrows an open file of the program's to 0600 (`fchmod`: the file
/// opened, not whatever its name points to now).
pub fn make_private_file(file: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if file.metadata()?.permissions().mode() & 0o077 != 0 {
            file.set_permissions(fs::Permissions::from_mode(0o600))?;
        }
    }
    let _ = file;
    Ok(())
}

/// Whether `meta` is of a file the current user owns (what the program
/// could have written).
pub fn owned_by_me(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.uid() == rustix::process::geteuid().as_raw()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        true
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn temporary_files_are_private_unguessable_and_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let a = private_temp_file(dir.path(), ".x-", ".tmp").unwrap();
        let b = private_temp_file(dir.path(), ".x-", ".tmp").unwrap();
        assert_ne!(a.path(), b.path());
        assert_eq!(mode(a.path()), 0o600);
        let name = a.path().file_name().unwrap().to_str().unwrap();
        assert!(is_temp_name(name, ".x-", ".tmp"), "{name}");
        for other in [
            ".x-.tmp",
            ".x-abc.tmp",
            ".tmp-my-notes",
            ".x-aaaaaaaaaaaa.json",
        ] {
            assert!(!is_temp_name(other, ".x-", ".tmp"), "{other}");
        }
    }

    #[test]
    fn shared_folders_are_refused_and_own_ones_narrowed() {
        let root = tempfile::tempdir().unwrap();
        let open = root.path().join("open");
        fs::create_dir(&open).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
        let why = refuse_shared_dir(&open).unwrap_err();
        assert!(
            why.to_string().ends_with("is writable by other users"),
            "{why}"
        );
        assert!(make_private_dir(&open).is_err());
        let wide = root.path().join("wide");
        fs::create_dir(&wide).unwrap();
        fs::set_permissions(&wide, fs::Permissions::from_mode(0o755)).unwrap();
        make_private_dir(&wide).unwrap();
        assert_eq!(mode(&wide), 0o700);
        make_private_dir(&root.path().join("new/sub")).unwrap();
        assert_eq!(mode(&root.path().join("new")), 0o700);
        assert_eq!(mode(&root.path().join("new/sub")), 0o700);
    }
}
