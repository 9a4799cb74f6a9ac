//! What a log looked like when it was last scanned, and how to look again
//! cheaply.
//!
//! An unchanged store of 100,000 logs costs 100,000 `stat`s on every index
//! refresh, and most of a `stat` by full path is the kernel walking the
//! path's components again. [`DirStat`] keeps one directory open and asks
//! by name relative to it (`fstatat`), so each look walks one component.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;

use crate::model::Version;

/// How a file was when it was last scanned: any difference rescans it
/// (or, when only grown, reads what it gained).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub size: u64,
    /// Modification time: seconds and nanoseconds since the epoch.
    pub mtime: i64,
    pub mtime_nsec: u32,
    /// Status change time (Unix), which no tool sets back.
    pub ctime_nsec: u32,
    pub ctime: i64,
    /// The file's identity (Unix): a replaced file is another file.
    pub ino: u64,
    pub dev: u64,
    /// The stamps of the log's side files folded into one number (0 when
    /// its format names none): a side file that changes alone changes the
    /// log's stamp ([`Stamp::with_sides`]).
    pub side: u64,
}

impl Stamp {
    /// How long after a file's modification its stamp is not trusted to
    /// tell a later write: the coarsest timestamps in common use tick in
    /// 2 s (FAT), 1 s (ext3, HFS+, some network file systems), a jiffy
    /// (ext4 before multigrain timestamps), and a write in the same tick
    /// at the same size changes no field of the stamp.
    pub const RACY: std::time::Duration = std::time::Duration::from_secs(3);

    /// Whether the file was modified within [`Stamp::RACY`] of now (or in
    /// the future): a read now may miss a write that leaves this stamp.
    pub fn is_racy(&self) -> bool {
        self.modified_within(Stamp::RACY, std::time::SystemTime::now())
    }

    /// Whether the file was modified within `window` before `now`, or
    /// after it (a time the clock cannot hold counts as after).
    pub fn modified_within(&self, window: std::time::Duration, now: std::time::SystemTime) -> bool {
        let since =
            std::time::Duration::new(self.mtime.max(0) as u64, self.mtime_nsec.min(999_999_999));
        std::time::UNIX_EPOCH
            .checked_add(since)
            .and_then(|modified| modified.checked_add(window))
            .is_none_or(|until| until > now)
    }

    /// The log's stamp as [`crate::model::SessionReader::stamp`] gives it
    /// for a folder store: the store's place in the list, the `stat`
    /// fields, the side files' (when it has any: a log without keeps the
    /// key it always had) and the log's name. The catalog lists each
    /// session with the same ([`crate::model::Session::stamp`]).
    pub fn key(&self, store: usize, name: &[u8]) -> Version {
        let mut key = Vec::with_capacity(72 + name.len());
        for n in [
            store as u64,
            self.size,
            self.mtime as u64,
            u64::from(self.mtime_nsec),
            self.ctime as u64,
            u64::from(self.ctime_nsec),
            self.ino,
            self.dev,
        ] {
            key.extend_from_slice(&n.to_le_bytes());
        }
        if self.side != 0 {
            key.extend_from_slice(&self.side.to_le_bytes());
        }
        key.extend_from_slice(name);
        Version(key)
    }

    /// Whether the file is the same one, possibly grown.
    pub fn same_file(&self, other: &Stamp) -> bool {
        (self.ino, self.dev) == (other.ino, other.dev)
    }

