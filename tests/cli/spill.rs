//! Full-snapshot spills over the real binary (reference.md §5a): no
//! partial file at any locator path even when the process is killed
//! mid-write, and an unusable spill directory gives `unavailable`, never
//! an error, and leaves nothing behind.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

const ID: &str = "big";

/// A store with one log of `messages` messages of about 1 KB each.
fn big_store(messages: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut log =
        std::io::BufWriter::new(std::fs::File::create(dir.path().join("big.jsonl")).unwrap());
    writeln!(
        log,
        r#"{{"type":"session","version":1,"id":"{ID}","createdAt":1,"cwd":"/w"}}"#
    )
    .unwrap();
    let text = "lorem <ipsum> \\\"dolor\\\" sit amet ".repeat(30);
    for seq in 1..=messages {
        writeln!(
            log,
            r#"{{"seq":{seq},"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{seq} {text}"}}]}}}}"#
        )
        .unwrap();
    }
    log.flush().unwrap();
    dir
}

fn prepare_command(store: &Path, spill: &Path, cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    prepare_args(&mut command, store, spill, cache);
    command
}

/// `setpriv` (util-linux) running what follows as root without the
/// capabilities that let root write where the mode says no: root then
/// meets a read-only directory as everyone else does.
#[cfg(unix)]
fn without_dac_override() -> Command {
    let mut command = Command::new("setpriv");
    command.args(["--bounding-set", "-dac_override,-dac_read_search", "--"]);
    command
}

