//! Hostile input at the protocol edge (issue 10), against the built binary
//! over stdio: nothing a client sends may stop the server from answering
//! `status`, `shutdown`, `exit` or EOF.

use crate::lsp_common;

use std::process::Stdio;
use std::time::Duration;

use lsp_common::*;
use serde_json::{json, Value};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

type ProcessClient = TestClient<ChildStdout, ChildStdin>;

fn spawn(store: &std::path::Path) -> (ProcessClient, Child) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .env("HYDRA_SESSION_STORE", store)
        .env("XDG_CACHE_HOME", cache_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (TestClient::new(stdout, stdin), child)
}

/// The exit status, failing the test when the process does not end within
/// `patience`.
async fn exit_status(child: &mut Child, patience: Duration) -> Option<i32> {
    let exit = tokio::time::timeout(patience, child.wait())
        .await
        .expect("the server exits promptly");
    exit.expect("wait").code()
}

/// Issue 10 item 2: `"@[a](hydra-session:" × n` was quadratic (a 380 KB
/// document cost ~19 s of CPU per open in a release build, far more in a
/// test build), hover scanned on the async workers, and `status` stopped
/// answering. Now the open, a hover and `status` are all answered at once.
#[tokio::test]
async fn a_document_of_unclosed_mentions_does_not_stall_the_server() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri("/home/ana/shop/hostile.md");
    let text = "@[a](hydra-session:".repeat(20_000);
    client.open(&uri, &text).await;
    let started = std::time::Instant::now();
    let hover = client
        .send_request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 190_000}}),
        )
        .await;
    // `status` never waits (for the index either): it answers at once.
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["store"], json!(store.path().display().to_string()));
    let hover = client.response(hover).await;
    assert_eq!(hover["result"], Value::Null, "{hover}");
    assert_eq!(client.diagnostics(&uri, 1).await, json!([]));
    // A hang guard, not a timing goal (the benches hold those): before the
    // fix this took minutes in a test build.
    assert!(started.elapsed() < Duration::from_secs(10));
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Issue 10 item 7: `sessionReference/prepare` of a document that is not
/// open followed `file:///dev/zero` and grew to gigabytes.
#[tokio::test]
async fn prepare_of_an_unopened_device_fails_at_once() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    for uri in ["file:///dev/zero", "file:///"] {
        let response = client
            .request(
                "sessionReference/prepare",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        assert_eq!(response["error"]["code"], -32602, "{response}");
        let message = response["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("not a regular file"), "{message}");
    }
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Initialises a client that says it answers `workspace/configuration`.
async fn start_pulling(client: &mut ProcessClient, store: &std::path::Path) {
    client
        .initialize(json!({
            "processId": null,
            "capabilities": {"workspace": {"configuration": true}},
            "workspaceFolders": [{"uri": file_uri("/home/ana/shop"), "name": "shop"}],
            "initializationOptions": {"hydraSession": {"store": store}},
        }))
        .await;
}

/// Issue 10 item 3: 33 `workspace/configuration` requests left unanswered
/// held every concurrency slot; `status`, `exit` and EOF were ignored.
#[tokio::test]
async fn unanswered_configuration_pulls_hold_nothing_back() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.answer_requests = false;
    start_pulling(&mut client, store.path()).await;
    for _ in 0..40 {
        client
            .notify(
                "workspace/didChangeConfiguration",
                json!({"settings": null}),
            )
            .await;
    }
    // `status` never waits (for the index either).
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["store"], json!(store.path().display().to_string()));
    // Work still goes through too.
    let candidates = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": file_uri("/home/ana/shop/p.md")}}),
        )
        .await;
    assert_eq!(candidates.as_array().map(Vec::len), Some(4));
    // A pull was sent and is still unanswered (a server that never pulled
    // would pass everything above); one at a time, the 39 asks made
    // meanwhile folded into one more, which waits for its answer.
    client
        .wait_for("a configuration pull", |m| {
            m["method"] == "workspace/configuration"
        })
        .await;
    let more = client.drain("workspace/configuration").await.len();
    assert_eq!(more, 0, "one pull at a time, not {}", 1 + more);
    client.notify("exit", Value::Null).await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(1));
}

