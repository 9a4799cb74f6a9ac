//! The command line over the built binary: settings, exit codes, `check`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn demo_store() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sessions")
}

fn run(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    // Spills of `prepare` and the index cache of `candidates` go to a
    // cache of this run's own: never the user's, never another test's.
    let cache = tempfile::tempdir().expect("temp dir");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    command
        .args(args)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env("XDG_CACHE_HOME", cache.path())
        // The agents' default stores must not leak in from the machine.
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("binary runs");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().expect("binary finishes")
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

fn error_code(output: &Output) -> String {
    json(output)["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn usage_mistakes_exit_2() {
    let store = demo_store();
    let store = store.to_str().unwrap_or_default();
    for args in [
        &["candidates", "--bogus"][..],
        &["candidates", "--store", store, "--limit", "ten"],
        &["candidates", "--store", store, "--limit", "-1"],
        &["prepare", "--store", store, "/nonexistent/prompt.md"],
        &["uri", "encode"],
        &["check"],
    ] {
        let output = run(args, b"", &[]);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    let output = run(&["parse", "-"], b"\xff\xfe", &[]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn bad_limits_are_config_errors() {
    for args in [
        &["prepare", "--max-references", "4"][..],
        &["prepare", "--max-references", "0"],
        &["prepare", "--max-reference-bytes", "9007199254740992"],
        &[
            "prepare",
            "--max-reference-bytes",
            "99999999999999999999999",
        ],
    ] {
        let output = run(args, b"text", &[]);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(
            error_code(&output),
            "SESSION_REFERENCE_INVALID_CONFIG",
            "{args:?}"
        );
    }
    let output = run(&["candidates", "--limit", "9007199254740992"], b"", &[]);
    assert_eq!(error_code(&output), "SESSION_REFERENCE_INVALID_REFERENCE");
}

#[test]
fn ids_starting_with_a_dash_go_after_double_dash() {
    let output = run(&["uri", "encode", "--", "-x"], b"", &[]);
    assert_eq!(json(&output), Value::String("hydra-session:Ii14Ig".into()));
}

#[test]
fn the_store_comes_from_the_environment() {
    let store = demo_store();
    let output = run(
        &["candidates", "--query", "inventory"],
        b"",
        &[("HYDRA_SESSION_STORE", store.to_str().unwrap_or_default())],
    );
    assert_eq!(json(&output)[0]["sessionId"], "inventory-refactor");

    let home = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(home.path().join("sessions")).expect("mkdir");
    std::fs::copy(
        store.join("ops/deploy.jsonl"),
        home.path().join("sessions/deploy.jsonl"),
    )
    .expect("copy");
    let output = run(
        &["candidates"],
        b"",
        &[("HYDRA_HOME", home.path().to_str().unwrap_or_default())],
    );
    let list = json(&output);
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    assert_eq!(list[0]["sessionId"], "deploy-2026-11-28");
}

#[test]
fn candidates_read_through_the_index_cache() {
    // A copy of the demo store (logs are appended to below) and a cache
    // directory of this test's own.
    let store = tempfile::tempdir().expect("temp dir");
    for entry in walk(&demo_store()) {
        let rel = entry.strip_prefix(demo_store()).expect("below");
        let to = store.path().join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&entry, to).expect("copy");
    }
    let cache = tempfile::tempdir().expect("temp dir");
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap_or_default())];
    let store_arg = store.path().to_str().unwrap_or_default();
    let args = ["candidates", "--store", store_arg, "--cwd", "/x"];
    let cold = run(&args, b"", &env);
    assert!(cold.status.success());
    let index: Vec<PathBuf> = std::fs::read_dir(cache.path().join("hydra-session"))
        .expect("the cache directory")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(index.len(), 1, "one index file: {index:?}");
    assert!(index[0].extension().is_some_and(|e| e == "bin"));
    // A hit gives the same output, warnings included.
    let warm = run(&args, b"", &env);
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(warm.stderr, cold.stderr);
    // A corrupt cache is ignored (and rewritten).
    std::fs::write(&index[0], b"\x00garbage").expect("corrupt");
    let after = run(&args, b"", &env);
    assert_eq!(after.stdout, cold.stdout);
    assert_ne!(std::fs::read(&index[0]).expect("cache"), b"\x00garbage");
    // A changed log is read again.
    let log = walk(store.path())
        .into_iter()
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"inventory-refactor\"")))
        .expect("the inventory log");
    let last_seq = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["seq"].as_u64())
        .max()
        .unwrap_or(0);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("append");
    writeln!(
        file,
        r#"{{"seq":{},"type":"session/title","data":{{"title":"Renamed by the test"}}}}"#,
        last_seq + 1
    )
    .expect("append");
    let changed = json(&run(&args, b"", &env));
    let labels: Vec<&str> = changed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["label"].as_str())
        .collect();
    assert!(labels.contains(&"Renamed by the test"), "{labels:?}");
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_missing_store_is_empty_with_a_warning() {
    let output = run(&["candidates", "--store", "/nonexistent/store"], b"", &[]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(json(&output), serde_json::json!([]));
    assert!(String::from_utf8_lossy(&output.stderr).contains("does not exist"));
}

#[test]
fn self_sets_the_ranking_cwd() {
    let store = demo_store();
    let store = store.to_str().unwrap_or_default();
    let ranked = |extra: &[&str]| -> Vec<(String, bool)> {
        let args = [&["candidates", "--store", store][..], extra].concat();
        let output = run(&args, b"", &[]);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        json(&output)
            .as_array()
            .expect("an array")
            .iter()
            .map(|c| {
                let id = c["sessionId"].as_str().unwrap_or_default().to_string();
                (id, c["sameWorkspace"] == true)
            })
            .collect()
    };
    let owned = |list: &[(&str, bool)]| -> Vec<(String, bool)> {
        list.iter()
            .map(|(id, same)| (id.to_string(), *same))
            .collect()
    };
    // Without --self nothing shares the test's cwd: newest first.
    assert_eq!(
        ranked(&[]),
        owned(&[
            ("deploy-2026-11-28", false),
            ("checkout-tax.test-writer", false),
            ("checkout-tax", false),
            ("inventory-refactor", false),
        ])
    );
    // --self checkout-tax ranks its /home/ana/shop siblings first, above a
    // newer session elsewhere, and never offers itself.
    assert_eq!(
        ranked(&["--self", "checkout-tax"]),
        owned(&[
            ("checkout-tax.test-writer", true),
            ("inventory-refactor", true),
            ("deploy-2026-11-28", false),
        ])
    );
    // No other session shares /home/ana/ops.
    assert_eq!(
        ranked(&["--self", "deploy-2026-11-28"]),
        owned(&[
            ("checkout-tax.test-writer", false),
            ("checkout-tax", false),
            ("inventory-refactor", false),
        ])
    );
}

fn check_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("prompt.md");
    let text = "Intro 😀 @[bad](hydra-session:!!)\r\n\
                 see @[ghost](hydra-session:Imdob3N0Ig) and hydra-session:Ilx1MDA2MSI\n\
                 and @[Inventory refactor](hydra-session:ImludmVudG9yeS1yZWZhY3RvciI)\n";
    std::fs::write(&path, text).expect("write");
    (dir, path)
}

