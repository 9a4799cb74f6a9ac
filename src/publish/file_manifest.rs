//! The write protocol of a `file://` team store, whose `object_store`
//! backend has no compare-and-swap: exclusive creates and renames. The
//! manifests and the publishers' indexes are written by it alike.
//!
//! Beside `manifest.json` (what readers read), each version of a manifest
//! is kept as `versions/<N>.json`, N counting from 1 (20 digits, so names
//! sort as numbers); the versions of `index/<publisher>.json` are
//! `index/versions/<publisher>/<N>.json`. A publisher:
//!
//! 1. reads the highest version N (none: an empty manifest, N = 0);
//! 2. writes N plus its entry to a new temporary file and links it to
//!    `versions/<N+1>.json` without replacing (`persist_noclobber`: the
//!    kernel's link or `RENAME_NOREPLACE`, atomic); when that name exists
//!    another publisher won the race: back to 1;
//! 3. copies the highest version over `manifest.json` by rename, and
//!    repeats while a higher version has appeared since.
//!
//! Why no update is lost: a version, once linked, never changes, and
//! version N+1 is made only from version N (step 2 fails if anyone else
//! made N+1 first), so every version holds every entry of the ones before
//! it. And `manifest.json` ends at the highest version: whoever links a
//! version renames after it, and stops only when no higher one exists;
//! the last rename of all is therefore of the highest version. Nothing is
//! deleted: versions accumulate, one small file per publish (a temporary
//! file that lost its race is the only file ever removed, and it is ours).
//!
//! The `versions/` folder is one level deeper than a manifest, so a
//! listing of manifests never mistakes a version for one.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::protocol::{append, Change};
use super::PublishError;
use crate::fsio::{open_regular, Links};
use crate::store::team::manifest::MAX_MANIFEST_BYTES;
use crate::store::team::{Manifest, ManifestEntry, TeamError, TeamUrl};

pub const VERSIONS: &str = "versions";
const MANIFEST: &str = "manifest.json";

/// The file of an object in a `file://` store: the store's folder and the
/// path's parts (all of them characters a file name keeps as they are: a
/// publisher name, base64url, the layout's names).
pub fn file_path(url: &TeamUrl, path: &object_store::path::Path) -> std::path::PathBuf {
    let mut file = std::path::PathBuf::from(&url.prefix);
    for part in path.parts() {
        file.push(part.as_ref());
    }
    file
}

/// What to do when a step fails on the file system, named by the store's URL.
fn io_err(url: &str, what: &Path, e: &std::io::Error) -> PublishError {
    PublishError::Team(TeamError::Backend {
        url: url.to_owned(),
        kind: format!("{}: {}", what.display(), e.kind()),
    })
}

/// The highest version's number and bytes (at most `limit` and one),
/// `(0, None)` when there is none.
fn highest(
    url: &str,
    versions: &Path,
    limit: usize,
) -> Result<(u64, Option<Vec<u8>>), PublishError> {
    let mut top: Option<u64> = None;
    let entries = match std::fs::read_dir(versions) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, None)),
        Err(e) => return Err(io_err(url, versions, &e)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(n) = name
            .to_str()
            .and_then(|n| n.strip_suffix(".json"))
            .filter(|n| n.len() == 20 && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        top = Some(top.map_or(n, |t| t.max(n)));
    }
    let Some(n) = top else {
        return Ok((0, None));
    };
    Ok((
        n,
        Some(read_bounded(url, &version_path(versions, n), limit)?),
    ))
}

fn read_bounded(url: &str, path: &Path, limit: usize) -> Result<Vec<u8>, PublishError> {
    use std::io::Read;
    let file = open_regular(path, Links::NoFollow).map_err(|e| io_err(url, path, &e))?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err(url, path, &e))?;
    Ok(bytes)
}

fn version_path(versions: &Path, n: u64) -> PathBuf {
    versions.join(format!("{n:020}.json"))
}

/// A new temporary file in `dir`, created exclusively under a random name.
/// Mode 0644 less the umask, as `object_store` makes the store's other
/// files: a team store is read by the team, whom the folder's own
/// permissions choose.
fn temp_in(url: &str, dir: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, PublishError> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".publish-").suffix(".tmp").rand_bytes(12);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let mut file = builder.tempfile_in(dir).map_err(|e| io_err(url, dir, &e))?;
    file.write_all(bytes)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| io_err(url, dir, &e))?;
    Ok(file)
}

