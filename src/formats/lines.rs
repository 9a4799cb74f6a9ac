//! Splitting a log into complete lines, in bounded memory.
//!
//! A log is read in chunks up to a byte limit (its size when a read began);
//! only lines ended by `\n` are handed on, so an append in progress is
//! ignored. Memory holds one chunk plus the longest line, never the file.

use std::io::{self, Read};

use crate::model::Cancelled;

const CHUNK: usize = 256 * 1024;

/// The longest line a full read (`prepare`, hover) accepts: 256 MiB.
pub const MAX_READ_LINE: usize = 256 << 20;
/// The longest line an index scan (headers, titles) looks at: 16 MiB.
pub const MAX_SCAN_LINE: usize = 16 << 20;

/// Why a line walk stopped early.
#[derive(Debug)]
pub enum LinesError<E> {
    Io(io::Error),
    Cancelled,
    /// The line handler failed.
    Line(E),
    /// A complete line was longer than the bound ([`LongLines::Fail`]).
    TooLong,
}

/// Whether to go on after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// What to do with a line longer than the bound. Either way its bytes are
/// skipped, never buffered; an unfinished last line is ignored as always.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongLines {
    /// Hand on an empty line in its place (line numbers stay right; an
    /// index scan is not worth failing for one line).
    Skip(usize),
    /// Fail with [`LinesError::TooLong`] once the line is complete.
    Fail(usize),
}

impl LongLines {
    fn max(self) -> usize {
        match self {
            LongLines::Skip(max) | LongLines::Fail(max) => max,
        }
    }
}

/// What a full read ([`LongLines::Fail`]) is handed for a line that holds
/// a NUL byte and did not fit in one chunk: no log of any format holds one
/// (JSON allows none, raw or in a string; text logs never do), so it is
/// read through, not buffered, and handed on as this malformed line (a
/// strict reader fails there, a lenient one skips it); an index scan
/// ([`LongLines::Skip`]) is handed an empty line, as for an over-long one.
/// A sparse region (a log grown by 100 GB with `truncate`) is such a line:
/// a full read buffered it up to [`MAX_READ_LINE`], 256 MiB, then failed
/// (issue 27 item 19).
pub const NUL_LINE: &[u8] = b"\0";

/// Hands each complete line of the first `limit` bytes of `reader` to
/// `on_line` (without its `\n`, and without one `\r` before it). Returns
/// the bytes consumed: up to and including the last `\n` handed on.
/// `cancelled` is polled between chunks. Lines over [`MAX_READ_LINE`]
/// fail the walk; a line with a NUL byte is [`NUL_LINE`].
pub fn for_each_line<E>(
    reader: &mut dyn Read,
    limit: u64,
    cancelled: Cancelled<'_>,
    on_line: &mut dyn FnMut(&[u8]) -> Result<Flow, E>,
) -> Result<u64, LinesError<E>> {
    for_each_line_bounded(
        reader,
        limit,
        LongLines::Fail(MAX_READ_LINE),
        cancelled,
        on_line,
    )
}