#[test]
fn check_prints_one_line_per_diagnostic() {
    let (_dir, path) = check_fixture();
    let store = demo_store();
    let output = run(
        &[
            "check",
            "--store",
            store.to_str().unwrap_or_default(),
            path.to_str().unwrap_or_default(),
        ],
        b"",
        &[],
    );
    assert_eq!(output.status.code(), Some(1));
    let name = path.display().to_string();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert_eq!(
        lines[0],
        format!("{name}:1:16: error[SESSION_REFERENCE_INVALID_REFERENCE]: invalid session reference URI \"hydra-session:!!\"")
    );
    assert!(
        lines[1].starts_with(&format!(
            "{name}:2:5: warning[SESSION_REFERENCE_READ_FAILED]: "
        )),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with(&format!(
            "{name}:2:44: error[SESSION_REFERENCE_INVALID_REFERENCE]: noncanonical"
        )),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with(&format!(
            "{name}:3:5: information[SESSION_REFERENCE_TRUNCATED]: "
        )),
        "{}",
        lines[3]
    );
}

#[test]
fn check_json_uses_utf16_positions() {
    let (_dir, path) = check_fixture();
    let store = demo_store();
    let output = run(
        &[
            "check",
            "--format",
            "json",
            "--store",
            store.to_str().unwrap_or_default(),
            path.to_str().unwrap_or_default(),
        ],
        b"",
        &[],
    );
    let report = json(&output);
    let first = &report[0]["diagnostics"][0];
    // "Intro 😀 @[bad](" is 15 scalar values but 16 UTF-16 units.
    assert_eq!(
        first["range"]["start"],
        serde_json::json!({"line": 0, "character": 16})
    );
    assert_eq!(first["severity"], 1);
    assert_eq!(first["source"], "hydra-session");
    let noncanonical = &report[0]["diagnostics"][2];
    assert_eq!(
        noncanonical["data"],
        serde_json::json!({"canonical": "hydra-session:ImEi"})
    );
}

