//! An on-disk cache of a catalog, so the command line does not read every
//! log of a large store on every call.
//!
//! One file per store root (and format, and scan depth) in the user's cache
//! directory: per log its name, its stamp (size, times, inode), its format
//! and what its scan found. A log whose stamp differs is scanned again; a
//! cache that is corrupt, of another layout, of another build (version and
//! format readers) or of another store is ignored and rewritten. Nothing is
//! trusted without the stamp matching. The cache holds titles, ids and
//! cwds: its folder is 0700 and its files 0600, and it is never kept inside
//! any store of the list, however the paths are written. Writes are atomic
//! (a private temporary file of random name renamed over the old one).

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::catalog::Catalog;
use super::record::{self, In, Out, Record};
use crate::fsio::{self, Links};

/// The first bytes of a cache file; the digit changes with the layout,
/// and with what a format makes of a log (5: agents' prompt titles read
/// mentions and drop a rendered context; a transcript without a message is
/// no session; 6: Gemini CLI logs, once read as Claude Code's, are a
/// format of their own; 7: Copilot CLI logs, once no sessions, are; 8:
/// VS Code's Copilot Chat logs, once no sessions, are; 9: so are Cursor
/// transcripts, and a side file's stamp is part of a log's), so an old
/// cache never serves old titles.
const MAGIC: &[u8; 8] = b"HSLIDX\x00\x0a";

/// The build whose readers made a cache: the version and a hash of the
/// format readers' sources (`build.rs`). A cache of any other build is
/// dropped: an upgrade that reads a format differently never serves what
/// the old reader made of a log.
const BUILD: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+formats.",
    env!("HYDRA_FORMATS_HASH")
);

/// Temporary files of the cache: `.index-<random>.tmp`.
const TEMP_PREFIX: &str = ".index-";
const TEMP_SUFFIX: &str = ".tmp";

/// The folder to keep the caches of `roots` in: `dir`, made owner-only
/// (0700, and its cache files 0600, whatever an older build left), or
/// `None` when it is inside one of the stores (a cache is never written
/// into a store) or is not the current user's alone.
pub fn usable_dir(dir: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    if roots.iter().any(|root| fsio::is_inside(dir, root)) {
        tracing::debug!(
            "not keeping an index cache inside a store: {}",
            dir.display()
        );
        return None;
    }
    if let Err(why) = fsio::make_private_dir(dir) {
        tracing::debug!("not keeping an index cache in {}: {why}", dir.display());
        return None;
    }
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("index-") && name.ends_with(".bin") {
            if let Ok(file) = fsio::open_regular(&entry.path(), Links::NoFollow) {
                let _ = fsio::make_private_file(&file);
            }
        }
    }
    Some(dir.to_path_buf())
}

/// The cache file of `catalog` in `dir` (a folder [`usable_dir`] gave).
fn file_of(catalog: &Catalog, dir: &Path) -> PathBuf {
    let key = identity(catalog);
    dir.join(format!("index-{:016x}.bin", hash(&key)))
}

/// What a cache file must be about: the root, the format, the scan depth,
/// and the build that read the logs.
fn identity(catalog: &Catalog) -> Vec<u8> {
    identity_of(catalog, BUILD)
}

fn identity_of(catalog: &Catalog, build: &str) -> Vec<u8> {
    let mut key = Vec::new();
    key.extend_from_slice(path_bytes(catalog.root()).as_ref());
    key.push(0);
    key.extend_from_slice(catalog.format().name().as_bytes());
    key.push(0);
    key.push(u8::from(catalog.titles()));
    key.push(0);
    key.extend_from_slice(build.as_bytes());
    key
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().into()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    path.to_string_lossy().into_owned().into_bytes().into()
}

/// Seeds `catalog` from its cache in `dir`, if there is a sound one.
/// Returns how many files it recorded (for [`save_if_changed`]).
pub fn load(catalog: &mut Catalog, dir: &Path) -> usize {
    let path = file_of(catalog, dir);
    let mut bytes = Vec::new();
    // Never through a link, never blocking on what is not a file.
    let read = fsio::open_regular(&path, Links::NoFollow)
        .and_then(|mut file| file.read_to_end(&mut bytes));
    if read.is_err() {
        return 0;
    }
    let seeded = decode(bytes, &identity(catalog)).and_then(|records| catalog.seed(records));
    seeded.unwrap_or_else(|| {
        tracing::debug!("ignoring the index cache {}", path.display());
        0
    })
}

