//! One Aider history file as the index knows it, brought up to date by
//! reading only what was appended since (Aider never rewrites it): the
//! same file, grown, its first bytes unchanged, resumes; anything else
//! (shrunk, replaced, rewritten) is read from its first line again.

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use crate::formats::aider::HistoryScan;
use crate::formats::lines::{self, Flow, LongLines};
use crate::fsio::{self, Links};
use crate::store::stamp::Stamp;

/// Index scans skip lines over [`lines::MAX_SCAN_LINE`] (a blank line
/// stands in for one), as for every other log.
const SCAN_LINES: LongLines = LongLines::Skip(lines::MAX_SCAN_LINE);

/// How many of the file's first bytes are kept to tell an append from a
/// rewrite: the first run header is within them.
const HEAD: u64 = 256;

/// What is known of one history file.
#[derive(Debug, Clone)]
pub(super) struct History {
    /// The folder holding it (the runs' cwd).
    pub(super) dir: Arc<Path>,
    pub(super) stamp: Stamp,
    /// Bytes scanned: every complete line up to here.
    consumed: u64,
    /// The file's first bytes (at most [`HEAD`]) when scanned.
    head: Vec<u8>,
    pub(super) scan: HistoryScan,
    /// Why the file could not be read, when it could not.
    pub(super) error: Option<String>,
}

impl History {
    /// The file at `path` as it is at `stamp`, from `previous` when only
    /// appended to since.
    pub(super) fn refresh(
        path: &Path,
        dir: Arc<Path>,
        stamp: Stamp,
        previous: Option<History>,
    ) -> History {
        if let Some(prev) = previous.as_ref().filter(|p| p.stamp == stamp) {
            return History {
                dir,
                ..prev.clone()
            };
        }
        let fresh = || History {
            dir: dir.clone(),
            stamp,
            consumed: 0,
            head: Vec::new(),
            scan: HistoryScan::default(),
            error: None,
        };
        let mut file = match fsio::open_regular(path, Links::NoFollow) {
            Ok(file) => file,
            Err(e) => {
                return History {
                    error: Some(format!("cannot read: {e}")),
                    ..fresh()
                }
            }
        };
        let resumed = previous.filter(|p| {
            p.error.is_none()
                && p.stamp.same_file(&stamp)
                && stamp.size >= p.consumed
                && read_head(&mut file, p.head.len() as u64).is_ok_and(|h| h == p.head)
        });
        let mut state = match resumed {
            Some(prev) => History {
                dir: dir.clone(),
                stamp,
                ..prev
            },
            None => fresh(),
        };
        match state.scan_from(&mut file) {
            Ok(()) => state,
            Err(e) => History {
                error: Some(format!("cannot read: {e}")),
                ..fresh()
            },
        }
    }

    /// Feeds the lines after `consumed`, up to the stamp's size.
    fn scan_from(&mut self, file: &mut std::fs::File) -> io::Result<()> {
        let start = self.consumed;
        file.seek(SeekFrom::Start(start))?;
        let never = || false;
        let scan = &mut self.scan;
        let read = lines::for_each_line_bounded::<()>(
            file,
            self.stamp.size.saturating_sub(start),
            SCAN_LINES,
            &never,
            &mut |line| {
                scan.line(line);
                Ok(Flow::Continue)
            },
        );
        let read = match read {
            Ok(read) => read,
            Err(lines::LinesError::Io(e)) => return Err(e),
            Err(_) => return Err(io::Error::other("the scan stopped")),
        };
        self.consumed = start + read;
        self.scan.settle();
        if (self.head.len() as u64) < HEAD.min(self.consumed) {
            self.head = read_head(file, HEAD.min(self.consumed))?;
        }
        Ok(())
    }
}

/// The first `len` bytes of `file`.
fn read_head(file: &mut std::fs::File, len: u64) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(0))?;
    let mut head = Vec::with_capacity(len as usize);
    (&mut *file).take(len).read_to_end(&mut head)?;
    Ok(head)
}