#[test]
fn the_demo_prompt_prepares() {
    let store = demo_store();
    let prompt = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/prompt.md");
    let output = run(
        &[
            "prepare",
            "--store",
            store.to_str().unwrap_or_default(),
            prompt.to_str().unwrap_or_default(),
        ],
        b"",
        &[],
    );
    assert_eq!(output.status.code(), Some(0));
    let prepared = json(&output);
    let refs = &prepared["additionalContext"]["source"]["references"];
    assert_eq!(refs.as_array().map(Vec::len), Some(3));
    assert_eq!(refs[0]["compacted"], true);
    assert_eq!(refs[2]["truncated"], true);
    let context = prepared["additionalContext"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(context.starts_with("## Referenced sessions\n"));
    assert!(context.ends_with("\n</referenced-sessions>"));
}

#[test]
fn check_warns_about_file_mentions_of_missing_paths_under_cwd() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("docs")).expect("mkdir");
    std::fs::write(dir.path().join("docs/a.md"), "").expect("write");
    let prompt = dir.path().join("p.md");
    std::fs::write(
        &prompt,
        "see @docs/a.md and @docs/nope.md and @types/node\n",
    )
    .expect("write");
    let store = dir.path().join("store");
    let output = run(
        &[
            "check",
            "--store",
            store.to_str().unwrap(),
            "--cwd",
            dir.path().to_str().unwrap(),
            prompt.to_str().unwrap(),
        ],
        b"",
        &[],
    );
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout
            .lines()
            .map(|l| l.split_once(": ").map_or(l, |(_, r)| r))
            .collect::<Vec<_>>(),
        vec!["warning[FILE_REFERENCE_NOT_FOUND]: no file or folder \"docs/nope.md\""],
        "{stdout}"
    );
    assert!(stdout.contains("p.md:1:20: "), "{stdout}");
}

#[test]
fn parse_and_prepare_leave_file_mentions_as_they_are() {
    let text = "look at @src/cart.rs and @\"docs/design notes.md\":12 please";
    let parsed = run(&["parse", "-"], text.as_bytes(), &[]);
    assert_eq!(json(&parsed)["text"], text);
    assert_eq!(json(&parsed)["references"], serde_json::json!([]));
    let store = demo_store();
    let prepared = run(
        &[
            "prepare",
            "--no-spill",
            "--store",
            store.to_str().unwrap(),
            "-",
        ],
        text.as_bytes(),
        &[],
    );
    assert_eq!(
        json(&prepared),
        serde_json::json!({"content": [{"type": "text", "text": text}]})
    );
}

