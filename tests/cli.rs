//! The command line over the built binary: settings, exit codes, `check`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn demo_store() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sessions")
}

fn run(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    // Spills of `prepare` go to a cache of its own, never the user's.
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
    let output = run(
        &[
            "candidates",
            "--store",
            store,
            "--self",
            "deploy-2026-11-28",
        ],
        b"",
        &[],
    );
    let list = json(&output);
    // No other session shares /home/ana/ops, and self is never offered.
    assert!(list
        .as_array()
        .is_some_and(|l| l.iter().all(|c| c["sameWorkspace"] == false)));
    assert!(list
        .as_array()
        .is_some_and(|l| l.iter().all(|c| c["sessionId"] != "deploy-2026-11-28")));
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