    /// This stamp with the stamps of the side files `sides` in the log's
    /// folder `dir` folded in (a missing side file counts as one).
    pub fn with_sides<'a>(self, dir: &Path, sides: impl Iterator<Item = &'a str>) -> Stamp {
        use std::hash::{Hash, Hasher};
        let mut hasher = rustc_hash::FxHasher::default();
        let mut any = false;
        for name in sides {
            any = true;
            match Stamp::of_path(&dir.join(name)) {
                Some(s) => (
                    s.size,
                    s.mtime,
                    s.mtime_nsec,
                    s.ctime,
                    s.ctime_nsec,
                    s.ino,
                    s.dev,
                )
                    .hash(&mut hasher),
                None => name.hash(&mut hasher),
            }
        }
        Stamp {
            side: if any { hasher.finish() } else { 0 },
            ..self
        }
    }

    /// This stamp with a fingerprint of the log's side facts folded in
    /// (see [`crate::formats::LogFormat::side_facts`]).
    pub fn with_facts(self, facts: u64) -> Stamp {
        use std::hash::{Hash, Hasher};
        let mut hasher = rustc_hash::FxHasher::default();
        (self.side, facts).hash(&mut hasher);
        Stamp {
            side: hasher.finish() | 1,
            ..self
        }
    }

    /// The stamp of the regular file at `path`; `None` when it is gone or
    /// is not a regular file (a symbolic link is not followed).
    pub fn of_path(path: &Path) -> Option<Stamp> {
        #[cfg(unix)]
        {
            let stat =
                rustix::fs::statat(rustix::fs::CWD, path, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .ok()?;
            Stamp::of_stat(&stat)
        }
        #[cfg(not(unix))]
        {
            Stamp::of_metadata(&std::fs::symlink_metadata(path).ok()?)
        }
    }

    #[cfg(unix)]
    fn of_stat(stat: &rustix::fs::Stat) -> Option<Stamp> {
        use rustix::fs::FileType;
        if FileType::from_raw_mode(stat.st_mode as _) != FileType::RegularFile {
            return None;
        }
        // The kernel's field widths differ between targets: every value
        // fits the stamp's (sizes and times are never negative past i64).
        #[allow(clippy::unnecessary_cast)]
        Some(Stamp {
            size: stat.st_size as u64,
            mtime: stat.st_mtime as i64,
            mtime_nsec: stat.st_mtime_nsec as u32,
            ctime: stat.st_ctime as i64,
            ctime_nsec: stat.st_ctime_nsec as u32,
            ino: stat.st_ino as u64,
            dev: stat.st_dev as u64,
            side: 0,
        })
    }

    #[cfg(not(unix))]
    fn of_metadata(meta: &std::fs::Metadata) -> Option<Stamp> {
        if !meta.file_type().is_file() {
            return None;
        }
        let since = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .unwrap_or_default();
        Some(Stamp {
            size: meta.len(),
            mtime: since.as_secs() as i64,
            mtime_nsec: since.subsec_nanos(),
            ..Stamp::default()
        })
    }
}

/// Stamps of the files of one open directory, asked by name.
pub(crate) struct DirStat {
    dir: Arc<Path>,
    #[cfg(unix)]
    fd: rustix::fd::OwnedFd,
}

impl DirStat {
    /// Opens `dir`; fails as reading it would (missing, not a folder,
    /// no permission, no descriptor left).
    pub fn open(dir: Arc<Path>) -> std::io::Result<DirStat> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let fd = rustix::fs::open(&*dir, flags, Mode::empty())?;
            Ok(DirStat { dir, fd })
        }
        #[cfg(not(unix))]
        {
            if !std::fs::metadata(&dir)?.is_dir() {
                return Err(std::io::Error::other("not a folder"));
            }
            Ok(DirStat { dir })
        }
    }

    /// The directory this looks in.
    pub fn dir(&self) -> &Arc<Path> {
        &self.dir
    }

    #[cfg(unix)]
    pub fn fd(&self) -> rustix::fd::BorrowedFd<'_> {
        use rustix::fd::AsFd;
        self.fd.as_fd()
    }

    /// The stamp of the regular file `name` in this directory.
    pub fn stamp(&self, name: &OsStr) -> Option<Stamp> {
        #[cfg(unix)]
        {
            let stat =
                rustix::fs::statat(&self.fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
            Stamp::of_stat(&stat)
        }
        #[cfg(not(unix))]
        {
            Stamp::of_path(&self.dir.join(name))
        }
    }
}

impl std::fmt::Debug for DirStat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirStat").field("dir", &self.dir).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_and_its_full_path_give_the_same_stamp() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.jsonl"), "{}\n").unwrap();
        let by_dir = DirStat::open(Arc::from(dir.path())).unwrap();
        let by_name = by_dir.stamp(OsStr::new("a.jsonl")).unwrap();
        let by_path = Stamp::of_path(&dir.path().join("a.jsonl")).unwrap();
        assert_eq!(by_name, by_path);
        assert_eq!(by_name.size, 3);
        assert_ne!(by_name.ino, 0);
    }

    #[test]
    fn gone_files_folders_and_links_have_no_stamp() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let stat = DirStat::open(Arc::from(dir.path())).unwrap();
        assert_eq!(stat.stamp(OsStr::new("missing.jsonl")), None);
        assert_eq!(stat.stamp(OsStr::new("sub")), None);
        #[cfg(unix)]
        {
            std::fs::write(dir.path().join("real.jsonl"), "{}\n").unwrap();
            std::os::unix::fs::symlink("real.jsonl", dir.path().join("link.jsonl")).unwrap();
            assert_eq!(stat.stamp(OsStr::new("link.jsonl")), None);
        }
        let gone = DirStat::open(Arc::from(dir.path().join("nowhere").as_path()));
        assert_eq!(
            gone.map(|_| ()).unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
    }
}