/// Issue 10 item 7: `prepare /dev/zero` grew without end; inputs are now
/// regular files (or standard input) of at most 64 MiB.
#[test]
fn inputs_that_are_not_regular_files_or_too_large_fail_at_once() {
    let store = demo_store();
    let store = store.to_str().unwrap_or_default();
    let big = tempfile::NamedTempFile::new().expect("temp file");
    big.as_file()
        .set_len((64 << 20) + 1)
        .expect("a sparse file over the limit");
    let big = big.path().to_str().unwrap_or_default().to_string();
    for (args, says) in [
        (
            &["prepare", "--store", store, "/dev/zero"][..],
            "not a regular file",
        ),
        (&["parse", "/dev/zero"], "not a regular file"),
        (
            &["check", "--store", store, "/dev/zero"],
            "not a regular file",
        ),
        (&["parse", "/"], "not a regular file"),
        (
            &["prepare", "--store", store, &big],
            "over the 64 MiB limit",
        ),
    ] {
        let output = run(args, b"", &[]);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// Issue 10 item 14: with no arguments in a terminal, the server waited in
/// silence. It now says on stderr what it is and points to `--help`; with
/// a pipe (an editor), it says nothing. `script` gives the binary a
/// terminal.
#[test]
fn no_arguments_in_a_terminal_points_to_help() {
    let bin = env!("CARGO_BIN_EXE_hydra-session-lsp");
    let Ok(output) = Command::new("timeout")
        .args(["20", "script", "-qec", bin, "/dev/null"])
        .stdin(Stdio::null())
        .output()
    else {
        crate::skip::skipped("`timeout` or `script` (util-linux) is not installed");
        return;
    };
    if output.status.code() == Some(127) {
        crate::skip::skipped("`script` (util-linux) is not installed");
        return;
    }
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(shown.contains("a language server"), "{shown}");
    assert!(shown.contains("--help"), "{shown}");
    assert_eq!(
        shown.lines().filter(|l| !l.trim().is_empty()).count(),
        1,
        "{shown}"
    );
    let piped = run(&[], b"", &[]);
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(!stderr.contains("a language server"), "{stderr}");
}

/// Issue 10 item 13: `check` exited 0 with a mistyped or empty `--store`
/// (unknown sessions are warnings). `--deny warnings` fails on warnings,
/// and an empty store is noted on stderr.
#[test]
fn check_deny_warnings_and_an_empty_store_note() {
    let dir = tempfile::tempdir().expect("temp dir");
    let prompt = dir.path().join("prompt.md");
    std::fs::write(
        &prompt,
        "and @[Inventory refactor](hydra-session:ImludmVudG9yeS1yZWZhY3RvciI)\n",
    )
    .expect("write");
    let prompt = prompt.to_str().unwrap_or_default();
    let empty = dir.path().join("empty-store");
    std::fs::create_dir(&empty).expect("mkdir");
    let empty = empty.to_str().unwrap_or_default();
    let plain = run(&["check", "--store", empty, prompt], b"", &[]);
    assert_eq!(plain.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(
        stdout.contains("warning[SESSION_REFERENCE_READ_FAILED]"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert!(stderr.contains("the store holds no session"), "{stderr}");
    for deny in [&["--deny", "warnings"][..], &["-D", "warnings"]] {
        let mut args = vec!["check", "--store", empty];
        args.extend_from_slice(deny);
        args.push(prompt);
        let denied = run(&args, b"", &[]);
        assert_eq!(denied.status.code(), Some(1), "{deny:?}");
    }
    // A store with the session: no warning, no note, 0 even with --deny.
    let store = demo_store();
    let store = store.to_str().unwrap_or_default();
    let good = run(
        &["check", "--store", store, "--deny", "warnings", prompt],
        b"",
        &[],
    );
    assert_eq!(good.status.code(), Some(0), "{good:?}");
    assert!(!String::from_utf8_lossy(&good.stderr).contains("no session"));
    let bogus = run(&["check", "--deny", "errors", prompt], b"", &[]);
    assert_eq!(bogus.status.code(), Some(2));
}

/// Issue 10 item 16: `candidates --limit -1` gave clap's "unexpected
/// argument '-1'"; it now names the flag and what a limit is.
#[test]
fn a_negative_limit_is_named_as_such() {
    for (flag, value) in [
        ("--limit", "-1"),
        ("--max-references", "-3"),
        ("--max-reference-bytes", "-10"),
    ] {
        let output = run(&["candidates", flag, value], b"", &[]);
        assert_eq!(output.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("invalid value '{value}' for '{flag}")),
            "{stderr}"
        );
        assert!(stderr.contains("positive whole number"), "{stderr}");
        assert!(!stderr.contains("unexpected argument"), "{stderr}");
    }
}

/// Issue 10 item 9: with one folder per session and `ulimit -n` 256, the
/// walk kept every folder open and lost sessions in silence (3,000
/// folders: 1,018 found). It now holds one folder open at a time.
#[test]
fn a_store_of_many_folders_is_walked_with_few_descriptors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let count = 600;
    for i in 0..count {
        let folder = dir.path().join(format!("2026-11-{i:04}"));
        std::fs::create_dir(&folder).expect("mkdir");
        let header = format!(
            r#"{{"type":"session","version":1,"id":"s{i}","createdAt":{},"cwd":"/w"}}"#,
            1_700_000_000_000u64 + i as u64
        );
        std::fs::write(folder.join("log.jsonl"), format!("{header}\n")).expect("write");
    }
    let store = dir.path().to_str().unwrap_or_default();
    let bin = env!("CARGO_BIN_EXE_hydra-session-lsp");
    // The index cache of `candidates` goes to this test's own cache.
    let cache = tempfile::tempdir().expect("temp dir");
    let output = Command::new("bash")
        .args([
            "-c",
            &format!("ulimit -n 64 && exec \"$0\" candidates --store \"$1\" --limit {count}"),
            bin,
            store,
        ])
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{output:?}");
    let found: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(found.as_array().map(Vec::len), Some(count));
}

/// Issue 10 item 6: a log region without a newline was read whole into
/// memory by the title scan (a 2 GB sparse `.jsonl` peaked at 2 GB). Under
/// a 300 MB address-space limit, a 600 MB sparse log now scans; before,
/// the allocation failed and the process aborted.
#[test]
fn a_sparse_log_is_scanned_in_bounded_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("s.jsonl");
    std::fs::write(
        &log,
        "{\"type\":\"session\",\"version\":1,\"id\":\"sparse\",\"createdAt\":1,\"cwd\":\"/w\"}\n",
    )
    .expect("write");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .expect("open");
    file.set_len(600 << 20).expect("sparse");
    let store = dir.path().to_str().unwrap_or_default();
    let cache = tempfile::tempdir().expect("temp dir");
    let output = Command::new("bash")
        .args([
            "-c",
            "ulimit -v 300000 && exec \"$0\" candidates --store \"$1\"",
            env!("CARGO_BIN_EXE_hydra-session-lsp"),
            store,
        ])
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{output:?}");
    let found: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(found[0]["sessionId"], "sparse");
}

/// Issue 10 item 7, for the hook (which reads a JSON object on stdin): the
/// input is bounded like a document's, twice 64 MiB for JSON escapes.
#[test]
fn the_hook_reads_a_bounded_input() {
    let big = vec![b' '; (128 << 20) + 1];
    let output = run(&["hook", "claude-code"], &big, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("over the 128 MiB limit"), "{stderr}");
    assert!(output.stdout.is_empty());
}

/// A copy of the demo store in `dir`.
fn copy_demo_store(dir: &Path) {
    for entry in walk(&demo_store()) {
        let rel = entry.strip_prefix(demo_store()).expect("below");
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&entry, to).expect("copy");
    }
}

/// Issue 18, item 16: a store that is HOME written another way (`..`, a
/// link) never gets `~/.cache/hydra-session/index-*.bin` written inside it.
#[cfg(unix)]
#[test]
fn the_index_cache_is_never_written_inside_a_store_however_it_is_written() {
    let root = tempfile::tempdir().expect("temp dir");
    let home = root.path().join("home");
    copy_demo_store(&home);
    let link = root.path().join("link-to-home");
    std::os::unix::fs::symlink(&home, &link).expect("link");
    let dotted = home.join("..").join("home");
    for store in [dotted, link] {
        let store = store.to_str().expect("UTF-8").to_string();
        let output = run(
            &["candidates", "--store", &store, "--cwd", "/x"],
            b"",
            &[
                ("HOME", home.to_str().expect("UTF-8")),
                ("XDG_CACHE_HOME", ""),
            ],
        );
        assert!(output.status.success());
        assert!(!json(&output).as_array().expect("a list").is_empty());
        assert!(
            !home.join(".cache").exists(),
            "the index cache was written inside the store {store}"
        );
    }
}

/// Issue 18, item 14: the index cache (titles, ids, cwds) is owner-only,
/// and the modes of a cache an older build left open are narrowed.
#[cfg(unix)]
#[test]
fn the_index_cache_is_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    let set = |p: &Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).expect("chmod")
    };
    let cache = tempfile::tempdir().expect("temp dir");
    let dir = cache.path().join("hydra-session");
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap_or_default())];
    let store = demo_store();
    let args = ["candidates", "--store", store.to_str().unwrap_or_default()];
    assert!(run(&args, b"", &env).status.success());
    let index = || -> Vec<PathBuf> {
        std::fs::read_dir(&dir)
            .expect("the cache folder")
            .flatten()
            .map(|e| e.path())
            .collect()
    };
    let files = index();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!((mode(&dir), mode(&files[0])), (0o700, 0o600));
    set(&dir, 0o755);
    set(&files[0], 0o644);
    assert!(run(&args, b"", &env).status.success());
    assert_eq!((mode(&dir), mode(&files[0])), (0o700, 0o600));
    assert_eq!(index(), files, "no temporary file left");
}

