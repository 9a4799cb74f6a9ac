//! Splitting a log into complete lines, in bounded memory.
//!
//! A log is read in chunks up to a byte limit (its size when a read began);
//! only lines ended by `\n` are handed on, so an append in progress is
//! ignored. Memory holds one chunk plus the longest line, never the file.

use std::io::{self, Read};

use crate::model::Cancelled;

const CHUNK: usize = 256 * 1024;

/// Why a line walk stopped early.
#[derive(Debug)]
pub enum LinesError<E> {
    Io(io::Error),
    Cancelled,
    /// The line handler failed.
    Line(E),
}

/// Whether to go on after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Hands each complete line of the first `limit` bytes of `reader` to
/// `on_line` (without its `\n`, and without one `\r` before it). Returns
/// the bytes consumed: up to and including the last `\n` handed on.
/// `cancelled` is polled between chunks.
pub fn for_each_line<E>(
    reader: &mut dyn Read,
    limit: u64,
    cancelled: Cancelled<'_>,
    on_line: &mut dyn FnMut(&[u8]) -> Result<Flow, E>,
) -> Result<u64, LinesError<E>> {
    let mut reader = reader.take(limit);
    let first = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK.min(first));
    let mut consumed = 0u64;
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
            return Ok(consumed);
        }
        // Search for line ends only in the new bytes.
        let Some(last_nl) = memchr::memrchr(b'\n', &buf[start..]).map(|i| start + i) else {
            continue;
        };
        let mut line_start = 0;
        for nl in memchr::memchr_iter(b'\n', &buf[..=last_nl]) {
            let line = strip_cr(&buf[line_start..nl]);
            line_start = nl + 1;
            if on_line(line).map_err(LinesError::Line)? == Flow::Stop {
                return Ok(consumed + line_start as u64);
            }
        }
        consumed += line_start as u64;
        buf.drain(..line_start);
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
}
