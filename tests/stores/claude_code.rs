//! The built CLI over real Claude Code transcripts (copies of three
//! projects of `../shared/real-logs/claude-code`, skipped and said when
//! absent): `candidates` and `prepare`, exact JSON.

use crate::real_logs;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// The three real projects this file's expectations are about.
const PROJECTS: &[&str] = &[
    "-tmp-private",
    "-home-marco-projects-spotter",
    "-Users-User-repo-codemie-ai-codemie-code",
];

fn store_dir() -> Option<tempfile::TempDir> {
    real_logs::store_of("claude-code", PROJECTS)
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let home = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    command
        .args(args)
        // The CLI's index cache: this run's own, never the user's.
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("binary runs");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().expect("binary finishes")
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

#[test]
fn candidates_list_the_transcripts() {
    let Some(dir) = store_dir() else { return };
    let store = dir.path();
    let output = run(
        &[
            "candidates",
            "--store",
            store.to_str().unwrap_or_default(),
            "--cwd",
            "/tmp/private",
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout_json(&output),
        json!([
            {
                "sessionId": "4c2ddfdc-b619-4525-8d03-1950fb1b0257",
                "label": "create hello.py, md and js",
                "cwd": "/tmp/private",
                "sameWorkspace": true,
                "createdAt": 1765395465343u64,
                "mention": "@[create hello.py, md and js](hydra-session:IjRjMmRkZmRjLWI2MTktNDUyNS04ZDAzLTE5NTBmYjFiMDI1NyI)"
            },
            {
                "sessionId": "4c2ddfdc-b619-4525-8d03-1950fb1b0257/36541525",
                "label": "Warmup",
                "cwd": "/tmp/private",
                "sameWorkspace": true,
                "createdAt": 1765395457159u64,
                "mention": "@[Warmup](hydra-session:IjRjMmRkZmRjLWI2MTktNDUyNS04ZDAzLTE5NTBmYjFiMDI1Ny8zNjU0MTUyNSI)"
            },
            {
                "sessionId": "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
                "label": "start phoenix in background",
                "cwd": "/home/marco/projects/spotter",
                "sameWorkspace": false,
                "createdAt": 1770764271291u64,
                "mention": "@[start phoenix in background](hydra-session:ImQ2ZTBiYWRhLTE5NTktNGVlYy1hOWQyLTBiZmFkZTc2OGQ4ZiI)"
            },
            {
                "sessionId": "e9fb405b-169f-40eb-9396-7e75076f045d/a485154",
                "label": "Analyze the existing CLI command structure in this CodeMie CLI project and",
                "displayTitle": "Analyze CLI and spec new commands",
                "cwd": "/Users/User/repo/codemie-ai/codemie-code",
                "sameWorkspace": false,
                "createdAt": 1768418413501u64,
                "mention": "@[Analyze CLI and spec new commands](hydra-session:ImU5ZmI0MDViLTE2OWYtNDBlYi05Mzk2LTdlNzUwNzZmMDQ1ZC9hNDg1MTU0Ig)"
            },
            {
                "sessionId": "e9fb405b-169f-40eb-9396-7e75076f045d",
                "label": "@\"solution-architect (agent)\" analyze existing CLI command and create",
                "cwd": "/Users/User/repo/codemie-ai/codemie-code",
                "sameWorkspace": false,
                "createdAt": 1768418403207u64,
                "mention": "@[@\"solution-architect (agent)\" analyze existing CLI command and create](hydra-session:ImU5ZmI0MDViLTE2OWYtNDBlYi05Mzk2LTdlNzUwNzZmMDQ1ZCI)"
            }
        ])
    );
    // The compaction worker's transcript is skipped: a note of `status`,
    // never a warning at every call (issue 14, part 4).
    assert!(output.stderr.is_empty(), "{output:?}");
    let status = run(
        &["status", "--store", store.to_str().unwrap_or_default()],
        b"",
    );
    assert_eq!(status.status.code(), Some(0));
    let notes = stdout_json(&status)["notes"].clone();
    assert!(
        notes.as_array().into_iter().flatten().any(|n| {
            n["kind"] == "notASession"
                && n["message"].as_str().is_some_and(|m| {
                    m.contains("agent-acompact-e1f845.jsonl: skipped, not a session")
                })
        }),
        "{notes}"
    );
}

#[test]
fn prepare_renders_the_live_branch() {
    let Some(dir) = store_dir() else { return };
    let store = dir.path();
    let prompt = "Compare @[the agent](hydra-session:ImU5ZmI0MDViLTE2OWYtNDBlYi05Mzk2LTdlNzUwNzZmMDQ1ZC9hNDg1MTU0Ig) with @[spotter](hydra-session:ImQ2ZTBiYWRhLTE5NTktNGVlYy1hOWQyLTBiZmFkZTc2OGQ4ZiI).\n";
    let output = run(
        &[
            "prepare",
            "--store",
            store.to_str().unwrap_or_default(),
            "-",
        ],
        prompt.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0));
    let out = stdout_json(&output);
    assert_eq!(
        out["content"],
        json!([{"type": "text", "text": "Compare @the agent with @spotter.\n"}])
    );
    let stats = |id: &str, label: &str, through: u64, messages: u64, index: u64| {
        json!({
            "sessionId": id, "label": label, "capturedThroughSeq": through,
            "compacted": false, "originalMessages": messages, "retainedMessages": messages,
            "omittedMessages": 0, "omittedBytes": 0, "truncated": false, "inputIndex": index
        })
    };
    assert_eq!(
        out["additionalContext"]["source"],
        json!({
            "kind": "session-reference", "form": "recall", "version": 1,
            "references": [
                stats("e9fb405b-169f-40eb-9396-7e75076f045d/a485154", "the agent", 36, 3, 0),
                stats("d6e0bada-1959-4eec-a9d2-0bfade768d8f", "spotter", 39, 6, 1),
            ]
        })
    );
    let text = out["additionalContext"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let start = text.find("<referenced-sessions>\n").unwrap_or_default() + 22;
    let end = text.find("\n</referenced-sessions>").unwrap_or_default();
    let sessions: Value = serde_json::from_str(&text[start..end]).expect("JSON data");
    let task_prompt = sessions[0]["conversation"][0]["text"].clone();
    assert!(task_prompt
        .as_str()
        .unwrap_or_default()
        .starts_with("Analyze the existing CLI command structure"));
    assert_eq!(
        sessions,
        json!([
            {
                "sessionId": "e9fb405b-169f-40eb-9396-7e75076f045d/a485154",
                "label": "the agent",
                "cwd": "/Users/User/repo/codemie-ai/codemie-code",
                "capturedThroughSeq": 36,
                "conversation": [
                    {"role": "user", "text": task_prompt},
                    {"role": "assistant", "text": "I'll analyze the existing CLI command structure and create a comprehensive technical specification for valuable new CLI commands."},
                    {"role": "assistant", "text": "Now let me check the agents directory and existing utilities to understand better what kind of commands would add value."}
                ]
            },
            {
                "sessionId": "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
                "label": "spotter",
                "cwd": "/home/marco/projects/spotter",
                "capturedThroughSeq": 39,
                "conversation": [
                    {"role": "user", "text": "start phoenix in background"},
                    {"role": "assistant", "text": "Phoenix server is starting in the background.\n\nLet me check the MCP servers status."},
                    {"role": "user", "text": "[Request interrupted by user]"},
                    {"role": "user", "text": "scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions"},
                    {"role": "assistant", "text": "\n\n"},
                    {"role": "user", "text": "[Request interrupted by user]"}
                ]
            }
        ])
    );
}

#[cfg(unix)]
#[test]
fn claude_projects_is_a_default_store() {
    // No store named: the hydra default plus `$CLAUDE_CONFIG_DIR/projects`.
    let Some(store) = store_dir() else { return };
    let config = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(store.path(), config.path().join("projects")).expect("symlink");
    let home = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(["candidates", "--cwd", "/tmp/private", "--limit", "2"])
        // The CLI's index cache: this test's own, never the user's.
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env_remove("CODEX_HOME")
        .env("HOME", home.path())
        .env("CLAUDE_CONFIG_DIR", config.path())
        .stdin(Stdio::null())
        .output()
        .expect("binary runs");
    assert_eq!(output.status.code(), Some(0));
    let ids: Vec<String> = stdout_json(&output)
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|i| i["sessionId"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        ids,
        [
            "4c2ddfdc-b619-4525-8d03-1950fb1b0257",
            "4c2ddfdc-b619-4525-8d03-1950fb1b0257/36541525"
        ]
    );
}
