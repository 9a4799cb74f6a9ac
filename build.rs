//! Derives the key of the build's format readers: a hash of every source
//! file under `src/formats/`. The CLI's index cache keeps what readers made
//! of each log; a cache written by another build — another version, or the
//! same version with any reader changed — is dropped (issue 18, item 20).
//! No hand-kept version number can be forgotten: any edit there, a comment
//! included, changes the key, which costs one full scan.

use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=src/formats");
    let mut files = Vec::new();
    collect(Path::new("src/formats"), &mut files);
    files.sort();
    // FNV-1a 64 over each file's path and bytes: stable across builds.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for file in &files {
        feed(file.to_string_lossy().as_bytes());
        feed(&[0]);
        feed(&fs::read(file).unwrap_or_default());
        feed(&[0]);
    }
    println!("cargo:rustc-env=HYDRA_FORMATS_HASH={hash:016x}");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
