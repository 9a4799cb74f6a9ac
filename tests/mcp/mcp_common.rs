//! A test client for `hydra-session-lsp mcp`: newline-delimited JSON-RPC
//! over the real binary's stdin and stdout. Every line the server writes
//! must be a JSON-RPC message (stdout carries nothing else); notifications
//! and server requests are kept in a backlog that tests search.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::Instant;

/// Long enough for a slow CI machine, short enough to fail a hung test.
pub const PATIENCE: Duration = Duration::from_secs(30);

pub struct McpClient {
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
    pub backlog: VecDeque<Value>,
    /// Where the spills and index caches go: never the user's.
    pub cache: PathBuf,
}

/// The binary with the machine's own stores and caches kept out.
pub fn command(args: &[&str], cwd: &Path, cache: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
    command
        .args(args)
        .current_dir(cwd)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env_remove("HYDRA_SESSION_MCP_PROTOCOL")
        .env("XDG_CACHE_HOME", cache)
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent");
    command
}

impl McpClient {
    /// `mcp ARGS` started in `cwd`.
    pub fn spawn(args: &[&str], cwd: &Path, cache: &Path) -> Self {
        Self::spawn_env(args, cwd, cache, &[])
    }

    /// `mcp ARGS` started in `cwd` with the variables `env` set.
    pub fn spawn_env(args: &[&str], cwd: &Path, cache: &Path, env: &[(&str, &str)]) -> Self {
        let mut full = vec!["mcp"];
        full.extend_from_slice(args);
        let mut command = command(&full, cwd, cache);
        command.envs(env.iter().copied());
        let mut child = Command::from(command)
            .kill_on_drop(true)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        McpClient {
            child,
            stdin,
            stdout,
            next_id: 0,
            backlog: VecDeque::new(),
            cache: cache.to_path_buf(),
        }
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).await.expect("write to the server");
        stdin.flush().await.expect("flush");
    }

    pub async fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).expect("serialise");
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request; its id.
    pub async fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message).await;
        id
    }

    /// The next message the server writes; `None` at the end of its output.
    pub async fn next_message(&mut self, deadline: Instant) -> Option<Value> {
        let mut line = String::new();
        let read = tokio::time::timeout_at(deadline, self.stdout.read_line(&mut line))
            .await
            .expect("the server answers in time")
            .expect("read stdout");
        if read == 0 {
            return None;
        }
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout holds only JSON-RPC: {e}: {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        Some(message)
    }

    /// The whole answer (result or error) to request `id`.
    pub async fn answer(&mut self, id: i64) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let message = self
                .next_message(deadline)
                .await
                .expect("the server answers before it ends");
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// A request's result; panics on an error answer.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params).await;
        let answer = self.answer(id).await;
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// Waits for a notification or server request with this method.
    pub async fn wait_for(&mut self, method: &str) -> Value {
        if let Some(at) = self.backlog.iter().position(|m| m["method"] == method) {
            return self.backlog.remove(at).expect("present");
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let message = self
                .next_message(deadline)
                .await
                .unwrap_or_else(|| panic!("the server ended before {method}"));
            if message["method"] == method {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// `initialize` (with `capabilities`) and `notifications/initialized`;
    /// the initialize result.
    pub async fn initialize_with(&mut self, version: &str, capabilities: Value) -> Value {
        let result = self
            .call(
                "initialize",
                json!({
                    "protocolVersion": version,
                    "capabilities": capabilities,
                    "clientInfo": {"name": "mcp-test", "version": "1"}
                }),
            )
            .await;
        self.notify("notifications/initialized", json!({})).await;
        result
    }

    pub async fn initialize(&mut self) -> Value {
        self.initialize_with("2025-11-25", json!({})).await
    }

    /// Closes stdin; the exit status once the server ends.
    pub async fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        tokio::time::timeout(PATIENCE, self.child.wait())
            .await
            .expect("the server ends at the end of its input")
            .expect("wait")
    }
}

/// The text of a `resources/read` result's one content.
pub fn read_text(result: &Value) -> String {
    let contents = result["contents"].as_array().expect("contents");
    assert_eq!(contents.len(), 1, "{result}");
    contents[0]["text"].as_str().expect("text").to_string()
}

/// The text of a tool result's one block.
pub fn tool_text(result: &Value) -> String {
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "{result}");
    content[0]["text"].as_str().expect("text").to_string()
}

/// Whether `value` follows `schema`, for the part of JSON Schema the
/// tools' schemas use (`type`, `properties`, `required`, `items`,
/// `additionalProperties: false`, `anyOf`): the reasons it does not.
pub fn schema_errors(schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(kind) = schema["type"].as_str() {
        let fits = match kind {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            other => panic!("a type this check does not know: {other}"),
        };
        if !fits {
            return vec![format!("{at}: not {kind}: {value}")];
        }
    }
    if let Some(required) = schema["required"].as_array() {
        for name in required.iter().filter_map(Value::as_str) {
            if value.get(name).is_none() {
                errors.push(format!("{at}: no {name}"));
            }
        }
    }
    if let (Some(properties), Some(object)) = (schema["properties"].as_object(), value.as_object())
    {
        for (name, member) in object {
            match properties.get(name) {
                Some(sub) => errors.extend(schema_errors(sub, member, &format!("{at}.{name}"))),
                None if schema["additionalProperties"] == json!(false) => {
                    errors.push(format!("{at}: {name} is not allowed"))
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            errors.extend(schema_errors(items, item, &format!("{at}[{i}]")));
        }
    }
    if let Some(any) = schema["anyOf"].as_array() {
        if !any.iter().any(|s| schema_errors(s, value, at).is_empty()) {
            errors.push(format!("{at}: fits none of anyOf"));
        }
    }
    errors
}
