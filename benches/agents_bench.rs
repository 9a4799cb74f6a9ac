//! The agents' stores at scale (issue 8, "Speed"): a generated
//! `~/.claude/projects` tree of 2,000 transcripts (about 1 GB), 2,000
//! Codex rollouts (about 1 GB), 2,000 Copilot CLI sessions (about 1 GB)
//! and 2,000 Cursor agent transcripts (about 1 GB)
//! in one store list, served by the real binary
//! over stdio. Measures the first index, completion and warm hover at the
//! client, the time an appended title takes to reach completion, and RSS.
//!
//! Run: `cargo bench --bench agents_bench` (release build). Set
//! `AGENTS_BENCH_LOGS` (default 2000 per agent) and `AGENTS_BENCH_KB`
//! (default 512 per log) for a smaller run. Prints a Markdown table;
//! docs/performance.md ("Agents' stores") records a run.

#[path = "../tests/lsp_common/mod.rs"]
mod lsp_common;
mod support;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use lsp_common::{file_uri, TestClient};
use serde_json::{json, Value};
use support::{ms, percentile, rss_kib, spawn_server};
use tokio::process::{ChildStdin, ChildStdout};

type Client = TestClient<ChildStdout, ChildStdin>;

const CWDS: usize = 40;
const WORDS: [&str; 12] = [
    "tax",
    "cart",
    "rounding",
    "deploy",
    "refactor",
    "inventory",
    "tests",
    "checkout",
    "api",
    "docs",
    "parser",
    "cache",
];

/// Words of prose from the shared generator.
trait Words {
    fn words(&mut self, n: usize) -> String;
}

impl Words for support::Lcg {
    fn words(&mut self, n: usize) -> String {
        let mut out = String::new();
        for i in 0..n {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(WORDS[self.next(WORDS.len())]);
        }
        out
    }
}

fn uuid(kind: u64, i: usize, j: usize) -> String {
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        kind as usize * 0x1000_0000 + i,
        j & 0xffff,
        (i >> 4) & 0xfff,
        j & 0xfff,
        i * 7919 + j
    )
}

fn timestamp(i: usize, j: usize) -> String {
    let seconds = i * 3_600 + j * 7;
    format!(
        "2026-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        1 + (seconds / 2_592_000) % 12,
        1 + (seconds / 86_400) % 28,
        (seconds / 3_600) % 24,
        (seconds / 60) % 60,
        seconds % 60,
        j % 1000
    )
}

/// One Claude Code transcript of about `bytes`: prompts, split assistant
/// messages, tool calls with large results, as Claude Code writes them.
fn claude_transcript(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(1, i, 0);
    let cwd = format!("/home/u/proj{}", i % CWDS);
    let mut out = String::with_capacity(bytes + 4096);
    let mut parent = Value::Null;
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let id = uuid(2, i, j);
        let common = |kind: &str, parent: &Value, message: Value| {
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
                "cwd": cwd, "sessionId": session, "version": "2.1.7", "gitBranch": "main",
                "type": kind, "message": message, "uuid": id, "timestamp": timestamp(i, j)})
        };
        let line = match j % 4 {
            1 => common(
                "user",
                &parent,
                json!({"role": "user", "content": format!("Please look at the {} in session {i}", rng.words(12))}),
            ),
            2 => common(
                "assistant",
                &parent,
                json!({"model": "claude-sonnet-4-5", "id": format!("msg_{i}_{j}"),
                "type": "message", "role": "assistant", "content": [{"type": "text", "text": rng.words(60)}],
                "usage": {"input_tokens": 1200, "output_tokens": 300}}),
            ),
            3 => common(
                "assistant",
                &parent,
                json!({"model": "claude-sonnet-4-5", "id": format!("msg_{i}_{}", j - 1),
                "type": "message", "role": "assistant",
                "content": [{"type": "tool_use", "id": format!("toolu_{i}_{j}"), "name": "Read", "input": {"file_path": "/home/u/src/lib.rs"}}]}),
            ),
            _ => {
                let mut result = common(
                    "user",
                    &parent,
                    json!({"role": "user", "content": [{"type": "tool_result",
                    "tool_use_id": format!("toolu_{i}_{}", j - 1), "content": rng.words(900)}]}),
                );
                result["toolUseResult"] = json!({"type": "text"});
                result
            }
        };
        parent = Value::String(id.clone());
        out.push_str(&line.to_string());
        out.push('\n');
    }
    let dir = cwd.replace(['/', '.'], "-");
    (format!("{dir}/{session}.jsonl"), out)
}

