//! The manifest protocol of a `file://` team store, whose `object_store`
//! backend has no compare-and-swap: exclusive creates and renames.
//!
//! Beside `manifest.json` (what readers read), each version of a manifest
//! is kept as `versions/<N>.json`, N counting from 1 (20 digits, so names
//! sort as numbers). A publisher:
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

use super::PublishError;
use crate::fsio::{open_regular, Links};
use crate::store::team::manifest::MAX_MANIFEST_BYTES;
use crate::store::team::{Manifest, ManifestEntry, TeamError};

const VERSIONS: &str = "versions";
const MANIFEST: &str = "manifest.json";

/// What to do when a step fails on the file system, named by the store's URL.
fn io_err(url: &str, what: &Path, e: &std::io::Error) -> PublishError {
    PublishError::Team(TeamError::Backend {
        url: url.to_owned(),
        kind: format!("{}: {}", what.display(), e.kind()),
    })
}

/// The highest version and its number, `(0, empty)` when there is none.
fn highest(url: &str, versions: &Path, session_id: &str) -> Result<(u64, Manifest), PublishError> {
    let mut top: Option<u64> = None;
    let entries = match std::fs::read_dir(versions) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((0, Manifest::new(session_id)))
        }
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
        return Ok((0, Manifest::new(session_id)));
    };
    let path = version_path(versions, n);
    let bytes = read_bounded(url, &path)?;
    let manifest =
        Manifest::parse(&bytes).map_err(|e| e.at_manifest(url, &path.to_string_lossy()))?;
    Ok((n, manifest))
}

fn read_bounded(url: &str, path: &Path) -> Result<Vec<u8>, PublishError> {
    use std::io::Read;
    let file = open_regular(path, Links::NoFollow).map_err(|e| io_err(url, path, &e))?;
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES as u64 + 1)
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
/// store), by the protocol above.
pub fn append_entry(
    url: &str,
    dir: &Path,
    session_id: &str,
    entry: &ManifestEntry,
) -> Result<(), PublishError> {
    let versions = dir.join(VERSIONS);
    std::fs::create_dir_all(&versions).map_err(|e| io_err(url, &versions, &e))?;
    let mut attempt = 0;
    loop {
        let (n, mut manifest) = highest(url, &versions, session_id)?;
        if manifest.latest().is_some_and(|l| l.sha256 == entry.sha256) {
            break;
        }
        manifest.entries.push(entry.clone());
        let temp = temp_in(url, &versions, &manifest.to_bytes())?;
        match temp.persist_noclobber(version_path(&versions, n + 1)) {
            Ok(_) => break,
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                // Lost the race for N+1: the temporary file goes with `e`.
                attempt += 1;
                if attempt >= super::protocol::MAX_ATTEMPTS {
                    return Err(PublishError::Contended {
                        url: url.to_owned(),
                        path: dir.join(MANIFEST).to_string_lossy().into_owned(),
                    });
                }
                std::thread::sleep(super::protocol::backoff(attempt));
            }
            Err(e) => return Err(io_err(url, &versions, &e.error)),
        }
    }
    publish_highest(url, dir, &versions, session_id)
}

/// Step 3: `manifest.json` becomes the highest version, again while a
/// higher one appears.
fn publish_highest(
    url: &str,
    dir: &Path,
    versions: &Path,
    session_id: &str,
) -> Result<(), PublishError> {
    loop {
        let (n, manifest) = highest(url, versions, session_id)?;
        let temp = temp_in(url, dir, &manifest.to_bytes())?;
        temp.persist(dir.join(MANIFEST))
            .map_err(|e| io_err(url, dir, &e.error))?;
        if highest(url, versions, session_id)?.0 == n {
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
