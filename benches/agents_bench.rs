//! The agents' stores at scale (issues 8 and 15, "Speed"): sessions of all
//! eight formats generated from nothing — Claude Code transcripts, Codex
//! rollouts, GitHub Copilot CLI sessions, VS Code Copilot Chat logs,
//! Cursor agent transcripts, Gemini CLI chats (with their
//! `.project_root`), hydra logs, and one OpenCode database (tables
//! `session`/`message`/`part`, JSON `data`) — given to the real binary over
//! stdio as one store list (`initializationOptions.store`, each store with
//! its `format`). Each session is about `AGENTS_BENCH_KB` of prose from
//! `Words`, with the line shapes of the formats' fixtures, and its own id.
//!
//! Measures the first index on the whole list (initialize until status no
//! longer says `indexing`: completion answers earlier with what is indexed
//! so far), and fails unless every store lists all its sessions and the
//! list holds them all (a shared id or an unread format shows there);
//! then completion and hover at the client, the time an appended title
//! takes to reach completion, and RSS. Issue 15's goal: 200 sessions of
//! each format indexed within 3 s, completion p95 within 2 ms.
//!
//! Run: `cargo bench --bench agents_bench` (release build). Set
//! `AGENTS_BENCH_LOGS` (default 2000 per format) and `AGENTS_BENCH_KB`
//! (default 512 per session); issue 15's run is `AGENTS_BENCH_LOGS=200
//! AGENTS_BENCH_KB=64`. Full-text search is on as in the server (its index
//! in the generated tree); `AGENTS_BENCH_SEARCH=off` turns it off. Prints
//! a Markdown table; docs/performance.md ("Agents' stores") records runs.

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

/// A UUID-shaped id, distinct for each `kind`: every generator (and every
/// family of ids within one) has its own, so no two sessions of the store
/// list share an id (a shared one is listed once, the other lost).
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

/// One VS Code Copilot Chat mutation log of about `bytes` in workspace
/// `w<n>` (its `workspace.json` is written beside `chatSessions` by
/// `generate`): a full state, then each request appended with its
/// response pushed in two parts, and a title set after the first.
fn copilot_chat_session(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(7, i, 0);
    let mut out = String::with_capacity(bytes + 4096);
    let start = json!({"kind": 0, "v": {"version": 3, "creationDate": 1_780_000_000_000u64 + i as u64 * 1000,
        "customTitle": null, "sessionId": session, "requests": [], "pendingRequests": [],
        "inputState": {"selectedModel": {"metadata": {"maxInputTokens": 127_805}}}}});
    out.push_str(&start.to_string());
    out.push('\n');
    let mut j = 0;
    while out.len() < bytes {
        let lines = [
            json!({"kind": 2, "k": ["requests"], "v": [{"requestId": format!("request_{j}"),
                "timestamp": 1_780_000_000_000u64 + j as u64, "message": {"text": format!("Fix the {} of chat {i}", rng.words(10)), "parts": []},
                "response": [], "modelState": {"value": 0}}]}),
            json!({"kind": 2, "k": ["requests", j, "response"], "v": [{"kind": "thinking", "value": rng.words(300)},
                {"kind": "toolInvocationSerialized", "invocationMessage": rng.words(600), "toolId": "copilot_readFile"}]}),
            json!({"kind": 2, "k": ["requests", j, "response"], "v": [{"value": rng.words(60)}]}),
            json!({"kind": 1, "k": ["requests", j, "modelState"], "v": {"value": 1}}),
        ];
        for line in lines {
            out.push_str(&line.to_string());
            out.push('\n');
        }
        if j == 0 {
            out.push_str(
                &json!({"kind": 1, "k": ["customTitle"], "v": format!("Copilot chat {i}")})
                    .to_string(),
            );
            out.push('\n');
        }
        j += 1;
    }
    (format!("w{}/chatSessions/{session}.jsonl", i % CWDS), out)
}

