//! The built CLI over agents' logs whose prompts this program shaped
//! (docs/agent-logs.md, "Prompts"): a session started with `prepare
//! --format text` is titled and projected by the person's text, a title
//! reads mentions as `@label`, and a transcript without a message (a prompt
//! the hook blocked) is no session.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_with(args, stdin, &[])
}

fn run_with(args: &[&str], stdin: &[u8], env: &[(&str, &Path)]) -> Output {
    let home = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    command
        .args(args)
        // The CLI's index cache: never the user's, fresh for every call.
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CODE_MESSAGING_SOCKET")
        .env("HOME", home.path())
        .envs(env.iter().copied())
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

fn mention(id: &str, label: &str) -> String {
    use base64::Engine;
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(serde_json::to_string(id).unwrap_or_default());
    format!("@[{label}](hydra-session:{payload})")
}

/// A Claude Code transcript: one prompt and one answer.
fn transcript(id: &str, prompt: &str, answer: &str) -> String {
    let user = json!({
        "parentUuid": null, "isSidechain": false, "sessionId": id, "type": "user",
        "message": {"role": "user", "content": prompt}, "uuid": format!("{id}-u"),
        "timestamp": "2026-01-01T00:00:01.000Z", "cwd": "/w"
    });
    let assistant = json!({
        "parentUuid": format!("{id}-u"), "isSidechain": false, "sessionId": id,
        "type": "assistant", "uuid": format!("{id}-a"),
        "message": {"id": format!("{id}-m"), "role": "assistant",
                    "content": [{"type": "text", "text": answer}]},
        "timestamp": "2026-01-01T00:00:02.000Z"
    });
    format!("{user}\n{assistant}\n")
}

/// What a prompt the hook blocked leaves (Claude Code 2.1.332).
fn blocked(id: &str) -> String {
    format!(
        "{}\n{}\n",
        json!({"type": "mode", "mode": "normal", "sessionId": id}),
        json!({"type": "permission-mode", "permissionMode": "auto", "sessionId": id}),
    )
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write log");
}

fn store_args(store: &Path) -> Vec<String> {
    vec![
        "--store".into(),
        store.display().to_string(),
        "--format".into(),
        "claude-code".into(),
    ]
}

fn args<'a>(command: &'a str, store: &'a [String], rest: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![command];
    all.extend(store.iter().map(String::as_str));
    all.extend_from_slice(rest);
    all
}