/// Writes `catalog` to its cache in `dir`, unless it is exactly what
/// [`load`] seeded (`loaded` files, none scanned again). Failures are
/// not errors: the next call scans again.
pub fn save_if_changed(catalog: &Catalog, dir: &Path, loaded: usize) {
    save(catalog, dir, loaded);
}

/// As [`save_if_changed`], and then the scanners of the logs not written
/// to lately are let go, the catalog keeping what the cache records of
/// them instead, compactly ([`Catalog::release_scanners`]; also when the
/// cache was unchanged, to free the file read at start): what a
/// long-lived face calls after its first index.
pub fn save_and_release(catalog: &mut Catalog, dir: &Path, loaded: usize) {
    save(catalog, dir, loaded);
    catalog.release_scanners(std::time::SystemTime::now());
}

/// Writes the cache, unless unchanged or nothing is worth keeping (an
/// empty or missing store).
fn save(catalog: &Catalog, dir: &Path, loaded: usize) {
    let (files, recorded) = catalog.recorded();
    if files == recorded && files == loaded {
        return;
    }
    let path = file_of(catalog, dir);
    let bytes = encode(catalog);
    if let Err(e) = write_atomically(dir, &path, &bytes) {
        tracing::debug!("cannot write the index cache {}: {e}", path.display());
    }
}

/// A private temporary file of random name (never through a link), then
/// renamed over `path`; removed when anything fails.
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temp = fsio::private_temp_file(dir, TEMP_PREFIX, TEMP_SUFFIX)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn encode(catalog: &Catalog) -> Vec<u8> {
    let mut out = Out(Vec::with_capacity(1 << 20));
    out.0.extend_from_slice(MAGIC);
    out.bytes(&identity(catalog));
    catalog.for_each_record(&mut |r| record::encode(&mut out, &r));
    let sum = hash(&out.0);
    out.0.extend_from_slice(&sum.to_le_bytes());
    out.0
}

/// The records of a sound cache file, decoded as they are asked for: `None`
/// when the file is not a cache of this store in this layout; an item is
/// `None` where a record does not decode.
fn decode(bytes: Vec<u8>, identity: &[u8]) -> Option<impl Iterator<Item = Option<Record>>> {
    let body_len = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at(body_len);
    if u64::from_le_bytes(sum.try_into().ok()?) != hash(body) {
        return None;
    }
    let mut input = In { bytes: body, at: 0 };
    if input.take(MAGIC.len())? != MAGIC || input.bytes()? != identity {
        return None;
    }
    let at = input.at;
    let mut bytes = bytes;
    bytes.truncate(body_len);
    // The catalog's cached payloads point into this buffer.
    Some(record::decode(Arc::new(bytes), at))
}