/// One Gemini CLI chat log of about `bytes`, in the JSONL form under
/// `<project>/chats/` (the project's `.project_root` is written by
/// `generate`): a metadata record, then each turn's prompt, the reply
/// written first with its tool call running and again, under the same id,
/// complete (thoughts, the tool's large result, the text), and a `$set`
/// of `lastUpdated`, as Gemini CLI records a turn.
fn gemini_chat(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(8, i, 0);
    let mut out = String::with_capacity(bytes + 4096);
    let meta = json!({"sessionId": session, "projectHash": format!("{:064x}", i % CWDS),
        "startTime": timestamp(i, 0), "lastUpdated": timestamp(i, 0), "kind": "main"});
    out.push_str(&meta.to_string());
    out.push('\n');
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let call = |status: &str, result: Value| {
            json!([{"id": format!("read_file-{i}-{j}"), "name": "read_file",
                "args": {"file_path": "/home/u/src/lib.rs"}, "result": result,
                "status": status, "timestamp": timestamp(i, j)}])
        };
        let output = json!([{"functionResponse": {"id": format!("read_file-{i}-{j}"),
            "name": "read_file", "response": {"output": rng.words(900)}}}]);
        let lines = [
            json!({"id": format!("u{j}"), "timestamp": timestamp(i, j), "type": "user",
                "content": [{"text": format!("Fix the {} of gemini run {i}", rng.words(10))}]}),
            json!({"id": format!("g{j}"), "timestamp": timestamp(i, j), "type": "gemini",
                "content": "", "toolCalls": call("executing", json!(null)), "model": "gemini-2.5-pro"}),
            json!({"id": format!("g{j}"), "timestamp": timestamp(i, j), "type": "gemini",
                "content": rng.words(60),
                "thoughts": [{"subject": "Reading", "description": rng.words(40), "timestamp": timestamp(i, j)}],
                "toolCalls": call("success", output), "tokens": {"input": 1200, "output": 300},
                "model": "gemini-2.5-pro"}),
            json!({"$set": {"lastUpdated": timestamp(i, j)}}),
        ];
        for line in lines {
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    (
        format!(
            "proj{}/chats/session-2026-11-{:02}T10-00-{}.jsonl",
            i % CWDS,
            1 + i % 28,
            &session[..8]
        ),
        out,
    )
}

/// One hydra session log of about `bytes`, written by the tests' own
/// `LogBuilder` (prompts, long and short replies; every other session
/// titled).
fn hydra_log(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(9, i, 0);
    let cwd = format!("/home/u/proj{}", i % CWDS);
    let created_at = 1_780_000_000_000 + i as u64 * 3_600_000;
    let mut log = lsp_common::LogBuilder::new(&session, created_at, Some(&cwd));
    if i % 2 == 1 {
        log = log.title(&format!("Hydra run {i}: {}", rng.words(4)));
    }
    // The builder joins its lines only when asked: count the bytes here.
    let mut size = 0;
    while size < bytes {
        let prompt = format!("Fix the {} of hydra run {i}", rng.words(10));
        let (long, short) = (rng.words(900), rng.words(60));
        size += prompt.len() + long.len() + short.len() + 3 * 110;
        log = log.user(&prompt).assistant(&long).assistant(&short);
    }
    let day = 1 + i % 28;
    (format!("2026/11/{day:02}/{session}.jsonl"), log.text())
}

/// OpenCode's database of `logs` sessions of about `bytes` each, written
/// at `path` with the tables of `tests/fixtures/opencode/opencode.sql`
/// and OpenCode's indexes: per turn a user message with its prompt part and an assistant message
/// with reasoning, a tool call's large output and its text. Even sessions
/// keep OpenCode's default title (so the title is the first prompt's), odd
/// ones a given one. Returns the bytes of JSON `data` written.
fn opencode_db(rng: &mut support::Lcg, path: &Path, logs: usize, bytes: usize) -> u64 {
    let schema = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/opencode/opencode.sql"
    ))
    .expect("the OpenCode fixture");
    let mut conn = rusqlite::Connection::open(path).expect("create the database");
    let tx = conn.transaction().expect("a transaction");
    for table in schema.lines().filter(|l| l.starts_with("CREATE TABLE")) {
        tx.execute_batch(table).expect("a table");
    }
    // OpenCode's own indexes (its `session.sql.ts`): without them every
    // per-session read scans whole tables, which no real database does.
    tx.execute_batch(
        "CREATE INDEX session_project_idx ON session (project_id);
         CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
         CREATE INDEX part_message_id_id_idx ON part (message_id, id);
         CREATE INDEX part_session_idx ON part (session_id);",
    )
    .expect("the indexes");
    let mut total = 0u64;
    for n in 0..CWDS {
        tx.execute(
            "INSERT INTO project VALUES (?1, ?2, ?3)",
            rusqlite::params![
                format!("prj{n}"),
                format!("/home/u/proj{n}"),
                1_780_000_000_000i64
            ],
        )
        .expect("a project");
    }
    for i in 0..logs {
        let session = format!("ses_{}", uuid(10, i, 0).replace('-', ""));
        let created = 1_780_000_000_000i64 + i as i64 * 3_600_000;
        let title = if i % 2 == 0 {
            format!("New session - {}", timestamp(i, 0))
        } else {
            format!("OpenCode run {i}: {}", rng.words(4))
        };
        let mut size = 0;
        let mut j = 0i64;
        let (mut message, mut part) = (
            tx.prepare_cached("INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)")
                .expect("insert message"),
            tx.prepare_cached("INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)")
                .expect("insert part"),
        );
        while size < bytes {
            j += 1;
            let at = created + j * 10_000;
            let (user, reply) = (format!("msg_{i:05}_{j:06}a"), format!("msg_{i:05}_{j:06}b"));
            let rows = [
                (
                    &user,
                    json!({"role": "user", "agent": "build", "time": {"created": at}}),
                    vec![
                        json!({"type": "text", "text": format!("Fix the {} of opencode run {i}", rng.words(10))}),
                    ],
                ),
                (
                    &reply,
                    json!({"role": "assistant", "parentID": user, "finish": "stop",
                    "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "time": {"created": at, "completed": at + 5_000}}),
                    vec![
                        json!({"type": "reasoning", "text": rng.words(40)}),
                        json!({"type": "tool", "callID": format!("call_{i}_{j}"), "tool": "read",
                        "state": {"status": "completed", "input": {"filePath": "/home/u/src/lib.rs"},
                        "output": rng.words(900), "title": "src/lib.rs", "metadata": {}}}),
                        json!({"type": "text", "text": rng.words(60)}),
                    ],
                ),
            ];
            for (id, data, parts) in rows {
                let data = data.to_string();
                size += data.len();
                message
                    .execute(rusqlite::params![id, session, at, data])
                    .expect("a message");
                for (k, p) in parts.into_iter().enumerate() {
                    let p = p.to_string();
                    size += p.len();
                    part.execute(rusqlite::params![
                        format!("prt_{id}_{k}"),
                        id,
                        session,
                        at,
                        p
                    ])
                    .expect("a part");
                }
            }
        }
        drop((message, part));
        tx.execute(
            "INSERT INTO session VALUES (?1, ?2, NULL, ?3, ?4, ?5, '1.2.0', NULL, ?6, ?7)",
            rusqlite::params![
                session,
                format!("prj{}", i % CWDS),
                format!("slug-{i}"),
                format!("/home/u/proj{}", i % CWDS),
                title,
                created,
                created + j * 10_000
            ],
        )
        .expect("a session");
        total += size as u64;
    }
    tx.commit().expect("commit");
    total
}

/// The store list of the generated tree under `root`, as
/// `initializationOptions.store` takes it: the path, and the format its
/// sessions are in.
fn stores(root: &Path) -> [(std::path::PathBuf, &'static str); 8] {
    [
        ("claude/projects", "claude-code"),
        ("codex/sessions", "codex"),
        ("copilot/session-state", "copilot-cli"),
        ("cursor/projects", "cursor"),
        ("vscode/User", "copilot-chat"),
        ("gemini/tmp", "gemini"),
        ("hydra/sessions", "hydra"),
        ("opencode", "opencode"),
    ]
    .map(|(rel, format)| (root.join(rel), format))
}

/// Writes `logs` sessions of about `bytes` of each format under `root`
/// (the folders of `stores`); returns the bytes written.
fn generate(root: &Path, logs: usize, bytes: usize) -> u64 {
    let mut rng = support::Lcg(7);
    let mut total = 0u64;
    for i in 0..logs {
        for (base, (rel, text)) in [
            ("claude/projects", claude_transcript(&mut rng, i, bytes)),
            ("codex/sessions", codex_rollout(&mut rng, i, bytes)),
            ("copilot/session-state", copilot_session(&mut rng, i, bytes)),
            ("cursor/projects", cursor_transcript(&mut rng, i, bytes)),
            (
                "vscode/User/workspaceStorage",
                copilot_chat_session(&mut rng, i, bytes),
            ),
            ("gemini/tmp", gemini_chat(&mut rng, i, bytes)),
            ("hydra/sessions", hydra_log(&mut rng, i, bytes)),
        ] {
            let path = root.join(base).join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).expect("mkdir");
                if base.starts_with("copilot") {
                    let yaml = format!("name: Copilot run {i}\nuser_named: false\n");
                    std::fs::write(dir.join("workspace.yaml"), yaml).expect("write");
                }
                if base.starts_with("vscode") {
                    let folder = json!({"folder": format!("file:///home/u/proj{}", i % CWDS)});
                    let workspace = dir.parent().expect("a workspace").join("workspace.json");
                    std::fs::write(workspace, folder.to_string()).expect("write");
                }
                if base.starts_with("gemini") {
                    let project = dir.parent().expect("a project");
                    let root = format!("/home/u/proj{}\n", i % CWDS);
                    std::fs::write(project.join(".project_root"), root).expect("write");
                }
            }
            std::fs::write(&path, &text).expect("write");
            total += text.len() as u64;
        }
    }
    let opencode = root.join("opencode");
    std::fs::create_dir_all(&opencode).expect("mkdir");
    total + opencode_db(&mut rng, &opencode.join("opencode.db"), logs, bytes)
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

/// Completion p50 and p95 at the client: each of `queries` (line by line
/// of `uri`) typed 40 times.
async fn completion_percentiles(
    client: &mut Client,
    uri: &str,
    queries: &[&str],
) -> (Duration, Duration) {
    let mut samples = Vec::new();
    let mut by_query: Vec<Vec<Duration>> = vec![Vec::new(); queries.len()];
    for _ in 0..40 {
        for (line, query) in queries.iter().enumerate() {
            let at = Instant::now();
            let _ = complete(client, uri, line, query.len() + 1).await;
            samples.push(at.elapsed());
            by_query[line].push(at.elapsed());
        }
    }
    // Which queries make the tail, on stderr (the table is on stdout).
    for (query, mut times) in queries.iter().zip(by_query) {
        let (p50, p95) = (percentile(&mut times, 0.5), percentile(&mut times, 0.95));
        eprintln!("  @{query}: p50 {} / p95 {}", ms(p50), ms(p95));
    }
    (
        percentile(&mut samples, 0.5),
        percentile(&mut samples, 0.95),
    )
}

/// Fails the bench unless every store lists `logs` sessions and the list
/// holds them all (a shared id, or a format read as none, shows here).
fn assert_every_session_listed(status: &Value, logs: usize, stores: usize) {
    let counts: Vec<(String, u64)> = status["stores"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|s| {
                    let format = s["format"].as_str().unwrap_or_default().to_string();
                    (format, s["sessions"].as_u64().unwrap_or(0))
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(
        counts.len() == stores && counts.iter().all(|(_, n)| *n == logs as u64),
        "not {logs} sessions in each of {stores} stores: {status}"
    );
    assert_eq!(
        status["sessions"].as_u64(),
        Some((logs * stores) as u64),
        "sessions lost from the list: {status}"
    );
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
    // The generated files on disk before anything is measured: the
    // kernel's write-back of 100 MB and more would otherwise run during
    // the completion rounds and show in their tail.
    let _ = std::process::Command::new("sync").status();
    let stores = stores(root.path());
    let claude = &stores[0].0;
    let store_list: Vec<Value> = stores
        .iter()
        .map(|(path, format)| json!({"path": path, "format": format}))
        .collect();

    // Full-text search is on, as it is by default (its index built in the
    // background once the first index is); `AGENTS_BENCH_SEARCH=off`
    // measures without it. Its index is kept in the generated tree, never
    // in the user's cache.
    let search = std::env::var("AGENTS_BENCH_SEARCH").map_or(true, |v| v != "off");
    let cache = root.path().join("cache");
    let (child, mut client) = spawn_server(&[("XDG_CACHE_HOME", cache.as_os_str())]);
    let pid = child.id().unwrap_or(0);
    // Drop the OS page cache's advantage? Not possible unprivileged in
    // general: the figures are for a warm page cache (the generator just
    // wrote the files), as an editor restarted on a used machine sees.
    let started = Instant::now();
    client
        .initialize(json!({
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/home/u/proj7"), "name": "proj7"}],
            "initializationOptions": {"store": store_list, "searchIndex": search},
        }))
        .await;
    let uri = file_uri("/home/u/proj7/prompt.md");
    let queries = [
        "", "t", "ta", "tax", "c", "ca", "cart", "proj3", "ROUND", "zzz", "fix", "run 1",
    ];
    let lines: Vec<String> = queries.iter().map(|q| format!("@{q}")).collect();
    client.open(&uri, &lines.join("\n")).await;
    let first = complete(&mut client, &uri, 0, 1).await;
    let answered = started.elapsed();
    // Completion answers during the first scan with what it has (after a
    // grace): the first index is over when status stops saying indexing.
    while client.call("sessionReference/status", json!({})).await["indexing"] == true {}
    let indexed = started.elapsed();
    let status = client.call("sessionReference/status", json!({})).await;
    let rss_indexed = rss_kib(pid);
    assert!(
        first["items"].as_array().is_some_and(|i| !i.is_empty()),
        "no sessions: {status}"
    );
    assert_every_session_listed(&status, logs, stores.len());

    let (c50, c95) = completion_percentiles(&mut client, &uri, &queries).await;

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

    // The full-text index is built in the background after the first
    // index, on the same cores: completion again once it holds every
    // session, to tell its building from completion's own cost.
    let mut searched = Value::Null;
    let mut search_built = None;
    while search && started.elapsed() < Duration::from_secs(300) {
        searched = client.call("sessionReference/status", json!({})).await["search"].clone();
        if searched["behind"] == 0 && searched["sessions"] == logs * stores.len() {
            search_built = Some(started.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let built_completion = match search_built {
        Some(_) => Some(completion_percentiles(&mut client, &uri, &queries).await),
        None => None,
    };
    // Those rounds came right after the build and the append, while the
    // index's last merges and the re-search of completion's body matches
    // for the changed store ran beside them. Once that work is done (a
    // round later), completion with search on in the steady state.
    let steady_completion = match search_built {
        Some(_) => {
            let _ = completion_percentiles(&mut client, &uri, &queries).await;
            Some(completion_percentiles(&mut client, &uri, &queries).await)
        }
        None => None,
    };

    let per_store: Vec<String> = status["stores"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            format!(
                "{} {} ({} skipped lines)",
                s["sessions"], s["format"], s["skippedLines"]
            )
        })
        .collect();
    let mut table = String::new();
    let _ = writeln!(table, "| measure | result | goal |\n|---|---|---|");
    let _ = writeln!(
        table,
        "| stores | {} sessions of each of {} formats, {} MB: {} | |",
        logs,
        stores.len(),
        bytes / 1_000_000,
        per_store.join(", ")
    );
    let _ = writeln!(
        table,
        "| first index (initialize → status no longer indexing) | {:.2} s | ≤ 3 s |",
        indexed.as_secs_f64()
    );
    let _ = writeln!(
        table,
        "| first completion answered (initialize → answer) | {:.2} s | |",
        answered.as_secs_f64()
    );
    let _ = writeln!(
        table,
        "| completion p50 / p95 at the client ({} requests over {} queries) | {} / {} | p95 ≤ 2 ms |",
        40 * queries.len(),
        queries.len(),
        ms(c50),
        ms(c95)
    );
    let _ = writeln!(
        table,
        "| hover cold / warm p50 / warm p95 | {} / {} / {} | warm ≤ 10 ms |",
        ms(hover_cold),
        ms(h50),
        ms(h95)
    );
    let _ = writeln!(
        table,
        "| appended `custom-title` → completion | {} | ≤ 200 ms |",
        appended.map_or("not seen in 10 s".to_string(), ms)
    );
    let _ = writeln!(
        table,
        "| full-text index built (initialize → it holds every session) | {} | |",
        match search_built {
            _ if !search => "off (`AGENTS_BENCH_SEARCH=off`)".to_string(),
            Some(at) => format!("{:.2} s", at.as_secs_f64()),
            None => format!("not in 300 s: {searched}"),
        }
    );
    if let Some((b50, b95)) = built_completion {
        let _ = writeln!(
            table,
            "| completion p50 / p95 once the full-text index is built (just after it, and after the append) | {} / {} | p95 ≤ 2 ms |",
            ms(b50),
            ms(b95)
        );
    }
    if let Some((s50, s95)) = steady_completion {
        let _ = writeln!(
            table,
            "| completion p50 / p95 two rounds later (the index up to date, nothing else running) | {} / {} | p95 ≤ 2 ms |",
            ms(s50),
            ms(s95)
        );
    }
    let _ = writeln!(
        table,
        "| RSS indexed / at the end | {:.1} MiB / {:.1} MiB | |",
        rss_indexed as f64 / 1024.0,
        rss_end as f64 / 1024.0
    );
    println!("{table}");
    client.shutdown_and_exit().await;
}