/// One Codex rollout of about `bytes`.
fn codex_rollout(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(3, i, 0);
    let cwd = format!("/home/u/proj{}", i % CWDS);
    let mut out = String::with_capacity(bytes + 4096);
    let meta = json!({"timestamp": timestamp(i, 0), "type": "session_meta", "payload": {
        "id": session, "timestamp": timestamp(i, 0), "cwd": cwd, "originator": "codex_cli_rs",
        "cli_version": "0.77.0", "instructions": null, "source": "cli", "model_provider": "openai"}});
    out.push_str(&meta.to_string());
    out.push('\n');
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let line = match j % 4 {
            1 => {
                json!({"timestamp": timestamp(i, j), "type": "response_item", "payload": {"type": "message",
                "role": "user", "content": [{"type": "input_text", "text": format!("Fix the {} of run {i}", rng.words(10))}]}})
            }
            2 => {
                json!({"timestamp": timestamp(i, j), "type": "response_item", "payload": {"type": "function_call",
                "name": "shell", "arguments": "{\"command\":[\"cat\",\"src/lib.rs\"]}", "call_id": format!("call_{i}_{j}")}})
            }
            3 => {
                json!({"timestamp": timestamp(i, j), "type": "response_item", "payload": {"type": "function_call_output",
                "call_id": format!("call_{i}_{}", j - 1), "output": rng.words(900)}})
            }
            _ => {
                json!({"timestamp": timestamp(i, j), "type": "response_item", "payload": {"type": "message",
                "role": "assistant", "content": [{"type": "output_text", "text": rng.words(60)}]}})
            }
        };
        out.push_str(&line.to_string());
        out.push('\n');
        if j % 16 == 0 {
            let count = json!({"timestamp": timestamp(i, j), "type": "event_msg", "payload": {"type": "token_count",
                "info": {"model_context_window": 272000}}});
            out.push_str(&count.to_string());
            out.push('\n');
        }
    }
    let day = 1 + i % 28;
    (
        format!("2026/11/{day:02}/rollout-2026-11-{day:02}T10-00-00-{session}.jsonl"),
        out,
    )
}

/// One GitHub Copilot CLI session folder's `events.jsonl` of about `bytes`
/// (its `workspace.yaml` is written beside it by `generate`).
fn copilot_session(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(4, i, 0);
    let cwd = format!("/home/u/proj{}", i % CWDS);
    let mut out = String::with_capacity(bytes + 4096);
    let start = json!({"type": "session.start", "data": {"sessionId": session, "version": 1,
        "producer": "copilot-agent", "startTime": timestamp(i, 0), "context": {"cwd": cwd}},
        "id": uuid(5, i, 0), "timestamp": timestamp(i, 0), "parentId": null});
    out.push_str(&start.to_string());
    out.push('\n');
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let line = match j % 3 {
            1 => {
                json!({"type": "user.message", "data": {"content": format!("Fix the {} of run {i}", rng.words(10))},
                "id": uuid(5, i, j), "timestamp": timestamp(i, j)})
            }
            2 => json!({"type": "tool.execution_complete", "data": {"toolCallId": format!("t{j}"),
                "result": {"content": rng.words(900)}}, "id": uuid(5, i, j), "timestamp": timestamp(i, j)}),
            _ => json!({"type": "assistant.message", "data": {"content": rng.words(60)},
                "id": uuid(5, i, j), "timestamp": timestamp(i, j)}),
        };
        out.push_str(&line.to_string());
        out.push('\n');
    }
    (format!("{session}/events.jsonl"), out)
}

