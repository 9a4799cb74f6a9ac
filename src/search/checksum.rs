//! Checking the index's files against their checksums with plain reads.
//!
//! tantivy's own check (`Index::validate_checksum`) reads each file
//! through its memory map, and every page it touches stays mapped into
//! the process for as long as the reader keeps the segment open: after a
//! build of 100,000 sessions the language server's resident memory stood
//! at 302 MiB, 200 of them the index's mapped pages (issue 29 item 6
//! counts them; docs/performance.md). Read here in blocks instead, the
//! bytes pass through the page cache, which the system shares and takes
//! back, and the process holds one block.
//!
//! The format checked is tantivy's footer (`tantivy::directory::footer`):
//! a file is its body, then the footer as JSON (the index format's
//! version and the CRC-32 of the body), then the JSON's length and a
//! magic number, each a little-endian `u32`.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use tantivy::directory::footer::Footer;
use tantivy::Index;

/// The footer's magic number and the longest JSON it may have, as
/// tantivy writes and checks them (`directory/footer.rs`, private there).
const FOOTER_MAGIC: u32 = 1337;
const FOOTER_MOST_BYTES: u32 = 50_000;

/// The two `u32`s that end every file.
const TAIL_BYTES: u64 = 8;

/// How much of a file is read at a time.
const BLOCK_BYTES: usize = 256 << 10;

/// The files of `index`'s searchable segments (in its folder `dir`) whose
/// bytes do not match their checksum, or that cannot be read: the same
/// files tantivy's own check names.
pub fn damaged(index: &Index, dir: &Path) -> tantivy::Result<Vec<PathBuf>> {
    damaged_of(index, dir, &|_| true)
}

/// The damaged files of the doc store alone: the one file of a segment
/// no search reads, since nothing is stored (`schema.rs`), so no failing
/// read ever finds it corrupt; it holds only where each document starts,
/// a few bytes per document, quick to check before an explicit search.
pub fn damaged_doc_store(index: &Index, dir: &Path) -> tantivy::Result<Vec<PathBuf>> {
    damaged_of(index, dir, &|path| {
        path.extension().is_some_and(|ext| ext == "store")
    })
}

fn damaged_of(
    index: &Index,
    dir: &Path,
    wanted: &dyn Fn(&Path) -> bool,
) -> tantivy::Result<Vec<PathBuf>> {
    let managed = index.directory().list_managed_files();
    let active: HashSet<PathBuf> = index
        .searchable_segment_metas()?
        .iter()
        .flat_map(|meta| meta.list_files())
        .filter(|path| managed.contains(path) && wanted(path))
        .collect();
    let mut bad: Vec<PathBuf> = active
        .into_iter()
        .filter(|path| !matches!(file_is_intact(&dir.join(path)), Ok(true)))
        .collect();
    bad.sort();
    Ok(bad)
}

/// Whether the body of the file at `path` has the CRC-32 its footer
/// records.
fn file_is_intact(path: &Path) -> io::Result<bool> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    if len < TAIL_BYTES {
        return Ok(false);
    }
    let mut tail = [0u8; TAIL_BYTES as usize];
    file.read_exact_at(&mut tail, len - TAIL_BYTES)?;
    let [j0, j1, j2, j3, m0, m1, m2, m3] = tail;
    let json_len = u32::from_le_bytes([j0, j1, j2, j3]);
    if u32::from_le_bytes([m0, m1, m2, m3]) != FOOTER_MAGIC || json_len > FOOTER_MOST_BYTES {
        return Ok(false);
    }
    let Some(body_len) = len.checked_sub(TAIL_BYTES + u64::from(json_len)) else {
        return Ok(false);
    };
    let mut json = vec![0u8; json_len as usize];
    file.read_exact_at(&mut json, body_len)?;
    let Ok(footer) = serde_json::from_slice::<Footer>(&json) else {
        return Ok(false);
    };
    Ok(crc_of_first(&file, body_len)? == footer.crc)
}

/// The CRC-32 of the first `len` bytes of `file`, read block by block.
fn crc_of_first(file: &File, len: u64) -> io::Result<u32> {
    let mut hasher = crc32fast::Hasher::new();
    let mut block = vec![0u8; BLOCK_BYTES];
    let mut body = file.take(len);
    loop {
        let read = body.read(&mut block)?;
        if read == 0 {
            break;
        }
        hasher.update(&block[..read]);
    }
    Ok(hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, IndexWriter};

    /// An index of a few documents in `dir`, committed.
    fn index_in(dir: &Path) -> Index {
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT | tantivy::schema::STORED);
        let index = Index::create_in_dir(dir, schema.build()).unwrap();
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for word in ["alpha", "bravo", "charlie"] {
            writer.add_document(doc!(text => word)).unwrap();
        }
        writer.commit().unwrap();
        index
    }

    /// An intact index has no damaged file; one byte changed in a body
    /// names that file, as tantivy's own check does; a file cut short is
    /// damaged too.
    #[test]
    fn names_the_files_tantivys_own_check_names() {
        let dir = tempfile::tempdir().unwrap();
        let index = index_in(dir.path());
        assert!(damaged(&index, dir.path()).unwrap().is_empty());
        assert!(index.validate_checksum().unwrap().is_empty());

        let store = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "store"))
            .unwrap();
        let mut bytes = std::fs::read(&store).unwrap();
        bytes[0] ^= 0x5a;
        std::fs::write(&store, &bytes).unwrap();
        let name = PathBuf::from(store.file_name().unwrap());
        let index = Index::open_in_dir(dir.path()).unwrap();
        assert_eq!(
            damaged(&index, dir.path()).unwrap(),
            std::slice::from_ref(&name)
        );
        let theirs: Vec<PathBuf> = index.validate_checksum().unwrap().into_iter().collect();
        assert_eq!(theirs, std::slice::from_ref(&name));

        std::fs::write(&store, &bytes[..3]).unwrap();
        assert_eq!(damaged(&index, dir.path()).unwrap(), [name]);
    }
}