/// [`for_each_line`] with a chosen bound on lines. Memory holds at most one
/// chunk plus the bound, whatever the input: a region without a newline
/// (a sparse file, a huge growth) is read through, not into memory.
pub fn for_each_line_bounded<E>(
    reader: &mut dyn Read,
    limit: u64,
    long: LongLines,
    cancelled: Cancelled<'_>,
    on_line: &mut dyn FnMut(&[u8]) -> Result<Flow, E>,
) -> Result<u64, LinesError<E>> {
    let max_line = long.max();
    let mut reader = reader.take(limit);
    let first = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK.min(first));
    // Absolute offset of `buf[0]`, and just past the last line handed on.
    let mut base = 0u64;
    let mut consumed = 0u64;
    // Inside a line over the bound, or one with a NUL byte (then `nul`):
    // its bytes are dropped as they come.
    let mut skipping = false;
    let mut nul = false;
    let over_long = |on_line: &mut dyn FnMut(&[u8]) -> Result<Flow, E>| match long {
        LongLines::Skip(_) => on_line(b"").map_err(LinesError::Line),
        LongLines::Fail(_) => Err(LinesError::TooLong),
    };
    loop {
        if cancelled() {
            return Err(LinesError::Cancelled);
        }
        let start = buf.len();
        // Never more than what is left to read (plus one byte to see the
        // end): a small log costs a small buffer, not a zeroed chunk.
        let left = reader.limit().saturating_add(1);
        buf.resize(start + CHUNK.min(usize::try_from(left).unwrap_or(CHUNK)), 0);
        let n = read_some(&mut reader, &mut buf[start..]).map_err(LinesError::Io)?;
        buf.truncate(start + n);
        if n == 0 {
            // An unfinished last line (over the bound or not) is ignored.
            return Ok(consumed);
        }
        let mut line_start = 0usize;
        if skipping {
            let Some(nl) = memchr::memchr(b'\n', &buf[start..]).map(|i| start + i) else {
                base += buf.len() as u64;
                buf.clear();
                continue;
            };
            skipping = false;
            line_start = nl + 1;
            consumed = base + line_start as u64;
            // A full read hands on what it cannot read; an index scan
            // skips it as it skips an over-long line.
            let flow = match (std::mem::take(&mut nul), long) {
                (true, LongLines::Fail(_)) => on_line(NUL_LINE).map_err(LinesError::Line)?,
                _ => over_long(on_line)?,
            };
            if flow == Flow::Stop {
                return Ok(consumed);
            }
        }
        // Search for line ends only in the new bytes.
        let from = start.max(line_start);
        if let Some(last_nl) = memchr::memrchr(b'\n', &buf[from..]).map(|i| from + i) {
            let ends: Vec<usize> = memchr::memchr_iter(b'\n', &buf[line_start..=last_nl])
                .map(|i| line_start + i)
                .collect();
            for nl in ends {
                let flow = if nl - line_start > max_line {
                    over_long(on_line)?
                } else {
                    on_line(strip_cr(&buf[line_start..nl])).map_err(LinesError::Line)?
                };
                line_start = nl + 1;
                consumed = base + line_start as u64;
                if flow == Flow::Stop {
                    return Ok(consumed);
                }
            }
        }
        // The pending line's bytes this chunk brought (earlier ones were
        // looked at before).
        let new_from = start.max(line_start) - line_start;
        buf.drain(..line_start);
        base += line_start as u64;
        nul = memchr::memchr(0, &buf[new_from.min(buf.len())..]).is_some();
        if nul || buf.len() > max_line {
            // The pending line is over the bound, or no line of any log:
            // skip the rest of it.
            skipping = true;
            base += buf.len() as u64;
            buf.clear();
        }
    }
}

/// Reads the first line of `reader` if it is complete within `max` bytes.
pub fn first_line(reader: &mut dyn Read, max: u64) -> io::Result<Option<Vec<u8>>> {
    let mut line = None;
    let never = || false;
    match for_each_line::<()>(reader, max, &never, &mut |l| {
        line = Some(l.to_vec());
        Ok(Flow::Stop)
    }) {
        Ok(_) => Ok(line),
        Err(LinesError::Io(e)) => Err(e),
        Err(_) => Ok(None),
    }
}

