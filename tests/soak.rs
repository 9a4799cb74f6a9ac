//! The soak test (issues 10 and 18): random edits (some with lone
//! surrogates), hovers, completions, prepares, cancels, `$/` requests with
//! ids, stray `shutdown` notifications, and store appends, renames and
//! deletions, Gemini documents seen half-written then completed in place
//! under an unchanged stat (issue 27 item 15), and a log grown by sparse
//! regions (item 19) against the built binary, for `HYDRA_SOAK_SECONDS` seconds
//! (default 60). It asserts that every request is answered, that resident
//! memory stays flat, and that in the end the diagnostics equal those of a
//! fresh server on the same texts and store.
//!
//! Ignored by default (it is long); `scripts/test.sh` runs it for 60 s:
//! `HYDRA_SOAK_SECONDS=600 cargo test --test soak -- --ignored --nocapture`.
//! Local only: a temporary store, the binary over pipes; bounded: at most
//! [`IN_FLIGHT`] requests outstanding.
//!
//! A binary of its own: it measures the resident memory of the server it
//! drives, and runs alone (scripts/test.sh), with no other test beside it.

mod lsp_common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lsp_common::in_place;
use lsp_common::*;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Notify;
use tokio::time::Instant;

const SESSIONS: usize = 8;
const DOCS: usize = 3;
const IN_FLIGHT: usize = 16;
const WORKSPACE: &str = "/home/ana/shop";

/// A small deterministic generator (xorshift64*), seeded from the env.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn spawn(store: &Path) -> (BufReader<ChildStdout>, ChildStdin, Child) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .env("HYDRA_SESSION_STORE", store)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (BufReader::new(stdout), stdin, child)
}