/// A store of two sessions whose titles attack a terminal and a list: a
/// clear-screen and a bell, a line break, a right-to-left override.
fn hostile_titles_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (id, created, title) in [
        ("ansi", 2_000u64, "\u{1b}[2J\u{1b}[31mred\u{7}"),
        ("two-lines", 1_000, "first line\nsecond line\u{202E}cba"),
    ] {
        let header =
            serde_json::json!({"type": "session", "version": 1, "id": id, "createdAt": created});
        let title =
            serde_json::json!({"seq": 1, "type": "session/title", "data": {"title": title}});
        std::fs::write(
            dir.path().join(format!("{id}.jsonl")),
            format!("{header}\n{title}\n"),
        )
        .expect("write log");
    }
    dir
}

#[test]
fn candidates_mention_prints_one_line_per_session_without_controls() {
    // Issue 18 items 7, 8 and 10.
    let store = hostile_titles_store();
    let store = store.path().to_str().unwrap_or_default();
    let output = run(
        &["candidates", "--store", store, "--format", "mention"],
        b"",
        &[],
    );
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "@[[2J [31mred](hydra-session:ImFuc2ki)",
            "@[first line second linecba](hydra-session:InR3by1saW5lcyI)",
        ],
        "{stdout:?}"
    );
    // Each line parses back to its session.
    for (line, id) in lines.iter().zip(["ansi", "two-lines"]) {
        let parsed = run(&["parse"], line.as_bytes(), &[]);
        assert_eq!(json(&parsed)["references"][0]["sessionId"], id, "{line}");
    }
    // The JSON keeps the contract's canonical mention, byte for byte.
    let output = run(&["candidates", "--store", store], b"", &[]);
    let list = json(&output);
    assert_eq!(
        list[0]["mention"],
        "@[\u{1b}[2J\u{1b}[31mred\u{7}](hydra-session:ImFuc2ki)"
    );
    assert_eq!(list[1]["label"], "first line\nsecond line\u{202E}cba");
}

