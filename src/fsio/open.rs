//! Opening without blocking, and knowing what was opened.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// Whether the last component of a path may be a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    Follow,
    /// `O_NOFOLLOW`: a link as the last component fails to open.
    NoFollow,
}

/// Opens `path` for reading with `O_NONBLOCK`: a FIFO opens at once
/// instead of waiting for a writer. Any kind of file; see
/// [`open_regular`] for logs and documents.
pub fn open_nonblocking(path: &Path, links: Links) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = OFlags::NONBLOCK;
        if links == Links::NoFollow {
            flags |= OFlags::NOFOLLOW;
        }
        // The flag values fit a C int by definition.
        #[allow(clippy::cast_possible_wrap)]
        options.custom_flags(flags.bits() as i32);
    }
    #[cfg(not(unix))]
    let _ = links;
    options.open(path)
}

/// Opens the regular file at `path` for reading without blocking: the type
/// is checked on the open file (`fstat`), so nothing swapped in between a
/// check and the open is ever read. (`O_NONBLOCK` does nothing to a
/// regular file's reads.)
pub fn open_regular(path: &Path, links: Links) -> io::Result<File> {
    let file = open_nonblocking(path, links)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// The real path of an open file, as the kernel knows it now: no link in
/// it, whatever path opened it. `None` where the system cannot tell.
pub fn opened_path(file: &File) -> Option<PathBuf> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::fd::AsRawFd;
        let link = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
        // A file removed since it was opened has no path any more.
        let text = link.as_os_str().as_encoded_bytes();
        (!text.ends_with(b" (deleted)")).then_some(link)
    }
    #[cfg(any(target_os = "macos", target_os = "ios"))]
    {
        use std::os::unix::ffi::OsStringExt;
        let path = rustix::fs::getpath(file).ok()?;
        Some(PathBuf::from(std::ffi::OsString::from_vec(
            path.into_bytes(),
        )))
    }
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios"
    )))]
    {
        let _ = file;
        None
    }
}

#[cfg(all(test, unix))]
pub(crate) mod tests {
    use super::*;

    /// Makes a named pipe at `path`: a file that an open without
    /// `O_NONBLOCK` waits on for a writer.
    pub(crate) fn make_fifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
    }

    #[test]
    fn a_fifo_opens_at_once_and_is_not_regular() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("log.jsonl");
        make_fifo(&fifo);
        // Without O_NONBLOCK this open waits for a writer, for ever.
        let err = open_regular(&fifo, Links::Follow).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file");
        assert!(open_nonblocking(&fifo, Links::Follow).is_ok());
    }

    #[test]
    fn no_follow_refuses_a_link_and_the_opened_path_is_real() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(open_regular(&link, Links::NoFollow).is_err());
        let through = open_regular(&link, Links::Follow).unwrap();
        #[cfg(target_os = "linux")]
        assert_eq!(
            opened_path(&through),
            Some(std::fs::canonicalize(&real).unwrap())
        );
        let _ = through;
    }
}