/// A 64-bit hash, stable across builds (file names, corruption checks):
/// the first eight bytes of the SHA-256 digest. Cache files outlive the
/// build that wrote them, so the hash must never change with a crate's
/// version (an in-memory hasher such as FxHash promises no such thing);
/// SHA-256 is fixed by its standard and already hashes spilled snapshots.
fn hash(bytes: &[u8]) -> u64 {
    let digest = Sha256::digest(bytes);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::FormatChoice;
    use crate::store::file_state::Found;
    use crate::store::release::KEEP_SCANNER_FOR;

    fn header(id: &str, created_at: u64) -> String {
        format!(
            "{{\"type\":\"session\",\"id\":\"{id}\",\"createdAt\":{created_at},\"cwd\":\"/w\"}}\n"
        )
    }

    fn title(seq: u64, t: &str) -> String {
        format!("{{\"seq\":{seq},\"type\":\"session/title\",\"data\":{{\"title\":\"{t}\"}}}}\n")
    }

    fn cached(root: &Path, dir: &Path) -> (Catalog, usize) {
        let mut catalog = Catalog::empty(root, 0, FormatChoice::Auto, true);
        let Some(dir) = usable_dir(dir, &[root.to_path_buf()]) else {
            catalog.rescan();
            return (catalog, 0);
        };
        let dir = dir.as_path();
        let loaded = load(&mut catalog, dir);
        catalog.rescan();
        save_if_changed(&catalog, dir, loaded);
        (catalog, loaded)
    }

    fn store() -> tempfile::TempDir {
        let store = tempfile::tempdir().unwrap();
        let root = store.path();
        fs::create_dir(root.join("d")).unwrap();
        fs::write(root.join("a.jsonl"), header("a", 1) + &title(1, "Alpha")).unwrap();
        fs::write(root.join("d/b.jsonl"), header("b", 2)).unwrap();
        fs::write(root.join("d/dup.jsonl"), header("a", 3)).unwrap();
        fs::write(root.join("bad.jsonl"), "not json\n").unwrap();
        fs::write(root.join("empty.jsonl"), "").unwrap();
        fs::write(
            root.join("broken.jsonl"),
            header("c", 4) + "{\"seq\":1,\"type\":\"x\"}\n",
        )
        .unwrap();
        store
    }

    #[test]
    fn a_cache_hit_gives_what_a_scan_gives() {
        let (store, cache) = (store(), tempfile::tempdir().unwrap());
        let fresh = Catalog::scan(store.path());
        let (first, loaded) = cached(store.path(), cache.path());
        assert_eq!(loaded, 0);
        let (second, loaded) = cached(store.path(), cache.path());
        assert_eq!(loaded, 6);
        assert_eq!(second.recorded(), (6, 6), "nothing scanned again");
        for catalog in [&first, &second] {
            assert_eq!(catalog.sessions(), fresh.sessions());
            assert_eq!(catalog.notes(), fresh.notes());
            assert_eq!(catalog.len(), fresh.len());
            assert_eq!(catalog.get("a"), fresh.get("a"));
        }
    }

    /// Takes every session, noting the key it was asked with.
    #[derive(Default)]
    struct Everything {
        keys: std::cell::RefCell<Vec<String>>,
        taken: Vec<crate::model::Session>,
    }

    impl crate::model::SessionSink for Everything {
        fn wants(&self, key: crate::model::SessionKey<'_>) -> bool {
            self.keys.borrow_mut().push(format!("{key:?}"));
            true
        }

        fn take(&mut self, session: crate::model::Session) {
            self.taken.push(session);
        }
    }

    #[test]
    fn a_cached_catalog_offers_each_session_by_its_key() {
        let (store, cache) = (store(), tempfile::tempdir().unwrap());
        let fresh = Catalog::scan(store.path());
        cached(store.path(), cache.path());
        let (warm, _) = cached(store.path(), cache.path());
        assert_eq!(warm.recorded(), (6, 6));
        let mut sink = Everything::default();
        warm.offer_sessions(&mut sink);
        assert_eq!(sink.taken, fresh.sessions());
        let keys: Vec<String> = fresh
            .sessions()
            .iter()
            .map(|s| format!("{:?}", s.key()))
            .collect();
        assert_eq!(sink.keys.into_inner(), keys);
    }

    /// A long-lived face's first index keeps a scanner only for the logs
    /// written to within the hour; the others are held as their records,
    /// list as a scan does, and one of them that grows is read again.
    #[test]
    fn old_logs_are_held_as_records_and_read_again_when_they_grow() {
        let (store, cache) = (store(), tempfile::tempdir().unwrap());
        let old = std::time::SystemTime::now() - 2 * KEEP_SCANNER_FOR;
        for name in ["d/b.jsonl", "d/dup.jsonl", "broken.jsonl"] {
            let file = fs::File::options()
                .write(true)
                .open(store.path().join(name))
                .unwrap();
            file.set_modified(old).unwrap();
        }
        let fresh = Catalog::scan(store.path());
        let dir = usable_dir(cache.path(), &[store.path().to_path_buf()]).unwrap();
        let mut catalog = Catalog::empty(store.path(), 0, FormatChoice::Auto, true);
        catalog.rescan();
        assert_eq!(catalog.recorded(), (6, 0));
        save_and_release(&mut catalog, &dir, 0);
        assert_eq!(catalog.recorded(), (6, 3), "the three old sessions");
        assert_eq!(catalog.sessions(), fresh.sessions());
        assert_eq!(catalog.get("a"), fresh.get("a"));
        let path = store.path().join("d/b.jsonl");
        let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(title(1, "Grown").as_bytes()).unwrap();
        catalog.rescan();
        assert_eq!(catalog.get("b").and_then(|s| s.title), Some("Grown".into()));
        assert_eq!(catalog.sessions(), Catalog::scan(store.path()).sessions());
    }

    /// A warm start's records are moved, after the first index, into one
    /// buffer of their payloads alone: the cache file read at start (its
    /// names and stamps too) is not kept.
    #[test]
    fn the_records_kept_after_a_warm_start_hold_only_their_payloads() {
        let (store, cache) = (store(), tempfile::tempdir().unwrap());
        cached(store.path(), cache.path());
        let dir = usable_dir(cache.path(), &[store.path().to_path_buf()]).unwrap();
        let file_len = fs::metadata(file_of(&Catalog::scan(store.path()), &dir))
            .unwrap()
            .len();
        let mut catalog = Catalog::empty(store.path(), 0, FormatChoice::Auto, true);
        let loaded = load(&mut catalog, &dir);
        catalog.rescan();
        assert_eq!(catalog.recorded(), (6, 6));
        save_and_release(&mut catalog, &dir, loaded);
        let buffers: std::collections::HashSet<_> = catalog
            .files
            .values()
            .filter_map(|s| match &s.found {
                Found::Cached(c) => Some(c.buffer()),
                _ => None,
            })
            .collect();
        assert_eq!(buffers.len(), 1, "one buffer");
        let (_, kept) = buffers.into_iter().next().unwrap();
        assert!((kept as u64) < file_len / 2, "{kept} of {file_len} bytes");
        assert_eq!(catalog.sessions(), Catalog::scan(store.path()).sessions());
        assert_eq!(catalog.notes(), Catalog::scan(store.path()).notes());
    }

    #[test]
    fn a_changed_log_is_read_again() {
        let (store, cache) = (store(), tempfile::tempdir().unwrap());
        cached(store.path(), cache.path());
        let path = store.path().join("a.jsonl");
        let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(title(2, "Beta").as_bytes()).unwrap();
        fs::remove_file(store.path().join("d/b.jsonl")).unwrap();
        fs::write(store.path().join("new.jsonl"), header("n", 9)).unwrap();
        let (catalog, _) = cached(store.path(), cache.path());
        assert_eq!(catalog.sessions(), Catalog::scan(store.path()).sessions());
        assert_eq!(catalog.get("a").and_then(|s| s.title), Some("Beta".into()));
        assert_eq!(catalog.get("b"), None);
        assert!(catalog.get("n").is_some());
        // Written back: the next call reads nothing again.
        let (again, _) = cached(store.path(), cache.path());
        assert_eq!(again.recorded(), (6, 6));
    }

    #[test]
    fn winners_come_from_the_cache_only_while_nothing_changed() {
        let (store, cache) = (store(), tempfile::tempdir().unwrap());
        cached(store.path(), cache.path());
        let (same, _) = cached(store.path(), cache.path());
        assert_eq!(same.get("a").map(|s| s.header.created_at), Some(1));
        // The winner of id `a` goes: its duplicate wins now.
        fs::remove_file(store.path().join("a.jsonl")).unwrap();
        let (catalog, _) = cached(store.path(), cache.path());
        assert_eq!(catalog.get("a").map(|s| s.header.created_at), Some(3));
        assert_eq!(catalog.sessions(), Catalog::scan(store.path()).sessions());
        assert_eq!(catalog.notes(), Catalog::scan(store.path()).notes());
        let (again, _) = cached(store.path(), cache.path());
        assert_eq!(again.sessions(), catalog.sessions());
        assert_eq!(again.len(), catalog.len());
    }

    #[test]
    fn a_corrupt_cache_is_ignored_and_rewritten() {
        let (store, cache) = (store(), tempfile::tempdir().unwrap());
        let (good, _) = cached(store.path(), cache.path());
        let entries: Vec<_> = fs::read_dir(cache.path()).unwrap().flatten().collect();
        assert_eq!(entries.len(), 1, "one file, no temporary left");
        let file = entries[0].path();
        let bytes = fs::read(&file).unwrap();
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0x40;
        let truncated = bytes[..bytes.len() / 2].to_vec();
        for bad in [flipped, truncated, b"garbage".to_vec(), Vec::new()] {
            fs::write(&file, &bad).unwrap();
            let (catalog, loaded) = cached(store.path(), cache.path());
            assert_eq!(loaded, 0);
            assert_eq!(catalog.sessions(), good.sessions());
            assert_eq!(fs::read(&file).unwrap(), bytes, "rewritten");
        }
    }

    #[test]
    fn a_cache_belongs_to_one_store() {
        let (one, two, cache) = (store(), store(), tempfile::tempdir().unwrap());
        fs::write(two.path().join("a.jsonl"), header("z", 1)).unwrap();
        let name = |root: &Path| {
            file_of(
                &Catalog::empty(root, 0, FormatChoice::Auto, true),
                cache.path(),
            )
        };
        cached(one.path(), cache.path());
        cached(two.path(), cache.path());
        // One store's cache under the other's name is refused.
        fs::copy(name(one.path()), name(two.path())).unwrap();
        let (catalog, loaded) = cached(two.path(), cache.path());
        assert_eq!(loaded, 0);
        assert!(catalog.get("z").is_some());
        assert_eq!(catalog.sessions(), Catalog::scan(two.path()).sessions());
    }

    #[test]
    fn never_inside_a_store() {
        let store = store();
        let inside = store.path().join("cache");
        cached(store.path(), &inside);
        assert!(!inside.exists());
    }

    /// Issue 18, item 16: the store written another way (`..`, a link to
    /// it) still holds the cache folder.
    #[cfg(unix)]
    #[test]
    fn never_inside_a_store_however_it_is_written() {
        let store = store();
        let name = store.path().file_name().unwrap().to_str().unwrap();
        let dotted = store.path().join("..").join(name);
        let links = tempfile::tempdir().unwrap();
        let link = links.path().join("to-store");
        std::os::unix::fs::symlink(store.path(), &link).unwrap();
        for root in [dotted, link] {
            let inside = store.path().join(".cache/hydra-session");
            assert_eq!(usable_dir(&inside, std::slice::from_ref(&root)), None);
            // And the cache written through the link is refused too.
            assert_eq!(usable_dir(&root.join("c"), &[store.path().into()]), None);
            assert!(!store.path().join(".cache").exists());
        }
        // Any store of the list, not only the one being cached.
        let other = tempfile::tempdir().unwrap();
        let dir = store.path().join("c");
        assert_eq!(
            usable_dir(&dir, &[other.path().into(), store.path().into()]),
            None
        );
        assert!(usable_dir(&other.path().join("c"), &[store.path().into()]).is_some());
    }

    /// Issue 18, item 20: a cache written by another build (another
    /// version, or other format readers) is dropped and rewritten. Issue
    /// 27: the case that matters most, the same version with changed
    /// readers (a patched reader, no version bump), is one of them.
    #[test]
    fn a_cache_of_another_build_is_dropped() {
        let same_version_other_readers =
            format!("{}+formats.0000000000000000", env!("CARGO_PKG_VERSION"));
        assert_ne!(same_version_other_readers, BUILD);
        for build in [
            "0.0.1+formats.0000000000000000",
            &same_version_other_readers,
        ] {
            let (store, cache) = (store(), tempfile::tempdir().unwrap());
            let catalog = Catalog::scan(store.path());
            let mut out = Out(Vec::new());
            out.0.extend_from_slice(MAGIC);
            out.bytes(&identity_of(&catalog, build));
            catalog.for_each_record(&mut |r| record::encode(&mut out, &r));
            let sum = hash(&out.0);
            out.0.extend_from_slice(&sum.to_le_bytes());
            let path = file_of(&catalog, cache.path());
            fs::write(&path, &out.0).unwrap();
            let (_, loaded) = cached(store.path(), cache.path());
            assert_eq!(loaded, 0, "the cache of build {build} was used");
            assert_ne!(fs::read(&path).unwrap(), out.0, "rewritten by this build");
            let (_, loaded) = cached(store.path(), cache.path());
            assert_eq!(loaded, 6);
        }
        assert!(BUILD.starts_with(env!("CARGO_PKG_VERSION")));
    }

    /// Issue 18, items 14 and 15: folders 0700 and files 0600, an older
    /// cache's modes narrowed; the temporary file is never a name planted
    /// ahead (the old `index-….tmp-<pid>` link is left alone).
    #[cfg(unix)]
    #[test]
    fn the_cache_is_private_and_never_written_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let (store, root) = (store(), tempfile::tempdir().unwrap());
        let dir = root.path().join("hydra-session");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let catalog = Catalog::empty(store.path(), 0, FormatChoice::Auto, true);
        let path = file_of(&catalog, &dir);
        let victim = root.path().join("victim");
        fs::write(&victim, b"mine").unwrap();
        let planted = path.with_extension(format!("tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        cached(store.path(), &dir);
        assert_eq!(fs::read(&victim).unwrap(), b"mine");
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&path), 0o600);
        // An older build's world-readable cache is narrowed on the next use.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let (_, loaded) = cached(store.path(), &dir);
        assert_eq!(loaded, 6);
        assert_eq!((mode(&dir), mode(&path)), (0o700, 0o600));
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "the cache and the planted link: {names:?}");
    }
}
