//! A test that cannot run here (no real log, no `unshare`, no `setpriv`, a
//! TMPDIR a slug cannot spell) says so through [`skipped`], never by a bare
//! `return`: libtest would count it as passed and show nothing.
//!
//! - In CI (`CI` set and not `false`/`0`) a skip **fails** the test unless
//!   `HYDRA_TEST_ALLOW_SKIP` names it (its full libtest name or its last
//!   segment; comma- or space-separated; `*` allows all).
//! - Elsewhere it is counted: one line appended to
//!   `$CARGO_TARGET_TMPDIR/hydra-test-skips.txt`, which `scripts/test.sh`
//!   empties first and prints, with the count, at the end.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// The file every skip of every test binary is appended to: in the
/// target's `tmp` folder, which cargo names to integration tests; the
/// library's own unit tests (which include this file too) find it from
/// their binary's place, `<target>/<profile>/deps/`.
pub fn skips_file() -> PathBuf {
    let tmp = match option_env!("CARGO_TARGET_TMPDIR") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("tmp")))
            .unwrap_or_else(std::env::temp_dir),
    };
    tmp.join("hydra-test-skips.txt")
}

/// Records that the running test is skipped for `why`; panics (the test
/// fails) in CI unless `HYDRA_TEST_ALLOW_SKIP` names it. Call it, then
/// `return`.
#[allow(clippy::print_stderr)]
pub fn skipped(why: &str) {
    // libtest names each test's thread after the test.
    let name = std::thread::current()
        .name()
        .unwrap_or("an unnamed test")
        .to_owned();
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // libtest's binaries are named `NAME-HASH`.
    let binary = binary.rsplit_once('-').map_or(binary.as_str(), |(b, _)| b);
    if in_ci()
        && !allowed(
            &name,
            &std::env::var("HYDRA_TEST_ALLOW_SKIP").unwrap_or_default(),
        )
    {
        panic!(
            "{binary} {name} was skipped in CI ({why}); a skip in CI fails \
             unless HYDRA_TEST_ALLOW_SKIP names it"
        );
    }
    eprintln!("skipped: {binary} {name}: {why}");
    let line = format!("{binary} {name}: {why}\n");
    // One write of one short line with O_APPEND: lines of tests running
    // at once in other threads or binaries do not interleave.
    let file = skips_file();
    if let Some(dir) = file.parent() {
        // Cargo makes it for integration tests, not for unit tests.
        let _ = std::fs::create_dir_all(dir);
    }
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        panic!("cannot count a skip in {}: {e}", skips_file().display());
    }
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Whether `list` (HYDRA_TEST_ALLOW_SKIP) names the test `name`.
pub fn allowed(name: &str, list: &str) -> bool {
    let last = name.rsplit("::").next().unwrap_or(name);
    list.split([',', ' '])
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .any(|n| n == "*" || n == name || n == last)
}

#[test]
fn the_allow_list_names_tests_by_full_name_last_segment_or_star() {
    assert!(allowed(
        "gemini::the_shared_logs",
        "gemini::the_shared_logs"
    ));
    assert!(allowed("gemini::the_shared_logs", "x, the_shared_logs"));
    assert!(allowed("a::b", "*"));
    assert!(!allowed("gemini::the_shared_logs", "the_shared"));
    assert!(!allowed("gemini::the_shared_logs", ""));
}
