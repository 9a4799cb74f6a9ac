//! The public conformance suite (tests/conformance/cases.jsonl): each case
//! is a CLI call with its expected exit status and JSON output. Errors are
//! compared by `code`, successes by full JSON equality.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

fn cases() -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let bytes = std::fs::read(dir.join("cases.jsonl")).expect("cases.jsonl is readable");
    // Split on `\n` only: some cases hold a raw U+2028.
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("each case is JSON"))
        .collect()
}

fn run_case(case: &Value) -> Result<(), String> {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/store");
    let args: Vec<String> = case["args"]
        .as_array()
        .ok_or("args")?
        .iter()
        .map(|a| {
            a.as_str()
                .unwrap_or_default()
                .replace("{store}", &store.to_string_lossy())
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(&args)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        // The index cache of `candidates`: never the user's.
        .env("XDG_CACHE_HOME", cache_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdin_text = case["stdin"].as_str().unwrap_or_default().to_string();
    let mut stdin = child.stdin.take().ok_or("stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(stdin_text.as_bytes()));
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    let expected_exit = case["exit"].as_i64().ok_or("exit")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let actual_exit = i64::from(output.status.code().unwrap_or(-1));
    if actual_exit != expected_exit {
        return Err(format!(
            "exit {actual_exit}, expected {expected_exit}\nstdout: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let actual: Value =
        serde_json::from_str(&stdout).map_err(|e| format!("stdout is not JSON ({e}): {stdout}"))?;
    let expected = &case["expect"];
    let same = if expected_exit == 0 {
        &actual == expected
    } else {
        actual["error"]["code"] == expected["error"]["code"]
    };
    if same {
        Ok(())
    } else {
        Err(format!("expected {expected}\n  actual {actual}"))
    }
}

#[test]
fn every_conformance_case_passes() {
    let cases = cases();
    assert_eq!(cases.len(), 68, "the suite has 68 cases");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run_case(case)
                .err()
                .map(|e| format!("{}: {e}", case["name"]))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// A cache directory for the binary's index caches, inside the target
/// directory, so no test writes to the user's cache.
fn cache_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-cache")
}