/// Issue 10 item 3: one unanswered server request kept the process alive
/// after stdin closed.
#[tokio::test]
async fn end_of_input_ends_the_process_despite_an_unanswered_pull() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.answer_requests = false;
    start_pulling(&mut client, store.path()).await;
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": null}),
        )
        .await;
    client
        .wait_for("the configuration pull", |m| {
            m["method"] == "workspace/configuration"
        })
        .await;
    drop(client);
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(1));
}

/// Issue 10 item 4: a `Content-Length` too small, or none at all, left the
/// server deaf to every later message.
#[tokio::test]
async fn bad_framing_costs_one_message_only() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    let body = r#"{"jsonrpc":"2.0","id":900,"method":"sessionReference/status","params":{}}"#;
    // Too small: the rest of the body runs into the next header.
    client
        .send_raw(format!("Content-Length: 10\r\n\r\n{body}").as_bytes())
        .await;
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["store"], json!(store.path().display().to_string()));
    let parse = client
        .wait_for("the parse error of the short frame", |m| {
            m["error"]["code"] == -32700
        })
        .await;
    assert_eq!(parse["id"], Value::Null);
    // No Content-Length at all: an error, then the next message is read.
    client
        .send_raw(format!("Content-Type: application/json\r\n\r\n{body}").as_bytes())
        .await;
    client
        .wait_for("the error for the missing length", |m| {
            m["error"]["code"] == -32700
        })
        .await;
    let candidates = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": file_uri("/home/ana/shop/p.md")}}),
        )
        .await;
    assert_eq!(candidates.as_array().map(Vec::len), Some(4));
    // A well-formed hover after all that is served too.
    let uri = file_uri("/home/ana/shop/p.md");
    client.open(&uri, "hello").await;
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    assert_eq!(hover["result"], Value::Null, "{hover}");
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Issue 10 item 12: Eglot and LSP4IJ send `shutdown` with `"params":
/// null`; it got −32602 and the exit status was then 1.
#[tokio::test]
async fn shutdown_with_null_params_is_accepted() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    client.start(store.path(), "/home/ana/shop").await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 77, "method": "shutdown", "params": null}))
        .await;
    let response = client.response(77).await;
    assert_eq!(response["result"], Value::Null, "{response}");
    assert!(response.get("error").is_none(), "{response}");
    // After shutdown, requests are refused and `exit` gives 0.
    let refused = client.request("sessionReference/status", json!({})).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    client
        .send(&json!({"jsonrpc": "2.0", "method": "exit", "params": null}))
        .await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Resident memory of process `pid`, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// One message from the server's stdout.
async fn read_message(reader: &mut tokio::io::BufReader<ChildStdout>) -> Option<Value> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.ok()? == 0 {
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
    reader.read_exact(&mut body).await.ok()?;
    serde_json::from_slice(&body).ok()
}

