//! Derives the key of the build's format readers: a hash of every source
//! file under `src/formats/`. The CLI's index cache keeps what readers made
//! of each log; a cache written by another build — another version, or the
//! same version with any reader changed — is dropped (issue 18, item 20).
//! No hand-kept version number can be forgotten: any edit there, a comment
//! included, changes the key, which costs one full scan.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn main() {
    println!("cargo:rerun-if-changed=src/formats");
    let mut files = Vec::new();
    collect(Path::new("src/formats"), &mut files);
    files.sort();
    // SHA-256 (the crate the program already uses) over each file's path
    // and bytes, each ended by a NUL: stable across builds; its first 8
    // bytes are the key.
    let mut hasher = Sha256::new();
    for file in &files {
        hasher.update(file.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update(fs::read(file).unwrap_or_default());
        hasher.update([0]);
    }
    let key: String = hasher.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=HYDRA_FORMATS_HASH={key}");
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
