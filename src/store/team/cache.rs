//! The local snapshot cache: `$XDG_CACHE_HOME/hydra-session-lsp/team/
//! snapshots/<sha>.jsonl` (else `~/.cache/…`). Snapshots are immutable and
//! named by their SHA-256, so a cached file never needs refreshing; it is
//! still verified by hash on every read (a file changed on disk is not
//! served). Folders 0700, files 0600, each written to a temporary file
//! created exclusively and linked to its name (never through a link; an
//! existing name is never replaced).

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::formats::toolkit::home::{env_path, home_dir};
use crate::fsio::{self, Links};
use crate::reference::pin::is_sha256_hex;

/// The largest snapshot the cache holds or reads (a published session is
/// a projected surface, far below this).
pub const MAX_SNAPSHOT_BYTES: u64 = 512 << 20;

/// The cache's folder: `$XDG_CACHE_HOME` when absolute, else `~/.cache`.
pub fn cache_dir() -> Option<PathBuf> {
    let base = env_path("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| home_dir().map(|h| h.join(".cache")))?;
    Some(
        base.join("hydra-session-lsp")
            .join("team")
            .join("snapshots"),
    )
}

/// Keeps `bytes` as the snapshot `sha` in the default cache. Refuses bytes
/// whose hash is not `sha`.
pub fn cache_put(sha: &str, bytes: &[u8]) -> io::Result<()> {
    let dir = cache_dir().ok_or_else(|| io::Error::other("no cache directory"))?;
    put_in(&dir, sha, bytes)
}

/// The snapshot `sha` from the default cache, when it is there with
/// exactly those bytes.
pub fn cache_get(sha: &str) -> Option<Vec<u8>> {
    get_in(&cache_dir()?, sha)
}

/// Whether the snapshot `sha` is in the default cache, by a look at its
/// file alone (a regular file of ours, not a link): what decides whether a
/// read needs the network without reading and hashing the bytes. The read
/// itself still verifies them.
pub fn is_cached(sha: &str) -> bool {
    cache_dir().is_some_and(|dir| is_in(&dir, sha))
}

/// [`is_cached`] in `dir`.
pub fn is_in(dir: &Path, sha: &str) -> bool {
    is_sha256_hex(sha)
        && fsio::open_regular(&dir.join(format!("{sha}.jsonl")), Links::NoFollow)
            .ok()
            .and_then(|f| f.metadata().ok())
            .is_some_and(|m| fsio::owned_by_me(&m))
}

/// The lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for b in digest {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// [`cache_put`] into `dir`.
pub fn put_in(dir: &Path, sha: &str, bytes: &[u8]) -> io::Result<()> {
    if !is_sha256_hex(sha) {
        return Err(io::Error::other("not a sha256 digest"));
    }
    if sha256_hex(bytes) != sha {
        return Err(io::Error::other("bytes do not have that hash"));
    }
    if bytes.len() as u64 > MAX_SNAPSHOT_BYTES {
        return Err(io::Error::other("snapshot too large to cache"));
    }
    fsio::make_private_dir(dir).map_err(io::Error::other)?;
    let target = dir.join(format!("{sha}.jsonl"));
    if get_in(dir, sha).is_some() {
        return Ok(());
    }
    let mut temp = fsio::private_temp_file(dir, ".put-", ".tmp")?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    match temp.persist_noclobber(&target) {
        Ok(_) => Ok(()),
        // Another writer was first; same name, same bytes (checked on read).
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e.error),
    }
}

/// [`cache_get`] from `dir`: read without following a link, bounded, and
/// served only when the bytes hash to `sha`.
pub fn get_in(dir: &Path, sha: &str) -> Option<Vec<u8>> {
    if !is_sha256_hex(sha) {
        return None;
    }
    let file = fsio::open_regular(&dir.join(format!("{sha}.jsonl")), Links::NoFollow).ok()?;
    if !fsio::owned_by_me(&file.metadata().ok()?) {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_SNAPSHOT_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (sha256_hex(&bytes) == sha).then_some(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_snapshot_is_kept_owner_only_and_read_back_verified() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("snapshots");
        let bytes = b"{\"hydra\":1}\n";
        let sha = sha256_hex(bytes);
        assert!(get_in(&dir, &sha).is_none() && !is_in(&dir, &sha));
        put_in(&dir, &sha, bytes).unwrap();
        assert!(is_in(&dir, &sha));
        put_in(&dir, &sha, bytes).unwrap();
        assert_eq!(get_in(&dir, &sha).unwrap(), bytes);
        let file = dir.join(format!("{sha}.jsonl"));
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        // Changed on disk: not served.
        std::fs::write(&file, b"tampered").unwrap();
        assert!(get_in(&dir, &sha).is_none());
    }

    #[test]
    fn wrong_bytes_a_bad_name_and_a_link_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("s");
        let sha = sha256_hex(b"a");
        assert!(put_in(&dir, &sha, b"b").is_err());
        assert!(put_in(&dir, "../x", b"a").is_err());
        std::fs::create_dir_all(&dir).unwrap();
        let real = root.path().join("real");
        std::fs::write(&real, b"a").unwrap();
        std::os::unix::fs::symlink(&real, dir.join(format!("{sha}.jsonl"))).unwrap();
        assert!(get_in(&dir, &sha).is_none() && !is_in(&dir, &sha));
    }
}