fn prepare_args(command: &mut Command, store: &Path, spill: &Path, cache: &Path) {
    command
        .args(["prepare", "--store"])
        .arg(store)
        .args(["--max-reference-bytes", "4096", "--spill-dir"])
        .arg(spill)
        .arg("-")
        .env("XDG_CACHE_HOME", cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
}

fn mention() -> String {
    hydra_session_lsp::reference::mention::format(ID, None)
}

fn spawn(command: &mut Command) -> Child {
    let mut child = command.spawn().expect("binary runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(mention().as_bytes()).unwrap();
    drop(stdin);
    child
}

fn finish(command: &mut Command) -> (Output, Value) {
    let output = spawn(command).wait_with_output().unwrap();
    let json = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output, json)
}

/// The locator of the first source, from the rendered context.
fn locator(result: &Value) -> Value {
    let text = result["additionalContext"]["content"][0]["text"]
        .as_str()
        .unwrap();
    let start = text.find("<referenced-sessions>\n").unwrap() + "<referenced-sessions>\n".len();
    let end = text.rfind("\n</referenced-sessions>").unwrap();
    let sources: Value = serde_json::from_str(&text[start..end]).unwrap();
    sources[0]["fullSnapshot"].clone()
}

/// Every `*.json` file of `dir` is whole: named by the SHA-256 of its bytes.
fn assert_only_whole_snapshots(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut whole = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            assert!(name.starts_with(".hydra-spill-"), "unexpected file {name}");
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            format!("{:x}.json", Sha256::digest(&bytes)),
            name,
            "a partial or foreign file at a locator path"
        );
        whole += 1;
    }
    whole
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(".hydra-spill-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_kill_mid_write_leaves_no_partial_file_at_any_locator() {
    let store = big_store(25_000);
    let cache = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let spill = root.path().join("spill");
    let mut killed_mid_write = 0;
    for delay_ms in [0u64, 5, 20, 60] {
        let mut child = spawn(&mut prepare_command(store.path(), &spill, cache.path()));
        let started = Instant::now();
        // Wait for the temporary file: the snapshot is being written.
        while temp_files(&spill).is_empty() && started.elapsed() < Duration::from_secs(30) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        std::thread::sleep(Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            killed_mid_write += 1;
        }
        let _ = child.wait();
        assert_only_whole_snapshots(&spill);
    }
    assert!(killed_mid_write > 0, "the process was never caught writing");
    // A run to the end stores one whole snapshot at its locator, mode 0600.
    let (output, result) = finish(&mut prepare_command(store.path(), &spill, cache.path()));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let full = locator(&result);
    let path = full["path"].as_str().expect("stored");
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(full["bytes"].as_u64(), Some(bytes.len() as u64));
    assert!(bytes.ends_with(b"]}\n"));
    let snapshot: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(snapshot["conversation"].as_array().unwrap().len(), 25_000);
    assert_eq!(assert_only_whole_snapshots(&spill), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(&spill).unwrap().permissions().mode() & 0o777;
        assert_eq!(dir_mode, 0o700);
    }
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

#[test]
fn an_unusable_spill_directory_is_unavailable_and_leaves_nothing() {
    let store = big_store(50);
    let cache = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    for spill in [file.clone(), file.join("below")] {
        let (output, result) = finish(&mut prepare_command(store.path(), &spill, cache.path()));
        assert!(output.status.success());
        let reason = locator(&result)["unavailable"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(reason.starts_with("spill failed: "), "{reason}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1);

    // A read-only directory. Root may write there anyway (CI runs as
    // root): then the binary runs without root's override of file modes.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = root.path().join("ro");
        std::fs::create_dir(&read_only).unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o500)).unwrap();
        let probe = read_only.join("probe");
        let mut command = if std::fs::write(&probe, b"").is_ok() {
            std::fs::remove_file(&probe).unwrap();
            // The precondition must hold, or the check below proves nothing.
            let denied = without_dac_override()
                .arg("touch")
                .arg(&probe)
                .stderr(Stdio::null())
                .status()
                .expect("setpriv (util-linux) runs");
            assert!(
                !denied.success(),
                "without CAP_DAC_OVERRIDE the read-only directory is still writable"
            );
            let mut command = without_dac_override();
            command.arg(env!("CARGO_BIN_EXE_hydra-session-lsp"));
            prepare_args(&mut command, store.path(), &read_only, cache.path());
            command
        } else {
            prepare_command(store.path(), &read_only, cache.path())
        };
        let (output, result) = finish(&mut command);
        assert!(output.status.success());
        let found = locator(&result);
        let reason = found["unavailable"].as_str();
        assert!(
            reason.is_some_and(|r| r.starts_with("spill failed: ")),
            "a read-only spill directory: {found}"
        );
        assert_eq!(std::fs::read_dir(&read_only).unwrap().count(), 0);
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}

#[test]
fn spill_flags_belong_to_prepare_only() {
    for args in [
        &["candidates", "--spill-dir", "x"][..],
        &["check", "--no-spill", "f.md"],
        &["files", "--spill-max-bytes", "5"],
    ] {
        let status = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
}

/// Sets a file's modification time `secs` seconds back.
fn age(path: &Path, secs: u64) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

/// Issue 18, item 12: `--spill-dir` on a folder holding a person's files
/// removes none of them, however old, whatever they are named: only the
/// program's own temporary files and `<sha256>.json` files it could have
/// written (regular, the current user's) are cleaned up or evicted.
#[test]
fn a_persons_files_in_a_spill_folder_are_never_removed() {
    let store = big_store(50);
    let cache = tempfile::tempdir().unwrap();
    let spill = tempfile::tempdir().unwrap();
    let notes = spill.path().join(".tmp-my-notes");
    let other = spill.path().join("notes.json");
    let stale = spill.path().join(".hydra-spill-a1B2c3D4e5F6.tmp");
    for file in [&notes, &other, &stale] {
        std::fs::write(file, b"two hours of work").unwrap();
        age(file, 7200);
    }
    // A file named like a snapshot but not the current user's (root can
    // give it away; others cannot, and the case is then left out).
    let foreign = spill.path().join(format!("{}.json", "f".repeat(64)));
    std::fs::write(&foreign, vec![b'x'; 100_000]).unwrap();
    age(&foreign, 7200);
    #[cfg(unix)]
    let foreign_checked = std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).is_ok();
    #[cfg(not(unix))]
    let foreign_checked = false;
    if !foreign_checked {
        crate::skip::skipped("the foreign-owner case (cannot chown without root)");
        std::fs::remove_file(&foreign).unwrap();
    }
    let (output, result) = finish(
        prepare_command(store.path(), spill.path(), cache.path()).args(["--spill-max-bytes", "1"]),
    );
    assert!(output.status.success());
    assert!(locator(&result)["path"].is_string(), "{result}");
    assert!(notes.exists(), "a person's .tmp-my-notes was removed");
    assert!(other.exists());
    assert!(
        !stale.exists(),
        "the program's own stale temporary file stays"
    );
    if foreign_checked {
        assert!(foreign.exists(), "another user's file was evicted");
    }
}

/// Issue 18, item 13: a spill folder another user owns, or others can
/// write to, is never used: the locator says why, nothing is stored.
#[cfg(unix)]
#[test]
fn a_shared_spill_folder_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let store = big_store(50);
    let cache = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let open = root.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let theirs = root.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cases = vec![(open, "is writable by other users")];
    if std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).is_ok() {
        cases.push((theirs, "is owned by another user"));
    } else {
        crate::skip::skipped("the foreign-owner case (cannot chown without root)");
    }
    for (dir, why) in cases {
        let (output, result) = finish(&mut prepare_command(store.path(), &dir, cache.path()));
        assert!(output.status.success());
        let reason = locator(&result)["unavailable"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(reason.starts_with("spill failed: "), "{result}");
        assert!(reason.contains(why), "{reason}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }
    // A new folder is made owner-only.
    let fresh = root.path().join("new/spill");
    let (_, result) = finish(&mut prepare_command(store.path(), &fresh, cache.path()));
    assert!(locator(&result)["path"].is_string());
    for dir in [root.path().join("new"), fresh] {
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }
}

/// Nothing is written inside a session store (issue 18's standard, as for
/// the index cache in item 16): a spill folder in the store, however
/// written, is refused and never created.
#[cfg(unix)]
#[test]
fn a_spill_folder_inside_the_store_is_refused() {
    let store = big_store(50);
    let cache = tempfile::tempdir().unwrap();
    let links = tempfile::tempdir().unwrap();
    let link = links.path().join("to-store");
    std::os::unix::fs::symlink(store.path(), &link).unwrap();
    for spill in [store.path().join("snapshots"), link.join("snapshots")] {
        let (output, result) = finish(&mut prepare_command(store.path(), &spill, cache.path()));
        assert!(output.status.success());
        let reason = locator(&result)["unavailable"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(reason.contains("is inside the session store"), "{result}");
        assert!(!store.path().join("snapshots").exists());
    }
}
