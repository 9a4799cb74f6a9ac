//! The MCP server's first `resources/list`, measured at the client over
//! stdio with the real binary: from spawning `mcp` to the answer of its
//! first page, over a generated store of small sessions, first with no
//! index cache (every log read), then from the warm on-disk cache the
//! first run left (what a client starting the server again meets), and
//! the CLI's `candidates` from the same warm cache beside it.
//!
//! Then, in one server started on the warm cache (issue 25): the answer
//! times of `resources/list`'s first page once the index is up, and of
//! `resources/read` of one session beside the `prepare` tool and the
//! CLI's `prepare` of that session's mention.
//!
//! Run: `cargo bench --bench mcp_bench` (release build);
//! `MCP_BENCH_SESSIONS=100000` sets the store's size (default 10,000).
//! `BENCH_BINARY=path` measures another build. The store and the cache are
//! generated under `target/mcp-bench/` and removed at the end.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const DEFAULT_SESSIONS: usize = 10_000;

fn binary() -> std::path::PathBuf {
    std::env::var_os("BENCH_BINARY")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_hydra-session-lsp").into())
}

/// `sessions` Claude Code logs of one exchange each, in 100 folders.
fn generate(root: &Path, sessions: usize) {
    for i in 0..sessions {
        let dir = root.join(format!("d{:02}", i % 100));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let id = format!("00000000-0000-4000-8000-{i:012}");
        let cwd = format!("/home/u/proj{}", i % 40);
        let at = |s: u64| {
            let secs = 1_700_000_000 + i as u64 * 60 + s;
            rfc3339(secs)
        };
        let user = json!({"type":"user","sessionId":id,"uuid":format!("u{i}"),"cwd":cwd,
            "timestamp":at(0),"message":{"role":"user","content":format!("refactor the cart {i}")}});
        let assistant = json!({"type":"assistant","sessionId":id,"uuid":format!("a{i}"),
            "parentUuid":format!("u{i}"),"cwd":cwd,"timestamp":at(1),
            "message":{"role":"assistant","content":[{"type":"text","text":"done"}]}});
        std::fs::write(
            dir.join(format!("{id}.jsonl")),
            format!("{user}\n{assistant}\n"),
        )
        .expect("write");
    }
}

/// `secs` since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (civil from days).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// `mcp` on `store`, its caches under `cache`, the machine's stores kept out.
fn spawn_server(store: &Path, cache: &Path) -> std::process::Child {
    Command::new(binary())
        .args(["mcp", "--store"])
        .arg(store)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env("XDG_CACHE_HOME", cache)
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the server (cargo bench builds it)")
}

/// Spawns `mcp` on `store`, shakes hands, asks `resources/list`: the time
/// from the spawn to its answer, and how many resources it gave.
fn first_list(store: &Path, cache: &Path) -> (Duration, usize) {
    let started = Instant::now();
    let mut child = spawn_server(store, cache);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").expect("write");
        stdin.flush().expect("flush");
    };
    send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},
        "clientInfo":{"name":"bench","version":"1"}}}),
    );
    let mut answer = |id: i64| loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).expect("read") == 0 {
            panic!("the server ended");
        }
        let v: Value = serde_json::from_str(&line).expect("JSON");
        if v["id"] == id {
            return v;
        }
    };
    answer(1);
    send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    send(json!({"jsonrpc":"2.0","id":2,"method":"resources/list"}));
    let listed = answer(2);
    let elapsed = started.elapsed();
    let count = listed["result"]["resources"].as_array().map_or(0, Vec::len);
    let _ = child.kill();
    let _ = child.wait();
    (elapsed, count)
}

/// The median of `times` in milliseconds.
fn median_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times
        .get(times.len() / 2)
        .map_or(0.0, |t| t.as_secs_f64() * 1000.0)
}