#[test]
fn check_warns_of_invisible_characters_in_a_label_and_prints_no_controls() {
    // Issue 18 item 10: a label that shows one name and is another's.
    let store = hostile_titles_store();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("prompt.md");
    // A C1 CSI and an override in an unknown id, quoted by the message.
    let hostile_id = "x\u{9b}2J\u{202E}y";
    let uri = hydra_session_lsp::reference::uri::encode(hostile_id);
    std::fs::write(
        &path,
        format!("see @[txet\u{202E}](hydra-session:ImFuc2ki) and @[z]({uri})\n"),
    )
    .expect("write");
    let output = run(
        &[
            "check",
            "--store",
            store.path().to_str().unwrap_or_default(),
            path.to_str().unwrap_or_default(),
        ],
        b"",
        &[],
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(
        stdout.contains(":1:5: warning[SESSION_REFERENCE_SUSPICIOUS_LABEL]: "),
        "{stdout}"
    );
    assert!(
        !stdout.contains(|c: char| c.is_control() && c != '\n'
            || hydra_session_lsp::reference::one_line::has_invisible(&c.to_string())),
        "{stdout:?}"
    );
    assert!(stdout.contains("x 2Jy"), "{stdout:?}");
}

#[test]
fn store_warnings_on_stderr_carry_no_terminal_controls() {
    // Issue 18 items 7-8: a store's path in a warning is a terminal line
    // too (only the stores the person named are warned about).
    let store = hostile_titles_store();
    let missing = store.path().join("\u{1b}[2J\u{7}gone\n");
    let output = run(
        &[
            "candidates",
            "--store",
            store.path().to_str().unwrap_or_default(),
            "--store",
            missing.to_str().unwrap_or_default(),
        ],
        b"",
        &[],
    );
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    assert!(stderr.contains("[2J gone does not exist"), "{stderr:?}");
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(!stderr.trim_end().contains(char::is_control), "{stderr:?}");
}
