//! Reading a small side file (a Gemini project's `.project_root`, a Copilot
//! CLI session's `workspace.yaml`, a Copilot Chat workspace's
//! `workspace.json`): through [`open_regular`] without following a link,
//! so a FIFO there answers at once and a link to a file outside the store
//! is never read (issue 27, items 16 and 17).

use std::io::{self, Read};
use std::path::Path;

use super::open::{open_regular, Links};

/// At most `max` bytes of the regular file at `path`; an error when it is
/// a link, a FIFO, a device, a folder or absent.
pub fn read_side_file(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path, Links::NoFollow)?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::fsio::open::tests::make_fifo;

    #[test]
    fn a_side_file_is_read_bounded_and_never_through_a_link_or_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::write(&real, "0123456789").unwrap();
        assert_eq!(read_side_file(&real, 4).unwrap(), b"0123");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(read_side_file(&link, 4).is_err());
        let fifo = dir.path().join("fifo");
        make_fifo(&fifo);
        assert!(read_side_file(&fifo, 4).is_err());
    }
}