/// One running server on the warm cache: the median answer time of the
/// first page, of `resources/read` and of the `prepare` tool for the same
/// session, over `rounds` requests each; and that session's mention.
fn warm_requests(store: &Path, cache: &Path, rounds: usize) -> (f64, f64, f64, String) {
    let mut child = spawn_server(store, cache);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut id = 0;
    let mut ask = |method: &str, params: Value| -> (Duration, Value) {
        id += 1;
        let started = Instant::now();
        let line = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params});
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
        loop {
            let mut line = String::new();
            if stdout.read_line(&mut line).expect("read") == 0 {
                panic!("the server ended");
            }
            let v: Value = serde_json::from_str(&line).expect("JSON");
            if v["id"] == id {
                return (started.elapsed(), v);
            }
        }
    };
    ask(
        "initialize",
        json!({"protocolVersion":"2025-11-25","capabilities":{},
        "clientInfo":{"name":"bench","version":"1"}}),
    );
    // The first request waits for the index (read from the cache); the
    // rounds after it are what a client meets once the server is up.
    let (_, first) = ask("resources/list", json!({}));
    let uri = first["result"]["resources"][0]["uri"]
        .as_str()
        .expect("a listed session")
        .to_string();
    let (_, found) = ask(
        "tools/call",
        json!({"name":"list_sessions","arguments":{"limit":1}}),
    );
    let mention = found["result"]["structuredContent"]["sessions"][0]["mention"]
        .as_str()
        .expect("a mention")
        .to_string();
    let (mut list, mut read, mut prepare) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        list.push(ask("resources/list", json!({})).0);
        read.push(ask("resources/read", json!({"uri": uri})).0);
        let text = format!("{mention} ");
        prepare.push(
            ask(
                "tools/call",
                json!({"name":"prepare","arguments":{"text": text}}),
            )
            .0,
        );
    }
    let _ = child.kill();
    let _ = child.wait();
    (
        median_ms(list),
        median_ms(read),
        median_ms(prepare),
        mention,
    )
}

fn main() {
    let sessions = std::env::var("MCP_BENCH_SESSIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SESSIONS);
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-bench");
    let _ = std::fs::remove_dir_all(&base);
    let (store, cache) = (base.join("store"), base.join("cache"));
    std::fs::create_dir_all(&cache).expect("mkdir");
    let t = Instant::now();
    generate(&store, sessions);
    eprintln!(
        "generated {sessions} sessions in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    println!("| MCP `resources/list`, {sessions} sessions | first page (ms) | resources |");
    println!("|---|---:|---:|");
    let runs = [("no index cache", 1), ("warm index cache", 2)];
    for (what, times) in runs {
        for _ in 0..times {
            let (took, count) = first_list(&store, &cache);
            println!("| {what} | {:.0} | {count} |", took.as_secs_f64() * 1000.0);
        }
    }
    // The CLI reading the same warm cache: the floor a face starting from
    // it can reach (the MCP server adds its handshake and the view).
    let t = Instant::now();
    let out = Command::new(binary())
        .args(["candidates", "--store"])
        .arg(&store)
        .env("XDG_CACHE_HOME", &cache)
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .expect("run the CLI");
    println!(
        "| CLI `candidates`, warm index cache (for comparison; exit {}) | {:.0} | |",
        out.status.code().unwrap_or(-1),
        t.elapsed().as_secs_f64() * 1000.0
    );
    let (list, read, prepare, mention) = warm_requests(&store, &cache, 20);
    println!();
    println!("| one server up, warm index cache, {sessions} sessions | median answer (ms) |");
    println!("|---|---:|");
    println!("| `resources/list`, first page | {list:.2} |");
    println!("| `resources/read` of the newest session | {read:.2} |");
    println!("| `tools/call prepare` of its mention | {prepare:.2} |");
    let t = Instant::now();
    let mut cli = Command::new(binary())
        .args(["prepare", "--store"])
        .arg(&store)
        .env("XDG_CACHE_HOME", &cache)
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("run the CLI");
    if let Some(mut stdin) = cli.stdin.take() {
        let _ = write!(stdin, "{mention} ");
    }
    let status = cli.wait().expect("the CLI ends");
    println!(
        "| CLI `prepare` of the same mention (a process; exit {}) | {:.1} |",
        status.code().unwrap_or(-1),
        t.elapsed().as_secs_f64() * 1000.0
    );
    let _ = std::fs::remove_dir_all(&base);
}