fn rss(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

async fn read_message(reader: &mut BufReader<ChildStdout>) -> Option<Value> {
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

async fn send(writer: &mut ChildStdin, message: &Value) {
    send_body(writer, message.to_string()).await;
}

/// Sends `message` with every U+FFFD in it written as a lone surrogate
/// escape (`\ud83d`, half an emoji, as `JSON.stringify` writes it): the
/// server must read it as the U+FFFD the test's copy of the text holds
/// (issue 18 item 4).
async fn send_with_lone_surrogates(writer: &mut ChildStdin, message: &Value) {
    send_body(writer, message.to_string().replace('\u{FFFD}', "\\ud83d")).await;
}

async fn send_body(writer: &mut ChildStdin, body: String) {
    let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    writer
        .write_all(framed.as_bytes())
        .await
        .expect("the server reads");
}

/// What the reader task saw.
#[derive(Default)]
struct Seen {
    answered: HashSet<i64>,
    /// Error responses other than a cancel, by id.
    failures: Vec<Value>,
    /// The latest diagnostics per document: (version, diagnostics).
    diagnostics: HashMap<String, (i64, Value)>,
    closed: bool,
}

type Shared = Arc<(Mutex<Seen>, Notify)>;

fn reader_task(mut reader: BufReader<ChildStdout>) -> Shared {
    let shared: Shared = Arc::default();
    let out = shared.clone();
    tokio::spawn(async move {
        while let Some(message) = read_message(&mut reader).await {
            let mut seen = out.0.lock().expect("lock");
            if message["method"] == "textDocument/publishDiagnostics" {
                let uri = message["params"]["uri"].as_str().unwrap_or("").to_string();
                let version = message["params"]["version"].as_i64().unwrap_or(-1);
                seen.diagnostics
                    .insert(uri, (version, message["params"]["diagnostics"].clone()));
            } else if message.get("method").is_none() {
                if let Some(id) = message["id"].as_i64() {
                    seen.answered.insert(id);
                    let cancelled = message["error"]["code"] == -32800;
                    let failed_request = message["error"]["code"] == -32803;
                    if message.get("error").is_some() && !cancelled && !failed_request {
                        seen.failures.push(message.clone());
                    }
                }
            }
            drop(seen);
            out.1.notify_waiters();
        }
        if let Ok(mut seen) = out.0.lock() {
            seen.closed = true;
        }
        out.1.notify_waiters();
    });
    shared
}

/// Waits until `pred` holds of what was seen, or fails after `patience`.
async fn wait_until(shared: &Shared, what: &str, patience: Duration, pred: impl Fn(&Seen) -> bool) {
    let deadline = Instant::now() + patience;
    loop {
        let notified = shared.1.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        {
            let seen = shared.0.lock().expect("lock");
            if pred(&seen) {
                return;
            }
            assert!(
                !seen.closed,
                "the server closed its output while waiting for {what}"
            );
        }
        if tokio::time::timeout_at(deadline, notified).await.is_err() {
            panic!("timed out waiting for {what}");
        }
    }
}

/// One session log of the store, with the seq to append at.
struct Log {
    id: String,
    path: PathBuf,
    next_seq: u64,
    present: bool,
}

fn write_log(log: &mut Log, generation: u64) {
    let builder = LogBuilder::new(&log.id, 1_764_400_000_000 + generation, Some(WORKSPACE))
        .user(&format!("question {generation} for {}", log.id))
        .assistant(&"an answer that takes some room. ".repeat(1 + (generation % 40) as usize))
        .title(&format!("{} gen {generation}", log.id));
    let tmp = log.path.with_extension("jsonl.tmp");
    builder.write(&tmp);
    std::fs::rename(&tmp, &log.path).expect("rename into place");
    log.next_seq = 4;
    log.present = true;
}

fn document_text(rng: &mut Rng, logs: &[Log]) -> String {
    let mut text = String::from("# Prompt\n");
    for _ in 0..(1 + rng.below(4)) {
        let log = &logs[rng.below(logs.len())];
        text.push_str(&format!(
            "See {} and more.\n",
            mention(&log.id, &format!("label {}", rng.below(100)))
        ));
    }
    if rng.below(3) == 0 {
        text.push_str("A broken @[x](hydra-session:!!) one.\n");
    }
    text.push_str("Ask @");
    text
}

fn end_position(text: &str) -> Value {
    let line = text.split('\n').count() - 1;
    // UTF-16 units, as the server counts by default.
    let character = text
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.encode_utf16().count());
    json!({"line": line, "character": character})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: run with --ignored (scripts/test.sh gives it 60 s)"]
async fn soak() {
    let seconds: u64 = std::env::var("HYDRA_SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let seed: u64 = std::env::var("HYDRA_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed | 1);
    let store = tempfile::tempdir().expect("temp store");
    let mut logs: Vec<Log> = (0..SESSIONS)
        .map(|i| {
            let dir = store.path().join(format!("d{}", i % 3));
            std::fs::create_dir_all(&dir).expect("mkdir");
            Log {
                id: format!("soak-{i}"),
                path: dir.join(format!("soak-{i}.jsonl")),
                next_seq: 0,
                present: false,
            }
        })
        .collect();
    for (i, log) in logs.iter_mut().enumerate() {
        write_log(log, i as u64);
    }
    // Documents written half, completed now and then (issue 27 item 15),
    // and a log grown by sparse regions (item 19).
    let mut halves: Vec<in_place::InPlace> = Vec::new();
    let sparse = store.path().join("d0/sparse.jsonl");
    let mut regions = 0;
    LogBuilder::new("soak-sparse", 1_764_400_000_000, Some(WORKSPACE))
        .user("before the regions")
        .write(&sparse);
    let (reader, mut writer, mut child) = spawn(store.path());
    let pid = child.id().expect("pid");
    let seen = reader_task(reader);
    let mut next_id = 0i64;
    let mut request = |method: &str, params: Value| {
        next_id += 1;
        (
            next_id,
            json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}),
        )
    };
    let (init, message) = request(
        "initialize",
        json!({
            "processId": null,
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri(WORKSPACE), "name": "shop"}],
            "initializationOptions": {"hydraSession": {"store": store.path(), "maxReferenceBytes": 2000}},
        }),
    );
    send(&mut writer, &message).await;
    wait_until(&seen, "initialize", PATIENCE, |s| {
        s.answered.contains(&init)
    })
    .await;
    send(
        &mut writer,
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    )
    .await;
    let uris: Vec<String> = (0..DOCS)
        .map(|i| file_uri(&format!("{WORKSPACE}/prompt-{i}.md")))
        .collect();
    let mut texts: Vec<String> = Vec::new();
    let mut versions: Vec<i64> = vec![1; DOCS];
    for uri in &uris {
        let text = document_text(&mut rng, &logs);
        send(&mut writer, &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})).await;
        texts.push(text);
    }

    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let mut sent: Vec<i64> = vec![init];
    // The ids of `$/` requests, which must be answered MethodNotFound.
    let mut method_not_found: HashSet<i64> = HashSet::new();
    let mut samples: Vec<(Duration, u64)> = Vec::new();
    let mut last_sample = started;
    let mut generation = SESSIONS as u64;
    let mut operations = 0u64;
    while Instant::now() < deadline {
        operations += 1;
        // Bounded: never more than IN_FLIGHT requests outstanding.
        let outstanding = |s: &Seen| sent.iter().filter(|id| !s.answered.contains(id)).count();
        if outstanding(&seen.0.lock().expect("lock")) >= IN_FLIGHT {
            wait_until(&seen, "answers to outstanding requests", PATIENCE, |s| {
                outstanding(s) < IN_FLIGHT
            })
            .await;
        }
        let doc = rng.below(DOCS);
        let uri = uris[doc].clone();
        match rng.below(10) {
            0 | 1 => {
                // An edit: append at the end, or replace the whole text.
                versions[doc] += 1;
                let change = if rng.below(4) == 0 {
                    texts[doc] = document_text(&mut rng, &logs);
                    json!({"text": texts[doc]})
                } else {
                    let at = end_position(&texts[doc]);
                    let log = &logs[rng.below(logs.len())];
                    // Now and then with half an emoji before the mention.
                    let half = if rng.below(3) == 0 { "\u{FFFD}" } else { "" };
                    let insert = format!(" x\n{half}{} ", mention(&log.id, "again"));
                    texts[doc].push_str(&insert);
                    json!({"range": {"start": at, "end": at}, "text": insert})
                };
                send_with_lone_surrogates(&mut writer, &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": versions[doc]}, "contentChanges": [change]}})).await;
            }
            2 => {
                let lines: Vec<&str> = texts[doc].split('\n').collect();
                let line = rng.below(lines.len());
                let character = rng.below(lines[line].len() + 1);
                let (id, message) = request(
                    "textDocument/hover",
                    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
                );
                send(&mut writer, &message).await;
                sent.push(id);
            }
            3 => {
                let (id, message) = request(
                    "textDocument/completion",
                    json!({"textDocument": {"uri": uri}, "position": end_position(&texts[doc])}),
                );
                send(&mut writer, &message).await;
                sent.push(id);
            }
            4 => {
                let (id, message) = request(
                    "sessionReference/prepare",
                    json!({"textDocument": {"uri": uri}}),
                );
                send(&mut writer, &message).await;
                sent.push(id);
            }
            5 => {
                // A request cancelled at once: answered either way.
                let (id, message) = request(
                    "sessionReference/prepare",
                    json!({"textDocument": {"uri": uri}}),
                );
                send(&mut writer, &message).await;
                send(
                    &mut writer,
                    &json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}}),
                )
                .await;
                sent.push(id);
            }
            6 => {
                match rng.below(3) {
                    // A `$/` request with an id (issue 18 item 1): answered
                    // MethodNotFound, never left holding a slot.
                    0 => {
                        let (id, message) = request("$/setTrace", json!({"value": "off"}));
                        send(&mut writer, &message).await;
                        sent.push(id);
                        method_not_found.insert(id);
                    }
                    // A stray `shutdown` notification (issue 18 item 2):
                    // every later request is still served.
                    1 => {
                        send(
                            &mut writer,
                            &json!({"jsonrpc": "2.0", "method": "shutdown"}),
                        )
                        .await;
                    }
                    _ => {}
                }
                let (id, message) = request("sessionReference/status", json!({}));
                send(&mut writer, &message).await;
                sent.push(id);
            }
            _ if rng.below(8) == 0 => {
                // Issue 27's inputs: a document half-written, one of those
                // completed in place, or a log grown by a sparse region
                // (over the index scan's line bound) and a line.
                generation += 1;
                match rng.below(3) {
                    0 if halves.len() < 16 => {
                        let id = format!("soak-doc-{generation}");
                        let (_, path, text) = in_place::documents(
                            store.path(),
                            &id,
                            &format!("document {generation}"),
                        )
                        .swap_remove(0);
                        halves.push(in_place::InPlace::half(&path, &text));
                    }
                    0 | 1 if !halves.is_empty() => {
                        let _ = halves.swap_remove(rng.below(halves.len())).complete();
                    }
                    // A few: a fresh server reads it all at the end.
                    _ if regions < 8 => {
                        regions += 1;
                        let mut file = std::fs::OpenOptions::new()
                            .append(true)
                            .open(&sparse)
                            .expect("the sparse log");
                        let size = file.metadata().expect("stat").len();
                        file.set_len(size + (20 << 20)).expect("grow");
                        let line = json!({"seq": generation, "type": "user/message", "data": {"source": {"kind": "user"}, "content": [{"type": "text", "text": "after a region"}]}});
                        std::io::Write::write_all(&mut file, format!("\n{line}\n").as_bytes())
                            .expect("append");
                    }
                    _ => {}
                }
            }
            _ => {
                // The store: append, replace by a rename, delete, recreate.
                let log = rng.below(logs.len());
                let log = &mut logs[log];
                generation += 1;
                match (log.present, rng.below(4)) {
                    (false, _) => write_log(log, generation),
                    (true, 0) => {
                        std::fs::remove_file(&log.path).expect("delete");
                        log.present = false;
                    }
                    // A FIFO renamed over the log (issue 18, item 3): a
                    // read of it must fail at once, never wait.
                    #[cfg(unix)]
                    (true, 1) if generation.is_multiple_of(2) => {
                        let fifo = log.path.with_extension("fifo");
                        rustix::fs::mknodat(
                            rustix::fs::CWD,
                            &fifo,
                            rustix::fs::FileType::Fifo,
                            rustix::fs::Mode::from_raw_mode(0o600),
                            0,
                        )
                        .expect("mkfifo");
                        std::fs::rename(&fifo, &log.path).expect("rename the FIFO over");
                        log.present = false;
                    }
                    (true, 1) => write_log(log, generation),
                    (true, _) => {
                        let line = json!({"seq": log.next_seq, "type": "user/message", "data": {"source": {"kind": "user"}, "content": [{"type": "text", "text": format!("appended {generation}")}]}});
                        log.next_seq += 1;
                        let mut file = std::fs::OpenOptions::new()
                            .append(true)
                            .open(&log.path)
                            .expect("append");
                        std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes())
                            .expect("append");
                    }
                }
            }
        }
        if last_sample.elapsed() >= Duration::from_millis(500) {
            last_sample = Instant::now();
            samples.push((started.elapsed(), rss(pid)));
        }
        // Pace the client a little: a person types, an editor batches.
        tokio::task::yield_now().await;
    }

    // Every request is answered.
    wait_until(&seen, "every request answered", PATIENCE, |s| {
        sent.iter().all(|id| s.answered.contains(id))
    })
    .await;
    let failures = seen.0.lock().expect("lock").failures.clone();
    // The `$/` requests, and only they, are answered MethodNotFound.
    let (expected, failures): (Vec<Value>, Vec<Value>) = failures.into_iter().partition(|m| {
        m["error"]["code"] == -32601
            && m["id"]
                .as_i64()
                .is_some_and(|id| method_not_found.contains(&id))
    });
    assert!(failures.is_empty(), "unexpected errors: {failures:#?}");
    assert_eq!(
        expected.len(),
        method_not_found.len(),
        "every `$/` request is answered MethodNotFound"
    );

    // Resident memory stays flat: the second half peaks no higher than the
    // first half's peak plus a margin.
    let half = Duration::from_secs(seconds) / 2;
    let first_peak = samples
        .iter()
        .filter(|(t, _)| *t < half)
        .map(|s| s.1)
        .max()
        .unwrap_or(0);
    let second_peak = samples
        .iter()
        .filter(|(t, _)| *t >= half)
        .map(|s| s.1)
        .max()
        .unwrap_or(0);
    eprintln!(
        "soak: {seconds} s, {operations} operations, {} requests; RSS peak {:.1} MiB (first half), {:.1} MiB (second half)",
        sent.len(),
        first_peak as f64 / 1048576.0,
        second_peak as f64 / 1048576.0
    );
    assert!(
        second_peak <= first_peak + (32 << 20),
        "RSS grew: {first_peak} -> {second_peak}"
    );

    // The final diagnostics equal a fresh server's on the same texts and
    // store (the store has stopped changing; the soaked server may still
    // be catching up, so poll with a deadline).
    let (fresh_reader, mut fresh_writer, mut fresh_child) = spawn(store.path());
    let fresh = reader_task(fresh_reader);
    send(&mut fresh_writer, &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": null, "capabilities": {},
        "workspaceFolders": [{"uri": file_uri(WORKSPACE), "name": "shop"}],
        "initializationOptions": {"hydraSession": {"store": store.path(), "maxReferenceBytes": 2000}},
    }})).await;
    wait_until(&fresh, "fresh initialize", PATIENCE, |s| {
        s.answered.contains(&1)
    })
    .await;
    send(
        &mut fresh_writer,
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    )
    .await;
    for (uri, text) in uris.iter().zip(&texts) {
        send(&mut fresh_writer, &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})).await;
    }
    wait_until(&fresh, "fresh diagnostics", PATIENCE, |s| {
        uris.iter()
            .all(|u| s.diagnostics.get(u).is_some_and(|(v, _)| *v == 1))
    })
    .await;
    let expected: HashMap<String, Value> = {
        let s = fresh.0.lock().expect("lock");
        uris.iter()
            .map(|u| (u.clone(), s.diagnostics[u].1.clone()))
            .collect()
    };
    let settle = Instant::now() + Duration::from_secs(30);
    loop {
        // A no-op edit asks for diagnostics of the current store.
        for (doc, uri) in uris.iter().enumerate() {
            versions[doc] += 1;
            send(&mut writer, &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": versions[doc]}, "contentChanges": [{"text": texts[doc]}]}})).await;
        }
        let want = versions.clone();
        wait_until(&seen, "diagnostics of the latest versions", PATIENCE, |s| {
            uris.iter()
                .zip(&want)
                .all(|(u, v)| s.diagnostics.get(u).is_some_and(|(got, _)| got == v))
        })
        .await;
        let equal = {
            let s = seen.0.lock().expect("lock");
            uris.iter().all(|u| s.diagnostics[u].1 == expected[u])
        };
        if equal {
            break;
        }
        assert!(
            Instant::now() < settle,
            "the soaked server's diagnostics never matched a fresh server's"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for w in [&mut writer, &mut fresh_writer] {
        send(
            w,
            &json!({"jsonrpc": "2.0", "id": 999_999, "method": "shutdown"}),
        )
        .await;
        send(w, &json!({"jsonrpc": "2.0", "method": "exit"})).await;
    }
    for child in [&mut child, &mut fresh_child] {
        let status = tokio::time::timeout(PATIENCE, child.wait())
            .await
            .expect("exits")
            .expect("status");
        assert_eq!(status.code(), Some(0));
    }
}
