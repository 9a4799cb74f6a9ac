//! Running the built binary as a person with only the agents' stores of
//! one temporary home would: every variable that names or moves a store is
//! cleared (the machine's own must not leak in), and a test names the one
//! it checks.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Every variable that names a store or moves an agent's default one.
const STORE_VARIABLES: &[&str] = &[
    "HYDRA_SESSION_STORE",
    "HYDRA_HOME",
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "CURSOR_CONFIG_DIR",
    "PI_CODING_AGENT_DIR",
    "QWEN_RUNTIME_DIR",
    "CONTINUE_GLOBAL_DIR",
    "CLINE_DATA_DIR",
    "GOOSE_PATH_ROOT",
    "CRUSH_GLOBAL_DATA",
    "FLATPAK_XDG_DATA_HOME",
];

/// Runs the binary in a fresh folder with `home` as HOME (its cache under
/// it) and no store named by the environment but `extra`; it must succeed.
pub fn run(home: &Path, extra: &[(&str, &Path)], args: &[&str], stdin: &[u8]) -> Output {
    let output = run_any(home, extra, args, stdin);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// [`run`], whatever its exit status.
pub fn run_any(home: &Path, extra: &[(&str, &Path)], args: &[&str], stdin: &[u8]) -> Output {
    let cwd = tempfile::tempdir().expect("temp dir");
    run_in(cwd.path(), home, extra, args, stdin)
}

/// [`run`] in the working directory `cwd` (a store found through it: an
/// Aider history).
pub fn run_in(
    cwd: &Path,
    home: &Path,
    extra: &[(&str, &Path)],
    args: &[&str],
    stdin: &[u8],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    command
        .args(args)
        .current_dir(cwd)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("HOME", home);
    for variable in STORE_VARIABLES {
        command.env_remove(variable);
    }
    for (variable, value) in extra {
        command.env(variable, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin).expect("stdin");
    }
    child.wait_with_output().expect("binary finishes")
}

pub fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

/// The entry of the store of `format` in a `status` answer.
pub fn store_status<'a>(status: &'a Value, format: &str) -> &'a Value {
    status["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .find(|s| s["format"] == format)
        .unwrap_or_else(|| panic!("no {format} store in {status}"))
}

/// `prepare` of the prompt "Continue MENTION", run as [`run`] runs it.
pub fn prepare(home: &Path, mention: &str) -> Value {
    stdout_json(&run(
        home,
        &[],
        &["prepare"],
        format!("Continue {mention}").as_bytes(),
    ))
}

/// The referenced sessions' snapshots in what `prepare` answered: the
/// JSON between the `<referenced-sessions>` tags of its context.
pub fn snapshots(prepared: &Value) -> Value {
    let text = prepared["additionalContext"]["content"][0]["text"]
        .as_str()
        .expect("context text");
    let open = "<referenced-sessions>\n";
    let start = text.find(open).expect("open") + open.len();
    let end = text.find("\n</referenced-sessions>").expect("close");
    serde_json::from_str(&text[start..end]).expect("snapshot JSON")
}
