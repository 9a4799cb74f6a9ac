//! A test client for the language server: JSON-RPC with Content-Length
//! framing over any byte pipe — OS pipes to the in-process server, or the
//! real binary's stdin/stdout.
//!
//! Requests the server sends (`workspace/configuration`,
//! `window/workDoneProgress/create`) are answered automatically and kept,
//! like every notification, in a backlog that tests search.

#![allow(dead_code)]

pub mod in_place;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// Long enough for a slow CI machine, short enough to fail a hung test.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub struct TestClient<R, W> {
    reader: BufReader<R>,
    writer: W,
    next_id: i64,
    backlog: VecDeque<Value>,
    /// The answer to `workspace/configuration` pulls (one item).
    pub configuration: Value,
    /// Whether requests from the server are answered (a hostile client
    /// leaves them unanswered).
    pub answer_requests: bool,
}

pub type InProcess = TestClient<tokio::net::unix::pipe::Receiver, tokio::net::unix::pipe::Sender>;

/// The server in this process (its reader, writer and main loop on
/// threads of their own) over two OS pipes, as the binary over stdio; its
/// exit status comes out of the join handle.
pub fn in_process() -> (InProcess, JoinHandle<i32>) {
    // Logs go to stderr, as in the real server (`RUST_LOG=debug` to see them).
    hydra_session_lsp::server::logging::init();
    cache_home();
    let (server_in, client_out) = std::io::pipe().expect("pipe");
    let (client_in, server_out) = std::io::pipe().expect("pipe");
    let server = tokio::task::spawn_blocking(move || {
        hydra_session_lsp::server::serve(server_in, server_out)
    });
    let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(client_in.into())
        .expect("the client's reading end");
    let writer = tokio::net::unix::pipe::Sender::from_owned_fd(client_out.into())
        .expect("the client's writing end");
    (TestClient::new(reader, writer), server)
}

/// The cache folder of this process's in-process servers (the search
/// index's place), under the target dir: `XDG_CACHE_HOME` is pointed at
/// it before the first server starts, so no test writes to the user's
/// cache. A test that looks at what a server writes there runs the binary
/// with a cache of its own.
pub fn cache_home() -> &'static Path {
    static CACHE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    CACHE
        .get_or_init(|| {
            let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
            std::env::set_var("XDG_CACHE_HOME", dir.path());
            dir
        })
        .path()
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> TestClient<R, W> {
    pub fn new(reader: R, writer: W) -> Self {
        TestClient {
            reader: BufReader::new(reader),
            writer,
            next_id: 0,
            backlog: VecDeque::new(),
            configuration: json!({}),
            answer_requests: true,
        }
    }

    /// The reading and writing halves, for a test that drives them apart.
    pub fn into_parts(self) -> (BufReader<R>, W) {
        (self.reader, self.writer)
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer
            .write_all(bytes)
            .await
            .expect("write to the server");
        self.writer.flush().await.expect("flush to the server");
    }

    pub async fn send(&mut self, message: &Value) {
        let body = serde_json::to_vec(message).expect("serialise");
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(&body);
        self.send_raw(&framed).await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request without waiting; its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message).await;
        id
    }

    /// Sends a request and returns the whole response message.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// The `result` of a request that must succeed.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let mut response = self.request(method, params).await;
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        // Taken, not cloned: a deep copy of a large answer would be the
        // client's cost in every bench that times a call.
        response["result"].take()
    }

    pub async fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("the response to request {id}"), |m| {
            m.get("method").is_none() && m["id"] == json!(id)
        })
        .await
    }

    /// The next message read from the server (not from the backlog), or
    /// `None` at end of stream.
    async fn read(&mut self) -> Option<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).await.ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length:") {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length?];
        self.reader.read_exact(&mut body).await.ok()?;
        let message: Value = serde_json::from_slice(&body).expect("the server sends JSON");
        if self.answer_requests && message.get("method").is_some() && message.get("id").is_some() {
            self.answer(&message).await;
        }
        Some(message)
    }

    /// Answers a request from the server.
    async fn answer(&mut self, request: &Value) {
        let result = match request["method"].as_str() {
            Some("workspace/configuration") => json!([self.configuration.clone()]),
            _ => Value::Null,
        };
        let id = request["id"].clone();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    /// The first message (backlog first) matching `pred`, removed from the
    /// backlog; panics after [`PATIENCE`].
    pub async fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).expect("present");
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            match tokio::time::timeout_at(deadline, self.read()).await {
                Ok(Some(message)) if pred(&message) => return message,
                Ok(Some(message)) => self.backlog.push_back(message),
                Ok(None) => panic!("the server closed the stream while we waited for {what}"),
                Err(_) => panic!("timed out waiting for {what}; backlog: {:#?}", self.backlog),
            }
        }
    }

    /// Notifications with this method received so far (drains them), after
    /// reading whatever is already waiting up to a round trip.
    pub async fn drain(&mut self, method: &str) -> Vec<Value> {
        // A round trip makes sure everything sent before it has arrived.
        let _ = self.request("sessionReference/status", json!({})).await;
        let mut out = Vec::new();
        self.backlog.retain(|m| {
            if m["method"] == method {
                out.push(m.clone());
                false
            } else {
                true
            }
        });
        out
    }

    /// The next `publishDiagnostics` for `uri` at `version`.
    pub async fn diagnostics(&mut self, uri: &str, version: i64) -> Value {
        let what = format!("diagnostics of {uri} version {version}");
        let message = self
            .wait_for(&what, |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == json!(version)
            })
            .await;
        message["params"]["diagnostics"].clone()
    }

    /// `initialize` + `initialized`; the initialize result.
    pub async fn initialize(&mut self, params: Value) -> Value {
        let result = self.call("initialize", params).await;
        self.notify("initialized", json!({})).await;
        result
    }

    /// Initialises with `store` as the store and `workspace` as the only
    /// workspace folder, UTF-16 positions, spilling and the search index
    /// disabled (tests never write to the user's cache; spill tests
    /// configure `spillDir`, search tests use [`Self::start_searching`]).
    pub async fn start(&mut self, store: &Path, workspace: &str) -> Value {
        self.start_with(store, workspace, json!({"searchIndex": false}))
            .await
    }

    /// [`Self::start`] with full-text search on (its index under the
    /// process's `XDG_CACHE_HOME`, which the test points elsewhere).
    pub async fn start_searching(&mut self, store: &Path, workspace: &str) -> Value {
        self.start_with(store, workspace, json!({})).await
    }

    /// [`Self::start`] with more settings.
    pub async fn start_with(&mut self, store: &Path, workspace: &str, settings: Value) -> Value {
        let mut options = json!({"store": store, "spillDir": ""});
        if let (Some(options), Value::Object(more)) = (options.as_object_mut(), settings) {
            options.extend(more);
        }
        self.initialize(json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri(workspace), "name": "ws"}],
            "initializationOptions": {"hydraSession": options},
        }))
        .await
    }

    pub async fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        )
        .await;
    }

    pub async fn shutdown_and_exit(&mut self) {
        let _ = self.call("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
    }
}

