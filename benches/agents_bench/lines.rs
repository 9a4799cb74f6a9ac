//! Line logs: one JSON object a line, as each agent appends them.

use serde_json::{json, Value};

use crate::common::{timestamp, uuid, Words, CWDS};
use crate::{lsp_common, support};

/// One Claude Code transcript of about `bytes`: prompts, split assistant
/// messages, tool calls with large results, as Claude Code writes them.
pub fn claude_transcript(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
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
pub fn codex_rollout(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
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
pub fn copilot_session(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
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
pub fn cursor_transcript(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
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
pub fn copilot_chat_session(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
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
pub fn gemini_chat(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
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
pub fn hydra_log(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
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

/// One Pi session file of about `bytes` (v3: a tree by `id`/`parentId`,
/// each entry the child of the one before), under Pi's
/// `--<cwd>--/<ts>_<id>.jsonl`: prompts, replies with a tool call, the
/// tool's large result; every other session named by `session_info`.
pub fn pi_session(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(12, i, 0);
    let cwd = format!("/home/u/proj{}", i % CWDS);
    let mut out = String::with_capacity(bytes + 4096);
    let header = json!({"type": "session", "version": 3, "id": session,
        "timestamp": timestamp(i, 0), "cwd": cwd});
    out.push_str(&header.to_string());
    out.push('\n');
    let mut parent = Value::Null;
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let id = format!("{:08x}", i * 100_000 + j);
        let message = match j % 3 {
            1 => json!({"role": "user", "content": [{"type": "text",
                "text": format!("Fix the {} of pi run {i}", rng.words(10))}], "timestamp": 1}),
            2 => json!({"role": "assistant", "content": [{"type": "text", "text": rng.words(60)},
                {"type": "toolCall", "id": format!("call_{j}"), "name": "read",
                 "arguments": {"path": "src/lib.rs"}}],
                "provider": "openai", "model": "gpt-5", "stopReason": "toolUse"}),
            _ => json!({"role": "toolResult", "toolCallId": format!("call_{}", j - 1),
                "toolName": "read", "content": [{"type": "text", "text": rng.words(900)}],
                "isError": false}),
        };
        let entry = json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": timestamp(i, j), "message": message});
        out.push_str(&entry.to_string());
        out.push('\n');
        parent = Value::String(id);
        if j == 2 && i % 2 == 1 {
            let name = json!({"type": "session_info", "id": format!("n{i:07}"), "parentId": parent,
                "timestamp": timestamp(i, j), "name": format!("Pi run {i}: {}", rng.words(4))});
            out.push_str(&name.to_string());
            out.push('\n');
            parent = Value::String(format!("n{i:07}"));
        }
    }
    let stamp = timestamp(i, 0).replace([':', '.'], "-");
    (
        format!("--home-u-proj{}--/{stamp}_{session}.jsonl", i % CWDS),
        out,
    )
}

/// One Qwen Code chat of about `bytes` under
/// `<project>/chats/<sessionId>.jsonl`: `ChatRecord`s chained by
/// `parentUuid` — a prompt, the model's reply with a function call, the
/// tool's large result; every other session titled by `custom_title`.
pub fn qwen_chat(rng: &mut support::Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(13, i, 0);
    let cwd = format!("/home/u/proj{}", i % CWDS);
    let mut out = String::with_capacity(bytes + 4096);
    let mut parent = Value::Null;
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let id = uuid(14, i, j);
        let mut record = json!({"uuid": id, "parentUuid": parent, "sessionId": session,
            "timestamp": timestamp(i, j), "cwd": cwd, "version": "0.24.0", "gitBranch": "main"});
        match j % 3 {
            1 => {
                record["type"] = json!("user");
                record["message"] = json!({"role": "user", "parts": [{"text":
                    format!("Fix the {} of qwen run {i}", rng.words(10))}]});
            }
            2 => {
                record["type"] = json!("assistant");
                record["model"] = json!("qwen3-coder-plus");
                record["contextWindowSize"] = json!(131_072);
                record["message"] = json!({"role": "model", "parts": [{"text": rng.words(60)},
                    {"functionCall": {"id": format!("call_{j}"), "name": "read_file",
                     "args": {"absolute_path": "/home/u/src/lib.rs"}}}]});
            }
            _ => {
                record["type"] = json!("tool_result");
                record["message"] = json!({"role": "user", "parts": [{"functionResponse": {
                    "id": format!("call_{}", j - 1), "name": "read_file",
                    "response": {"output": rng.words(900)}}}]});
            }
        }
        out.push_str(&record.to_string());
        out.push('\n');
        parent = Value::String(id);
        if j == 3 && i % 2 == 1 {
            let id = uuid(15, i, j);
            let title = json!({"uuid": id, "parentUuid": parent, "sessionId": session,
                "timestamp": timestamp(i, j), "type": "system", "subtype": "custom_title",
                "cwd": cwd, "version": "0.24.0",
                "systemPayload": {"customTitle": format!("Qwen run {i}: {}", rng.words(4)), "titleSource": "auto"}});
            out.push_str(&title.to_string());
            out.push('\n');
            parent = Value::String(id);
        }
    }
    (
        format!("-home-u-proj{}/chats/{session}.jsonl", i % CWDS),
        out,
    )
}