/// Issue 10 item 8: 10,000 pipelined `prepare`s from a client that did not
/// read pushed the server to 685 MB (the outgoing queue was unbounded).
/// Now input is not read while output is not drained: memory stays near
/// its start while nobody reads, and every request is still answered.
#[tokio::test]
async fn a_client_that_does_not_read_cannot_make_the_server_grow() {
    const REQUESTS: usize = 3000;
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    let pid = child.id().expect("pid");
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri("/home/ana/shop/prompt.md");
    let prompt = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/prompt.md"),
    )
    .expect("demo prompt");
    client.open(&uri, &prompt).await;
    let params = json!({"textDocument": {"uri": uri}});
    let one = client
        .call("sessionReference/prepare", params.clone())
        .await;
    let answer_bytes = one.to_string().len();
    assert!(
        answer_bytes > 50_000,
        "each answer is large: {answer_bytes}"
    );
    let start_rss = rss(pid);
    let (mut reader, mut writer) = client.into_parts();
    let sender = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        for id in 0..REQUESTS {
            let body = json!({"jsonrpc": "2.0", "id": 10_000 + id, "method": "sessionReference/prepare", "params": params}).to_string();
            let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
            if writer.write_all(framed.as_bytes()).await.is_err() {
                return None;
            }
        }
        Some(writer)
    });
    // While nobody reads: watch memory for a fixed window (a measurement
    // window, not a synchronisation: the sender stays blocked by design).
    // The window never ends early: a server without backpressure takes
    // every request at once, and the sender finishing inside the window
    // is exactly that failure.
    let mut peak = start_rss;
    let window = tokio::time::Instant::now() + Duration::from_secs(4);
    while tokio::time::Instant::now() < window {
        peak = peak.max(rss(pid));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !sender.is_finished(),
        "all {REQUESTS} requests were taken while no answer was read: no backpressure"
    );
    // Unbounded, the answers read so far would be queued: REQUESTS × ~70 KB.
    let unbounded = (REQUESTS * answer_bytes) as u64;
    // Now read every answer.
    let mut answered = 0;
    while answered < REQUESTS {
        let message = tokio::time::timeout(PATIENCE, read_message(&mut reader))
            .await
            .expect("answers keep coming")
            .expect("the server is still there");
        if message.get("method").is_none() && message["id"].as_u64().is_some_and(|id| id >= 10_000)
        {
            assert!(message.get("result").is_some(), "{message}");
            answered += 1;
        }
        if answered % 100 == 0 {
            peak = peak.max(rss(pid));
        }
    }
    let writer = sender
        .await
        .expect("sender")
        .expect("every request written");
    let grown = peak.saturating_sub(start_rss);
    eprintln!("start {start_rss} B, peak {peak} B, answers pending {unbounded} B");
    assert!(
        grown < unbounded / 4,
        "grew by {grown} bytes while {unbounded} bytes of answers were pending"
    );
    drop(writer);
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(1));
}

/// The server under an address-space limit (`ulimit -v`, in KiB), so an
/// allocation for a huge input fails instead of swapping.
fn spawn_limited(store: &std::path::Path, vm_kib: u64) -> (ProcessClient, Child) {
    let mut child = Command::new("bash")
        .args([
            "-c",
            &format!("ulimit -v {vm_kib} && exec \"$0\""),
            env!("CARGO_BIN_EXE_hydra-session-lsp"),
        ])
        .env("HYDRA_SESSION_STORE", store)
        .env("XDG_CACHE_HOME", cache_home())
        // Few malloc arenas: the address space stays near what is used.
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (TestClient::new(stdout, stdin), child)
}

