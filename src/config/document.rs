//! Reading a prompt document from a file or a pipe, bounded: one rule for
//! both faces.
//!
//! Both faces read documents the user names: the CLI's `parse`, `prepare`
//! and `check` inputs, and the server's `sessionReference/prepare` for a
//! document the client has not opened. Only regular files (and standard
//! input) are read, and never more than [`MAX_DOCUMENT_BYTES`]: a device
//! such as `/dev/zero` or a FIFO fails at once instead of growing memory.

use std::fmt;
use std::io::Read;
use std::path::Path;

use crate::fsio::{self, Links};

/// The largest document either face reads: 64 MiB.
pub const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// Why a document could not be read.
#[derive(Debug)]
pub enum DocumentError {
    /// Not a regular file (a directory, device, FIFO or socket).
    NotRegular,
    /// Larger than [`MAX_DOCUMENT_BYTES`] (the size seen, at least).
    TooLarge(u64),
    NotUtf8,
    Io(std::io::Error),
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocumentError::NotRegular => f.write_str("not a regular file"),
            DocumentError::TooLarge(size) => write!(
                f,
                "{size} bytes is over the {} MiB limit for a document",
                MAX_DOCUMENT_BYTES >> 20
            ),
            DocumentError::NotUtf8 => f.write_str("not UTF-8"),
            DocumentError::Io(e) => e.fmt(f),
        }
    }
}

/// Reads the regular file at `path` as UTF-8, up to the limit. The type is
/// checked before opening (opening a FIFO would block) and again on the
/// open file.
pub fn read_file(path: &Path) -> Result<String, DocumentError> {
    let before = std::fs::metadata(path).map_err(DocumentError::Io)?;
    if !before.is_file() {
        return Err(DocumentError::NotRegular);
    }
    // Without blocking: a FIFO swapped in since the check opens at once,
    // and the check on the open file refuses it.
    let file = fsio::open_nonblocking(path, Links::Follow).map_err(DocumentError::Io)?;
    let meta = file.metadata().map_err(DocumentError::Io)?;
    if !meta.is_file() {
        return Err(DocumentError::NotRegular);
    }
    if meta.len() > MAX_DOCUMENT_BYTES {
        return Err(DocumentError::TooLarge(meta.len()));
    }
    read_bounded(file, meta.len())
}

/// Reads `input` (standard input, a pipe) as UTF-8, up to the limit.
pub fn read_stream(input: impl Read) -> Result<String, DocumentError> {
    read_bounded(input, 0)
}

/// Reads at most one byte past the limit, so a file that grows while it is
/// read, or an endless pipe, stops there.
fn read_bounded(input: impl Read, size_hint: u64) -> Result<String, DocumentError> {
    let mut bytes = Vec::with_capacity(size_hint.min(MAX_DOCUMENT_BYTES) as usize);
    input
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(DocumentError::Io)?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(DocumentError::TooLarge(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| DocumentError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused_without_reading() {
        assert!(matches!(
            read_file(Path::new("/dev/zero")),
            Err(DocumentError::NotRegular)
        ));
        assert!(matches!(
            read_file(Path::new("/")),
            Err(DocumentError::NotRegular)
        ));
    }

    #[test]
    fn files_over_the_limit_are_refused_without_reading() {
        let file = tempfile::NamedTempFile::new().unwrap();
        file.as_file().set_len(MAX_DOCUMENT_BYTES + 1).unwrap();
        let error = read_file(file.path()).unwrap_err();
        assert!(matches!(error, DocumentError::TooLarge(_)));
        assert!(error.to_string().contains("64 MiB"), "{error}");
    }

    #[test]
    fn an_endless_stream_stops_at_the_limit() {
        let error = read_stream(std::io::repeat(b'a')).unwrap_err();
        assert!(matches!(error, DocumentError::TooLarge(n) if n == MAX_DOCUMENT_BYTES + 1));
        assert_eq!(read_stream(&b"hi"[..]).unwrap(), "hi");
        assert!(matches!(
            read_stream(&b"\xff"[..]),
            Err(DocumentError::NotUtf8)
        ));
    }
}