/// `line` without one trailing `\r`.
pub fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn read_some(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> (Vec<Vec<u8>>, u64) {
        let mut out = Vec::new();
        let consumed =
            for_each_line::<()>(&mut &bytes[..], bytes.len() as u64, &|| false, &mut |l| {
                out.push(l.to_vec());
                Ok(Flow::Continue)
            })
            .unwrap();
        (out, consumed)
    }

    #[test]
    fn only_complete_lines_count() {
        let (out, consumed) = lines(b"a\r\n\nb\nunfinished");
        assert_eq!(out, vec![b"a".to_vec(), b"".to_vec(), b"b".to_vec()]);
        assert_eq!(consumed, 6);
    }

    #[test]
    fn the_limit_is_respected() {
        let bytes = b"one\ntwo\n";
        let mut out = Vec::new();
        let consumed = for_each_line::<()>(&mut &bytes[..], 5, &|| false, &mut |l| {
            out.push(l.to_vec());
            Ok(Flow::Continue)
        })
        .unwrap();
        assert_eq!(out, vec![b"one".to_vec()]);
        assert_eq!(consumed, 4);
    }

    fn bounded(bytes: &[u8], long: LongLines) -> (Vec<Vec<u8>>, Result<u64, LinesError<()>>) {
        let mut out = Vec::new();
        let result = for_each_line_bounded::<()>(
            &mut &bytes[..],
            bytes.len() as u64,
            long,
            &|| false,
            &mut |l| {
                out.push(l.to_vec());
                Ok(Flow::Continue)
            },
        );
        (out, result)
    }

    #[test]
    fn over_long_lines_are_skipped_or_fail_without_being_buffered() {
        let mut bytes = b"a\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', 3 * CHUNK));
        bytes.extend_from_slice(b"\nb\n");
        let (out, consumed) = bounded(&bytes, LongLines::Skip(1000));
        assert_eq!(out, vec![b"a".to_vec(), b"".to_vec(), b"b".to_vec()]);
        assert_eq!(consumed.unwrap(), bytes.len() as u64);
        let (out, result) = bounded(&bytes, LongLines::Fail(1000));
        assert_eq!(out, vec![b"a".to_vec()]);
        assert!(matches!(result, Err(LinesError::TooLong)));
        // A short over-long line inside one chunk is caught too.
        let (out, _) = bounded(b"0123456789\nok\n", LongLines::Skip(5));
        assert_eq!(out, vec![b"".to_vec(), b"ok".to_vec()]);
        // An unfinished over-long last line is ignored, even in Fail mode.
        let mut bytes = b"a\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', 3 * CHUNK));
        let (out, consumed) = bounded(&bytes, LongLines::Fail(1000));
        assert_eq!(out, vec![b"a".to_vec()]);
        assert_eq!(consumed.unwrap(), 2);
    }

    /// Issue 10 items 1 and 6: a region without a newline was read into
    /// memory whole (a 100 GB growth aborted the server). A reader that
    /// counts what it gives shows the walk reads through it.
    #[test]
    fn a_huge_region_without_newline_is_read_through() {
        struct Zeros(u64);
        impl Read for Zeros {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = (buf.len() as u64).min(self.0) as usize;
                buf[..n].fill(0);
                self.0 -= n as u64;
                Ok(n)
            }
        }
        let size = 256u64 << 20;
        let mut lines = 0;
        let consumed = for_each_line_bounded::<()>(
            &mut Zeros(size),
            size,
            LongLines::Skip(MAX_SCAN_LINE),
            &|| false,
            &mut |_| {
                lines += 1;
                Ok(Flow::Continue)
            },
        )
        .unwrap();
        assert_eq!((lines, consumed), (0, 0));
    }

    /// Issue 27 item 19: a sparse region longer than [`MAX_READ_LINE`]
    /// (a watched log grown with `truncate`) failed a full read after
    /// buffering 256 MiB of zeros; it is now one [`NUL_LINE`], read
    /// through chunk by chunk, and the lines after it are read.
    #[test]
    fn a_sparse_region_is_one_nul_line_never_buffered() {
        let hole = (MAX_READ_LINE + (4 << 20)) as u64;
        let mut log = io::repeat(0)
            .take(hole)
            .chain(&b"{\"late\":1}\n{\"last\":2}\n"[..]);
        let limit = hole + 22;
        let mut out = Vec::new();
        let mut widest = 0;
        let consumed = for_each_line::<()>(&mut log, limit, &|| false, &mut |l| {
            out.push(l.to_vec());
            widest = widest.max(l.len());
            Ok(Flow::Continue)
        })
        .unwrap();
        assert_eq!(consumed, limit);
        assert_eq!(out, [b"\0".to_vec(), b"{\"last\":2}".to_vec()]);
        // An index scan skips it, as an over-long line.
        let mut log = io::repeat(0).take(1 << 20).chain(&b"x\n{}\n"[..]);
        let mut scanned = Vec::new();
        for_each_line_bounded::<()>(
            &mut log,
            (1 << 20) + 5,
            LongLines::Skip(MAX_SCAN_LINE),
            &|| false,
            &mut |l| {
                scanned.push(l.to_vec());
                Ok(Flow::Continue)
            },
        )
        .unwrap();
        assert_eq!(scanned, [b"".to_vec(), b"{}".to_vec()]);
        // A short one inside a chunk is handed on as it is.
        let (lines, _) = lines(b"a\0b\n{}\n");
        assert_eq!(lines, [b"a\0b".to_vec(), b"{}".to_vec()]);
        assert!(widest < CHUNK);
    }
}