/// Appends `entry` to the manifest in `dir` (the session's folder in the
/// store), by [`swap`]; the manifest written, when one was.
pub fn append_entry(
    url: &str,
    dir: &Path,
    session_id: &str,
    entry: &ManifestEntry,
) -> Result<Option<Manifest>, PublishError> {
    let mut made = None;
    let target = dir.join(MANIFEST);
    let at = target.to_string_lossy().into_owned();
    let mut change = append(url, &at, session_id, entry, &mut made);
    swap(
        url,
        &target,
        &dir.join(VERSIONS),
        MAX_MANIFEST_BYTES,
        &mut change,
    )?;
    drop(change);
    Ok(made)
}

/// Replaces the file `target` by what `change` makes of its highest
/// version in `versions` (at most `limit` bytes), by the protocol above.
pub fn swap(
    url: &str,
    target: &Path,
    versions: &Path,
    limit: usize,
    change: &mut Change<'_>,
) -> Result<(), PublishError> {
    std::fs::create_dir_all(versions).map_err(|e| io_err(url, versions, &e))?;
    let mut attempt = 0;
    loop {
        let (n, current) = highest(url, versions, limit)?;
        let Some(bytes) = change(current.as_deref())? else {
            break;
        };
        let temp = temp_in(url, versions, &bytes)?;
        match temp.persist_noclobber(version_path(versions, n + 1)) {
            Ok(_) => break,
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                // Lost the race for N+1: the temporary file goes with `e`.
                attempt += 1;
                if attempt >= super::protocol::MAX_ATTEMPTS {
                    return Err(PublishError::Contended {
                        url: url.to_owned(),
                        path: target.to_string_lossy().into_owned(),
                    });
                }
                std::thread::sleep(super::protocol::backoff(attempt));
            }
            Err(e) => return Err(io_err(url, versions, &e.error)),
        }
    }
    publish_highest(url, target, versions, limit)
}

/// Step 3: `target` becomes the highest version, again while a higher one
/// appears.
fn publish_highest(
    url: &str,
    target: &Path,
    versions: &Path,
    limit: usize,
) -> Result<(), PublishError> {
    let dir = target.parent().unwrap_or(versions);
    loop {
        let (n, bytes) = highest(url, versions, limit)?;
        let Some(bytes) = bytes else {
            // No version yet (nothing was ever written): nothing to show.
            return Ok(());
        };
        let temp = temp_in(url, dir, &bytes)?;
        temp.persist(target)
            .map_err(|e| io_err(url, dir, &e.error))?;
        if highest(url, versions, limit)?.0 == n {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::publish::protocol::tests::entry;

    fn read(dir: &Path) -> Manifest {
        Manifest::parse(&std::fs::read(dir.join(MANIFEST)).unwrap()).unwrap()
    }

    #[test]
    fn concurrent_appends_all_land() {
        let store = tempfile::tempdir().unwrap();
        let dir = store.path().join("sessions/ana/czE");
        std::thread::scope(|s| {
            for t in 0..8 {
                let dir = &dir;
                s.spawn(move || {
                    for i in 0..5 {
                        append_entry("file:///x", dir, "~ana/s1", &entry(t * 10 + i + 1)).unwrap();
                    }
                });
            }
        });
        let manifest = read(&dir);
        assert_eq!(manifest.entries.len(), 40);
        let mut shas: Vec<_> = manifest.entries.iter().map(|e| e.sha256.clone()).collect();
        shas.sort();
        shas.dedup();
        assert_eq!(shas.len(), 40);
        // Only versions and the manifest: no temporary file left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn the_latest_again_is_not_appended_twice() {
        let store = tempfile::tempdir().unwrap();
        let dir = store.path().join("m");
        append_entry("file:///x", &dir, "~ana/s1", &entry(1)).unwrap();
        append_entry("file:///x", &dir, "~ana/s1", &entry(1)).unwrap();
        append_entry("file:///x", &dir, "~ana/s1", &entry(2)).unwrap();
        let shas: Vec<_> = read(&dir).entries.into_iter().map(|e| e.bytes).collect();
        assert_eq!(shas, [1, 2]);
    }
}