/// One Cursor agent transcript of about `bytes`, in its project's
/// `agent-transcripts/<id>/` folder (the slug names no real directory:
/// the cwd walk looks and finds none, as on a machine without the project).
fn cursor_transcript(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(6, i, 0);
    let mut out = String::with_capacity(bytes + 4096);
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let line = match j % 3 {
            1 => json!({"role": "user", "message": {"content": [{"type": "text", "text": format!(
                "<timestamp>Tuesday, Dec 1, 2026, 4:05 PM (UTC+1)</timestamp>\n<user_query>\nFix the {} of run {i}\n</user_query>",
                rng.words(10)
            )}]}}),
            2 => {
                json!({"role": "assistant", "message": {"content": [{"type": "text", "text": "[REDACTED]"},
                {"type": "tool_use", "name": "Shell", "input": {"command": rng.words(900)}}]}})
            }
            _ => {
                json!({"role": "assistant", "message": {"content": [{"type": "text", "text": rng.words(60)}]}})
            }
        };
        out.push_str(&line.to_string());
        out.push('\n');
    }
    (
        format!(
            "home-u-proj{}/agent-transcripts/{session}/{session}.jsonl",
            i % CWDS
        ),
        out,
    )
}

fn generate(root: &Path, logs: usize, bytes: usize) -> u64 {
    let mut rng = support::Lcg(7);
    let mut total = 0u64;
    for i in 0..logs {
        for (base, (rel, text)) in [
            ("claude/projects", claude_transcript(&mut rng, i, bytes)),
            ("codex/sessions", codex_rollout(&mut rng, i, bytes)),
            ("copilot/session-state", copilot_session(&mut rng, i, bytes)),
            ("cursor/projects", cursor_transcript(&mut rng, i, bytes)),
        ] {
            let path = root.join(base).join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).expect("mkdir");
                if base.starts_with("copilot") {
                    let yaml = format!("name: Copilot run {i}\nuser_named: false\n");
                    std::fs::write(dir.join("workspace.yaml"), yaml).expect("write");
                }
            }
            std::fs::write(&path, &text).expect("write");
            total += text.len() as u64;
        }
    }
    total
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn hover(client: &mut Client, uri: &str) -> Value {
    client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}}),
        )
        .await
}

