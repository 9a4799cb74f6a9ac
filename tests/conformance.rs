//! The public conformance suite (tests/conformance/cases.jsonl): each case
//! is a CLI call with its expected exit status and JSON output, compared by
//! full JSON equality (an error's code, message and `canonical` included).
//!
//! `{spill}` stands for a fresh, empty spill directory (in `args` and in
//! the expected output). After a case, that directory holds exactly the
//! files the output names, each whole, named by its SHA-256, mode 0600.
//! Every case runs with `XDG_CACHE_HOME` pointing to a directory that must
//! stay empty: nothing is written to the default spill directory.
//!
//! A binary of its own: it is data-driven (a suite replaces `cases.jsonl`
//! and runs `cargo test --test conformance` alone).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;
use sha2::{Digest, Sha256};

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

/// Replaces `{spill}` in every string of `value`.
fn substitute(value: &Value, spill: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("{spill}", spill)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, spill)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, spill)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The spill files `text` names: `SPILL/<64 hex>.json`.
fn named_spills(text: &str, spill: &str) -> BTreeSet<String> {
    let prefix = format!("{spill}/");
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find(&prefix) {
        let after = &rest[at + prefix.len()..];
        let name: String = after.chars().take(69).collect();
        if name.len() == 69
            && name.ends_with(".json")
            && name[..64]
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            out.insert(name);
        }
        rest = after;
    }
    out
}

/// The spill directory holds exactly `names`, each named by its SHA-256,
/// mode 0600.
fn check_spill_dir(dir: &Path, names: &BTreeSet<String>) -> Result<(), String> {
    let present: BTreeSet<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("spill dir: {e}"))?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    if &present != names {
        return Err(format!(
            "the spill directory holds {present:?}, the output names {names:?}"
        ));
    }
    for name in names {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).map_err(|e| format!("{name}: {e}"))?;
        let hash = format!("{:x}", Sha256::digest(&bytes));
        if format!("{hash}.json") != *name {
            return Err(format!("{name} holds bytes whose SHA-256 is {hash}"));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path)
                .map_err(|e| e.to_string())?
                .permissions()
                .mode();
            if mode & 0o777 != 0o600 {
                return Err(format!("{name} has mode {:o}, not 600", mode & 0o777));
            }
        }
    }
    Ok(())
}

fn run_case(case: &Value, cache_home: &Path) -> Result<(), String> {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/store");
    let spill_root = tempfile::tempdir().map_err(|e| e.to_string())?;
    let spill_dir = spill_root.path().join("spill");
    std::fs::create_dir(&spill_dir).map_err(|e| e.to_string())?;
    let spill = spill_dir.to_string_lossy().into_owned();
    let args: Vec<String> = case["args"]
        .as_array()
        .ok_or("args")?
        .iter()
        .map(|a| {
            a.as_str()
                .unwrap_or_default()
                .replace("{store}", &store.to_string_lossy())
                .replace("{spill}", &spill)
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(&args)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env("XDG_CACHE_HOME", cache_home)
        // The agents' default stores must not leak in from the machine.
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
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
    let expected = substitute(&case["expect"], &spill);
    // Errors too are compared whole: code, message and, for a
    // noncanonical URI, `canonical` (reference.md §2 and §7).
    if actual != expected {
        return Err(format!("expected {expected}\n  actual {actual}"));
    }
    let names = if expected_exit == 0 {
        named_spills(&expected.to_string(), &spill)
    } else {
        BTreeSet::new()
    };
    check_spill_dir(&spill_dir, &names)
}

#[test]
fn every_conformance_case_passes() {
    let cases = cases();
    assert_eq!(cases.len(), 85, "the suite has 85 cases");
    let cache_home = tempfile::tempdir().unwrap();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run_case(case, cache_home.path())
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
    // Only the CLI's index caches (`hydra-session/index-*.bin`, written by
    // `candidates`) may be there: no spilled snapshot.
    let written: Vec<_> = files_below(cache_home.path())
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let index = name.starts_with("index-") && name.ends_with(".bin");
            !(index && p.parent() == Some(&cache_home.path().join("hydra-session")))
        })
        .collect();
    assert!(
        written.is_empty(),
        "nothing but index caches may be written under XDG_CACHE_HOME: {written:?}"
    );
}

#[test]
fn spill_names_are_found_in_nested_json() {
    let text = r#"{"t":"x {\"path\":\"/s/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.json\"}"}"#;
    let names = named_spills(text, "/s");
    assert_eq!(names.len(), 1);
}

/// Every file below `dir`.
fn files_below(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_below(&path));
        } else {
            out.push(path);
        }
    }
    out
}