/// The titles the server offers, polled until `want` is among them.
async fn until_title(client: &mut ProcessClient, want: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let found = client
            .call(
                "sessionReference/candidates",
                json!({"textDocument": {"uri": file_uri("/home/ana/shop/p.md")}}),
            )
            .await;
        let titles: Vec<String> = found
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["label"].as_str().map(String::from))
            .collect();
        if titles.iter().any(|t| t == want) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no title {want:?} in time: {titles:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Issue 10 item 1: a watched log that grew by 100 GB at once aborted the
/// server ("memory allocation of 107374182292 bytes failed"); smaller
/// growths cost memory equal to the growth. Under a 600 MB address-space
/// limit, a 700 MB growth without a newline is now read through in bounded
/// chunks, and later appends are still followed.
#[tokio::test]
async fn a_huge_growth_of_a_watched_log_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.jsonl");
    LogBuilder::new("grower", 1_764_400_009_000, Some("/home/ana/shop"))
        .user("hi")
        .title("One")
        .write(&path);
    let (mut client, mut child) = spawn_limited(dir.path(), 600_000);
    client.start(dir.path(), "/home/ana/shop").await;
    until_title(&mut client, "One").await;
    let size = std::fs::metadata(&path).expect("log").len();
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    file.set_len(size + (700 << 20)).expect("grow");
    // The zeros and this line are one over-long line: skipped.
    let mut file = file;
    use std::io::Write;
    writeln!(
        file,
        r#"{{"seq":3,"type":"session/title","data":{{"title":"Hidden"}}}}"#
    )
    .expect("append");
    writeln!(
        file,
        r#"{{"seq":4,"type":"session/title","data":{{"title":"Three"}}}}"#
    )
    .expect("append");
    drop(file);
    until_title(&mut client, "Three").await;
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Issue 10 item 10: a log replaced by an atomic rename (how many tools
/// write files) kept its old id, and the new session never showed until a
/// restart.
#[tokio::test]
async fn a_log_replaced_by_a_rename_shows_its_new_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.jsonl");
    LogBuilder::new("before", 1_764_400_009_000, Some("/home/ana/shop"))
        .user("hi")
        .title("Before")
        .write(&path);
    let (mut client, mut child) = spawn(dir.path());
    client.start(dir.path(), "/home/ana/shop").await;
    until_title(&mut client, "Before").await;
    let fresh = dir.path().join("s.jsonl.tmp");
    LogBuilder::new("after", 1_764_400_010_000, Some("/home/ana/shop"))
        .user("a longer first message, so that the new file is larger")
        .assistant("and an answer")
        .title("After")
        .write(&fresh);
    std::fs::rename(&fresh, &path).expect("rename");
    until_title(&mut client, "After").await;
    let found = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": file_uri("/home/ana/shop/p.md")}}),
        )
        .await;
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
    assert_eq!(found[0]["sessionId"], "after");
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Issue 10 item 11: a store created after the server started was never
/// seen when its parent did not exist either (the first run, before
/// `~/.hydra` exists).
#[tokio::test]
async fn a_store_whose_parents_appear_later_is_seen() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = home.path().join(".hydra").join("sessions");
    let (mut client, mut child) = spawn(&store);
    client.start(&store, "/home/ana/shop").await;
    let empty = client
        .call(
            "sessionReference/candidates",
            json!({"textDocument": {"uri": file_uri("/home/ana/shop/p.md")}}),
        )
        .await;
    assert_eq!(empty, json!([]));
    LogBuilder::new("first-run", 1_764_400_009_000, Some("/home/ana/shop"))
        .user("hi")
        .title("First run")
        .write(&store.join("2026").join("s.jsonl"));
    until_title(&mut client, "First run").await;
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// CPU time (user + system) of process `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which ends with ')'): utime is the
    // 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// Issue 10 item 2: a cancelled request kept burning CPU (hover scanned a
/// hostile document on the async workers, quadratically, to the end). Now
/// the copy of the text and the scan poll the cancel flag: a cancelled
/// hover uses at most 50 ms of CPU after its RequestCancelled answer (0 in
/// practice), where a whole one costs ~80 ticks (0.8 s) in a test build;
/// without the polls it went on for ~80 ticks.
#[tokio::test]
async fn a_cancelled_hover_stops_its_work() {
    let store = demo_store();
    let (mut client, mut child) = spawn(store.path());
    let pid = child.id().expect("pid");
    client.start(store.path(), "/home/ana/shop").await;
    let uri = file_uri("/home/ana/shop/hostile.md");
    let text = "@[a](hydra-session:".repeat(500_000); // 9.5 MB
    client.open(&uri, &text).await;
    // Diagnostics scan it once; wait for them so the server is otherwise idle.
    assert_eq!(client.diagnostics(&uri, 1).await, json!([]));
    let hover =
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 9_000_000}});
    // What a whole hover costs.
    let before = cpu_ticks(pid);
    let whole = client.request("textDocument/hover", hover.clone()).await;
    assert_eq!(whole["result"], Value::Null);
    let full_cost = cpu_ticks(pid) - before;
    // Below ~10 ticks a cancel's saving cannot be told from noise: the
    // document must make the hover expensive, or the test proves nothing.
    assert!(
        full_cost >= 10,
        "a whole hover costs only {full_cost} ticks: too cheap to show a cancel stopping it"
    );
    // A hover cancelled once its work is under way: what it still costs
    // after its answer (measured over a window, not waited on). Should the
    // hover win the race and answer before its cancel arrives, its answer
    // must be the whole one, and the test tries again; it never passes
    // without having seen a cancel stop the work.
    const ATTEMPTS: usize = 3;
    let mut stopped = false;
    for attempt in 1..=ATTEMPTS {
        let id = client
            .send_request("textDocument/hover", hover.clone())
            .await;
        // Cancel once the work is under way (the server is busy), so the
        // cancel does not simply drop a request that never started.
        let started = cpu_ticks(pid);
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while cpu_ticks(pid) < started + 3 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(
            cpu_ticks(pid) >= started + 3,
            "the hover's work never started within {PATIENCE:?}"
        );
        client.notify("$/cancelRequest", json!({"id": id})).await;
        let answer = client.response(id).await;
        if answer["error"]["code"] != -32800 {
            assert_eq!(
                answer["result"], whole["result"],
                "a hover that finished before its cancel gave another answer: {answer}"
            );
            eprintln!("attempt {attempt}: the hover finished before its cancel arrived");
            continue;
        }
        let at_answer = cpu_ticks(pid);
        tokio::time::sleep(Duration::from_secs(2)).await;
        let after_cancel = cpu_ticks(pid) - at_answer;
        eprintln!("whole hover: {full_cost} ticks; after a cancel: {after_cancel} ticks; {answer}");
        // 5 ticks of 10 ms: the 50 ms the issue allows a cancelled request.
        assert!(
            after_cancel <= 5 && after_cancel * 2 < full_cost,
            "a cancelled hover went on: {after_cancel} ticks after its answer, a whole one costs {full_cost}"
        );
        stopped = true;
        break;
    }
    assert!(
        stopped,
        "in {ATTEMPTS} attempts every hover finished before its cancel: the cancel was never tested"
    );
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// The peak resident memory of process `pid` so far (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Issue 27 item 19: a watched log grown by a sparse region (`truncate`)
/// peaked at 285 MB with search on: the search index's full read of the
/// grown log buffered the zeros, one line without an end, up to the
/// 256 MiB line bound. Grown by 300 MiB here (over that bound), the log's
/// read fails (a hydra log holds no line that is not JSON), so its words
/// leave the results: once they have, the server's peak resident memory
/// is under 256 MiB (a bound, not a timing).
#[tokio::test]
async fn a_sparse_growth_of_a_watched_log_is_read_by_the_index_in_bounded_memory() {
    let cache = tempfile::tempdir().expect("tempdir");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.jsonl");
    let builder = LogBuilder::new("grower", 1_764_400_009_000, Some("/home/ana/shop"))
        .user("greetings")
        .title("One");
    builder.write(&path);
    let mut command = server_command();
    command
        .env("XDG_CACHE_HOME", cache.path())
        .env("MALLOC_ARENA_MAX", "2");
    let (mut client, mut child) = lsp_common::spawn(command);
    let pid = child.id().expect("a pid");
    client.start_searching(dir.path(), "/home/ana/shop").await;
    until_search(&mut client, "greetings", true).await;
    let size = std::fs::metadata(&path).expect("log").len();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    file.set_len(size + (300 << 20)).expect("grow");
    // The region and the next line are one line (no line end between).
    let before = builder.text();
    let grown = builder
        .user("swallowed by the region")
        .user("reconcile the totals")
        .text();
    use std::io::Write;
    file.write_all(&grown.as_bytes()[before.len()..])
        .expect("append");
    drop(file);
    until_search(&mut client, "greetings", false).await;
    let peak = peak_rss(pid);
    assert!(peak > 0, "no VmHWM for {pid}");
    assert!(peak < 256 << 20, "the server peaked at {} MiB", peak >> 20);
    // The session is still listed (its index scan skips the region).
    until_title(&mut client, "One").await;
    client.shutdown_and_exit().await;
    assert_eq!(exit_status(&mut child, PATIENCE).await, Some(0));
}

/// Polls `sessionReference/search` until `word` finds a session (`found`)
/// or finds none (a minute: a debug build reads 300 MiB of zeros twice).
async fn until_search(client: &mut ProcessClient, word: &str, found: bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let id = client
            .send_request("sessionReference/search", json!({"query": word}))
            .await;
        let answer = client.response(id).await;
        if let Some(hits) = answer["result"].as_array() {
            if hits.is_empty() != found {
                return;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{word}: never {}: {answer}",
            if found { "found" } else { "gone" }
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