/// A client of the built binary over its stdin/stdout.
pub type ProcessClient = TestClient<tokio::process::ChildStdout, tokio::process::ChildStdin>;

/// The built server, its stdin and stdout piped, killed when dropped, with
/// the agents' default stores kept out (the machine's own must not leak
/// in) and the tests' cache ([`cache_home`]); add `.env(…)` before
/// `spawn`.
pub fn server_command() -> tokio::process::Command {
    server_command_of(env!("CARGO_BIN_EXE_hydra-session-lsp"))
}

/// [`server_command`]'s environment and pipes around `program` (a wrapper
/// that starts the server, such as `unshare`).
pub fn server_command_of(program: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program);
    command
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .env("XDG_CACHE_HOME", cache_home())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Starts `command` (see [`server_command`]); the client and the child.
pub fn spawn(mut command: tokio::process::Command) -> (ProcessClient, tokio::process::Child) {
    let mut child = command.spawn().expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (TestClient::new(stdout, stdin), child)
}

pub fn file_uri(path: &str) -> String {
    let mut uri = String::from("file://");
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri
}

/// The demo store copied into a fresh temporary directory.
pub fn demo_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sessions"),
        dir.path(),
    );
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// One session log: a header and user/assistant turns (and a title).
pub struct LogBuilder {
    lines: Vec<String>,
    seq: u64,
}

impl LogBuilder {
    pub fn new(id: &str, created_at: u64, cwd: Option<&str>) -> Self {
        let mut header =
            json!({"type": "session", "version": 1, "id": id, "createdAt": created_at});
        if let Some(cwd) = cwd {
            header["cwd"] = json!(cwd);
        }
        LogBuilder {
            lines: vec![header.to_string()],
            seq: 0,
        }
    }

    fn event(mut self, kind: &str, data: Value) -> Self {
        self.seq += 1;
        self.lines
            .push(json!({"seq": self.seq, "type": kind, "data": data}).to_string());
        self
    }

    pub fn user(self, text: &str) -> Self {
        self.event(
            "user/message",
            json!({"source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}),
        )
    }

    pub fn assistant(self, text: &str) -> Self {
        self.event(
            "assistant/message",
            json!({"message": {"content": [{"type": "text", "text": text}]}}),
        )
    }

    pub fn title(self, title: &str) -> Self {
        self.event("session/title", json!({"title": title}))
    }

    pub fn text(&self) -> String {
        let mut out = self.lines.join("\n");
        out.push('\n');
        out
    }

    pub fn write(&self, path: &Path) -> PathBuf {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, self.text()).expect("write log");
        path.to_path_buf()
    }
}

/// The canonical mention of `id` with `label`.
pub fn mention(id: &str, label: &str) -> String {
    hydra_session_lsp::reference::mention::format(id, Some(label))
}

pub fn uri_of(id: &str) -> String {
    hydra_session_lsp::reference::uri::encode(id)
}

/// A store of two sessions whose titles attack an editor or a terminal: a
/// clear-screen and a bell (`ansi`), a line break and a right-to-left
/// override (`two-lines`).
pub fn hostile_titles_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    LogBuilder::new("ansi", 2_000, Some("/w"))
        .title("\u{1b}[2J\u{1b}[31mred\u{7}")
        .write(&dir.path().join("ansi.jsonl"));
    LogBuilder::new("two-lines", 1_000, Some("/w"))
        .title("first line\nsecond line\u{202E}cba")
        .write(&dir.path().join("two-lines.jsonl"));
    dir
}