async fn complete(client: &mut Client, uri: &str, line: usize, character: usize) -> Value {
    client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
        .await
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let logs = env_usize("AGENTS_BENCH_LOGS", 2_000);
    let kib = env_usize("AGENTS_BENCH_KB", 512);
    let root = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let bytes = generate(root.path(), logs, kib * 1024);
    eprintln!(
        "generated {} MB in {:.1?}",
        bytes / 1_000_000,
        started.elapsed()
    );
    let claude = root.path().join("claude/projects");
    let codex = root.path().join("codex/sessions");
    let copilot = root.path().join("copilot/session-state");
    let cursor = root.path().join("cursor/projects");

    let (child, mut client) = spawn_server(&[]);
    let pid = child.id().unwrap_or(0);
    // Drop the OS page cache's advantage? Not possible unprivileged in
    // general: the figures are for a warm page cache (the generator just
    // wrote the files), as an editor restarted on a used machine sees.
    let started = Instant::now();
    client
        .initialize(json!({
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/home/u/proj7"), "name": "proj7"}],
            "initializationOptions": {"store": [
                {"path": claude, "format": "claude-code"},
                {"path": codex, "format": "codex"},
                {"path": copilot, "format": "copilot-cli"},
                {"path": cursor, "format": "cursor"},
            ]},
        }))
        .await;
    let uri = file_uri("/home/u/proj7/prompt.md");
    let queries = [
        "", "t", "ta", "tax", "c", "ca", "cart", "proj3", "ROUND", "zzz", "fix", "run 1",
    ];
    let lines: Vec<String> = queries.iter().map(|q| format!("@{q}")).collect();
    client.open(&uri, &lines.join("\n")).await;
    let first = complete(&mut client, &uri, 0, 1).await;
    let indexed = started.elapsed();
    let status = client.call("sessionReference/status", json!({})).await;
    let rss_indexed = rss_kib(pid);
    assert!(
        first["items"].as_array().is_some_and(|i| !i.is_empty()),
        "no sessions: {status}"
    );

    let mut samples = Vec::new();
    for _ in 0..20 {
        for (line, query) in queries.iter().enumerate() {
            let at = Instant::now();
            let _ = complete(&mut client, &uri, line, query.len() + 1).await;
            samples.push(at.elapsed());
        }
    }
    let (c50, c95) = (
        percentile(&mut samples, 0.5),
        percentile(&mut samples, 0.95),
    );

    // Hover on a mention of a transcript, warm.
    // The top candidate's own mention, as completion inserts it.
    let text = first["items"][0]["textEdit"]["newText"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let hover_uri = file_uri("/home/u/proj7/hover.md");
    client.open(&hover_uri, &text).await;
    let cold_at = Instant::now();
    let _ = hover(&mut client, &hover_uri).await;
    let hover_cold = cold_at.elapsed();
    let mut warm = Vec::new();
    for _ in 0..50 {
        let at = Instant::now();
        let _ = hover(&mut client, &hover_uri).await;
        warm.push(at.elapsed());
    }
    let (h50, h95) = (percentile(&mut warm, 0.5), percentile(&mut warm, 0.95));

    // An appended title reaches completion: Claude Code's `custom-title`.
    let transcript = std::fs::read_dir(claude.join("-home-u-proj7"))
        .expect("project dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a transcript");
    let session = transcript
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let fresh = "Zebra quartz appended title";
    let mut line =
        json!({"type": "custom-title", "customTitle": fresh, "sessionId": session}).to_string();
    line.push('\n');
    let appended_at = Instant::now();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .expect("append");
    let probe = file_uri("/home/u/proj7/probe.md");
    client.open(&probe, "@zebra").await;
    let mut appended = None;
    while appended_at.elapsed() < Duration::from_secs(10) {
        let got = complete(&mut client, &probe, 0, 6).await;
        if got["items"].as_array().is_some_and(|i| !i.is_empty()) {
            appended = Some(appended_at.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let rss_end = rss_kib(pid);

    let mut table = String::new();
    let _ = writeln!(table, "| measure | result |\n|---|---|");
    let _ = writeln!(
        table,
        "| stores | {} Claude Code transcripts + {} Codex rollouts + {} Copilot CLI sessions + {} Cursor transcripts, {} MB; status {} |",
        logs,
        logs,
        logs,
        logs,
        bytes / 1_000_000,
        status["stores"]
    );
    let _ = writeln!(
        table,
        "| first index (initialize → first completion) | {:.2} s |",
        indexed.as_secs_f64()
    );
    let _ = writeln!(
        table,
        "| completion p50 / p95 at the client | {} / {} |",
        ms(c50),
        ms(c95)
    );
    let _ = writeln!(
        table,
        "| hover cold / warm p50 / warm p95 | {} / {} / {} |",
        ms(hover_cold),
        ms(h50),
        ms(h95)
    );
    let _ = writeln!(
        table,
        "| appended `custom-title` → completion | {} |",
        appended.map_or("not seen in 10 s".to_string(), ms)
    );
    let _ = writeln!(
        table,
        "| RSS indexed / at the end | {:.1} MiB / {:.1} MiB |",
        rss_indexed as f64 / 1024.0,
        rss_end as f64 / 1024.0
    );
    println!("{table}");
    client.shutdown_and_exit().await;
}