#[test]
fn a_session_started_with_prepare_is_the_persons_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let projects = dir.path().join("-w");
    std::fs::create_dir(&projects).expect("mkdir");
    let store = store_args(dir.path());
    write(
        &projects,
        "old.jsonl",
        &transcript("old", "Review the cart totals", "Totals reviewed."),
    );

    // The README's way: `prepare --format text | claude -p`.
    let person = format!("Continue the review from {}", mention("old", "the cart"));
    let started = run(
        &args("prepare", &store, &["--format", "text", "-"]),
        person.as_bytes(),
    );
    assert_eq!(started.status.code(), Some(0), "{started:?}");
    let prompt = String::from_utf8(started.stdout).expect("UTF-8");
    assert!(prompt.starts_with("## Referenced sessions\n"), "{prompt}");
    let prompt = prompt.trim_end_matches('\n');
    write(
        &projects,
        "new.jsonl",
        &transcript("new", prompt, "Carrying on."),
    );
    // The hook's way: the prompt keeps the mention's markup.
    write(
        &projects,
        "hooked.jsonl",
        &transcript("hooked", &person, "Hooked."),
    );

    let listed = run(&args("candidates", &store, &["--cwd", "/w"]), b"");
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    let labels: Vec<(String, String)> = stdout_json(&listed)
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    (
                        c["sessionId"].as_str().unwrap_or_default().to_string(),
                        c["label"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    // Both read as the person wrote them, the mention as its label.
    for id in ["new", "hooked"] {
        assert!(
            labels.contains(&(id.into(), "Continue the review from @the cart".into())),
            "{labels:?}"
        );
    }

    // Mentioning it later hands on the person's text, not the old snapshot.
    let message = format!("See {}", mention("new", "new"));
    let prepared = run(&args("prepare", &store, &["-"]), message.as_bytes());
    assert_eq!(prepared.status.code(), Some(0), "{prepared:?}");
    let context = stdout_json(&prepared)["additionalContext"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(context.matches("untrusted, read-only snapshot").count(), 1);
    // `prepare --format text` gave the readable text: that is what the
    // person's message was.
    assert!(
        context.contains(
            r#""conversation":[{"role":"user","text":"Continue the review from @the cart"},{"role":"assistant","text":"Carrying on."}]"#
        ),
        "{context}"
    );
}

#[test]
fn a_transcript_the_hook_blocked_is_no_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let projects = dir.path().join("-w");
    std::fs::create_dir(&projects).expect("mkdir");
    let store = store_args(dir.path());
    let id = "0b0c0d0e-0000-4000-8000-000000000001";
    write(&projects, &format!("{id}.jsonl"), &blocked(id));
    write(
        &projects,
        "real.jsonl",
        &transcript("real", "A real prompt", "An answer."),
    );

    let listed = run(&args("candidates", &store, &[]), b"");
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    let ids: Vec<Value> = stdout_json(&listed)
        .as_array()
        .map(|a| a.iter().map(|c| c["sessionId"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(ids, [json!("real")]);
    // The skip is counted where notes are kept (`status`), not on stderr.
    let status = run(&args("status", &store, &[]), b"");
    assert_eq!(status.status.code(), Some(0), "{status:?}");
    let notes = stdout_json(&status)["notes"].clone();
    let skipped = notes.as_array().is_some_and(|notes| {
        notes.iter().any(|n| {
            n["kind"] == "notASession"
                && n["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(&format!("-w/{id}.jsonl: skipped, not a session")))
        })
    });
    assert!(skipped, "{notes}");

    // A mention of its id is not found, as for an id no log has.
    let message = format!("See {}", mention(id, "blocked"));
    let prepared = run(&args("prepare", &store, &["-"]), message.as_bytes());
    assert_eq!(prepared.status.code(), Some(1));
    assert_eq!(
        stdout_json(&prepared),
        json!({"error": {
            "code": "SESSION_REFERENCE_READ_FAILED",
            "message": format!("failed to read referenced session: session \"{id}\" not found")
        }})
    );

    // Its first message, appended, makes it a session.
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(projects.join(format!("{id}.jsonl")))
        .expect("open log");
    log.write_all(transcript(id, "Now it counts", "Yes.").as_bytes())
        .expect("append");
    let listed = run(&args("candidates", &store, &[]), b"");
    let labels: Vec<Value> = stdout_json(&listed)
        .as_array()
        .map(|a| a.iter().map(|c| c["label"].clone()).collect())
        .unwrap_or_default();
    assert!(labels.contains(&json!("Now it counts")), "{labels:?}");
}

#[test]
fn inside_claude_codes_editor_route_the_edited_session_is_self() {
    let dir = tempfile::tempdir().expect("temp dir");
    let projects = dir.path().join("projects/-w");
    std::fs::create_dir_all(&projects).expect("mkdir");
    let store = store_args(&dir.path().join("projects"));
    for id in ["edited", "other"] {
        write(
            &projects,
            &format!("{id}.jsonl"),
            &transcript(id, &format!("Prompt of {id}"), "ok"),
        );
    }
    // What Claude Code 2.1.332 keeps for its process 4242 and passes on to
    // the editor it starts on Ctrl+G.
    let claude = dir.path().join("claude");
    std::fs::create_dir_all(claude.join("sessions")).expect("mkdir");
    let socket = dir.path().join("cc-socks/4242.sock");
    std::fs::write(
        claude.join("sessions/4242.json"),
        json!({"pid": 4242, "sessionId": "edited", "cwd": "/w",
               "messagingSocketPath": socket.display().to_string()})
        .to_string(),
    )
    .expect("write");
    let env = [
        ("CLAUDE_CONFIG_DIR", claude.as_path()),
        ("CLAUDE_CODE_MESSAGING_SOCKET", socket.as_path()),
    ];
    let ids = |output: &Output| -> Vec<Value> {
        stdout_json(output)
            .as_array()
            .map(|a| a.iter().map(|c| c["sessionId"].clone()).collect())
            .unwrap_or_default()
    };
    let listed = run_with(&args("candidates", &store, &[]), b"", &env);
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    assert_eq!(ids(&listed), [json!("other")]);
    // `--self` still decides when given.
    let listed = run_with(&args("candidates", &store, &["--self", "other"]), b"", &env);
    assert_eq!(ids(&listed), [json!("edited")]);
    // Without the agent's word, both are offered.
    let listed = run(&args("candidates", &store, &[]), b"");
    assert_eq!(ids(&listed).len(), 2);
}
