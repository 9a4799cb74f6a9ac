//! The language server's speed, measured at the client over stdio with the
//! real binary (JSON-RPC included), against a generated store of 10,000
//! sessions of 2–20 KB each plus one 20 MB session; then the CLI's
//! `candidates` on the same store, without and with its index cache.
//!
//! Run: `cargo bench --bench lsp_bench` (release build). Prints a Markdown
//! table; docs/performance.md ("Language server") records a run.
//!
//! Completion is typed with every kind of query (empty, one letter, words
//! of titles, id prefixes, cwds matching many sessions, nothing), each
//! kind reported apart. `BENCH_BINARY=path` measures another build.
//!
//! `LSP_BENCH_SEARCH=off` measures with full-text search off (it is on
//! by default, as in the server). `LSP_BENCH_WARM=1` keeps the caches the
//! last run left (the index cache, the search index): a start on a store
//! the server has seen.
//!
//! `LSP_BENCH_SESSIONS=100000 cargo bench --bench lsp_bench` runs the
//! large configuration (100,000 sessions, about 1 GB). A store is generated
//! once under `target/lsp-bench/` and reused by later runs (only the 20 MB
//! log, which the run appends to, is written again each time).

#[path = "../tests/lsp_common/mod.rs"]
mod lsp_common;
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use lsp_common::{file_uri, mention, LogBuilder, TestClient};
use serde_json::json;
use support::{binary, ms, percentile, rss_kib, spawn_server, Lcg};
use tokio::process::{ChildStdin, ChildStdout};

type Client = TestClient<ChildStdout, ChildStdin>;

const DEFAULT_SESSIONS: usize = 10_000;
const CWDS: usize = 40;
const HUGE_BYTES: usize = 20 * 1024 * 1024;
const DEBOUNCE: Duration = Duration::from_millis(150);

fn id(i: usize) -> String {
    format!("s{i:05}")
}

/// `sessions` logs of 2–20 KB in 100 directories (once: a marker beside
/// the store records their size; its name changed when the logs were
/// first written a day old), and the 20 MB one (every run).
fn generate(root: &Path, sessions: usize) -> u64 {
    let marker = root.with_extension("aged");
    let small = match std::fs::read_to_string(&marker)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
    {
        Some(bytes) => bytes,
        None => {
            let _ = std::fs::remove_dir_all(root);
            let bytes = generate_small(root, sessions);
            std::fs::write(&marker, bytes.to_string()).expect("write the marker");
            bytes
        }
    };
    small + generate_huge(root)
}

fn generate_small(root: &Path, sessions: usize) -> u64 {
    let mut rng = Lcg(42);
    let mut total = 0u64;
    let words = [
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
    ];
    for i in 0..sessions {
        let target = 2_048 + rng.next(18 * 1024);
        let cwd = format!("/home/u/proj{}", i % CWDS);
        let mut log = LogBuilder::new(&id(i), 1_700_000_000_000 + i as u64 * 1_000, Some(&cwd));
        let mut size = 120;
        let mut turn = 0;
        while size < target {
            let len = 100 + rng.next(900);
            let text: String = (0..len / 8)
                .map(|_| words[rng.next(words.len())])
                .collect::<Vec<_>>()
                .join(" ");
            size += text.len() + 110;
            log = if turn % 2 == 0 {
                log.user(&text)
            } else {
                log.assistant(&text)
            };
            turn += 1;
        }
        let title = format!("{} {} {}", words[rng.next(10)], words[rng.next(10)], i);
        log = log.title(&title);
        let text = log.text();
        total += text.len() as u64;
        let dir = root.join(format!("d{:02}", i % 100));
        std::fs::create_dir_all(&dir).expect("mkdir");
        write_old(&dir.join(format!("{}.jsonl", id(i))), text.as_bytes());
    }
    total
}

/// Writes a small log as last written a day ago, as most of a real store
/// is: the server keeps the scanners of the logs written within the hour
/// (`store/release.rs`), so a store written just before the run had all
/// 100,000 kept, 25–30 MiB more than any user's store of that size.
fn write_old(path: &Path, text: &[u8]) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).expect("create");
    file.write_all(text).expect("write");
    let day_ago = std::time::SystemTime::now() - Duration::from_secs(24 * 3600);
    file.set_modified(day_ago).expect("set the log's time");
}

fn generate_huge(root: &Path) -> u64 {
    let mut huge = LogBuilder::new("huge", 1_800_000_000_000, Some("/home/u/proj0"));
    let chunk = "lorem ipsum dolor sit amet ".repeat(400);
    let mut size = 0;
    let mut turn = 0;
    while size < HUGE_BYTES {
        size += chunk.len() + 110;
        huge = if turn % 2 == 0 {
            huge.user(&chunk)
        } else {
            huge.assistant(&chunk)
        };
        turn += 1;
    }
    let text = huge.title("The huge one").text();
    std::fs::write(root.join("huge.jsonl"), &text).expect("write");
    text.len() as u64
}

/// CPU time (user + system) of process `pid`, or with `children` of the
/// children it has waited for, from `/proc/<pid>/stat`. The machine may be
/// shared: CPU time says what the work costs whatever else runs.
fn cpu_time(pid: &str, children: bool) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .unwrap_or_default()
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // utime, stime, cutime, cstime: fields 14–17 of stat(5), in ticks.
    let at = if children { 13 } else { 11 };
    let ticks = fields.get(at).copied().unwrap_or(0) + fields.get(at + 1).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

async fn change(client: &mut Client, uri: &str, version: i64, text: &str) {
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": text}]}),
        )
        .await;
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sessions: usize = std::env::var("LSP_BENCH_SESSIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SESSIONS);
    // The target directory: the binary is `target/<profile>/hydra-session-lsp`.
    let bench_dir = Path::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .ancestors()
        .nth(2)
        .expect("target directory")
        .join("lsp-bench");
    let store_path = bench_dir.join(format!("hydra-{sessions}"));
    let started = Instant::now();
    let bytes = generate(&store_path, sessions);
    eprintln!(
        "store of {} MB ready in {:.1?}",
        bytes / 1_000_000,
        started.elapsed()
    );

    let log = std::env::var_os("BENCH_LOG").unwrap_or("warn".into());
    // Full-text search is on, as it is by default (its index built in
    // the background, completion adding body matches);
    // `LSP_BENCH_SEARCH=off` measures without it. Its index is kept
    // beside the store, built anew each run, never in the user's cache.
    let search = std::env::var("LSP_BENCH_SEARCH").map_or(true, |v| v != "off");
    let cache = bench_dir.join(format!("cache-{sessions}"));
    // `LSP_BENCH_WARM=1` keeps what the last run left there (the index
    // cache and the search index): a server started again on a store it
    // has seen.
    let warm = std::env::var("LSP_BENCH_WARM").is_ok_and(|v| v == "1");
    if !warm {
        let _ = std::fs::remove_dir_all(&cache);
    }
    eprintln!("cache: {}", if warm { "kept (warm)" } else { "new (cold)" });
    eprintln!("search: {}", if search { "on" } else { "off" });
    let (mut child, mut client) = spawn_server(&[
        ("XDG_CACHE_HOME", cache.as_os_str()),
        ("HYDRA_SESSION_STORE", store_path.as_os_str()),
        // Only the generated store: not the machine's agent sessions.
        ("CLAUDE_CONFIG_DIR", "/nonexistent".as_ref()),
        ("CODEX_HOME", "/nonexistent".as_ref()),
        ("RUST_LOG", &log),
    ]);
    let pid = child.id().unwrap_or(0);
    let started = Instant::now();
    client
        .initialize(json!({
            // Work-done progress: the search build's end is what the
            // bench follows it to.
            "capabilities": {"window": {"workDoneProgress": true}},
            "workspaceFolders": [{"uri": file_uri("/home/u/proj7"), "name": "proj7"}],
            "initializationOptions": {"searchIndex": search},
        }))
        .await;
    let uri = file_uri("/home/u/proj7/prompt.md");
    // Each kind of query a person types, by what it matches: everything,
    // one letter, words of titles, id prefixes (few or many sessions),
    // cwds (many sessions, none of them in the workspace), nothing.
    let kinds: [(&str, &[&str]); 6] = [
        ("empty", &[""]),
        ("one letter", &["t", "c", "s", "p"]),
        (
            "title words",
            &["ta", "tax", "ca", "cart", "ROUND", "inv", "docs"],
        ),
        ("id prefixes", &["s0", "s01", "s012", "s0099", "s00999"]),
        ("broad cwd", &["proj1", "proj3", "/home/u/proj", "u/proj2"]),
        ("no match", &["zzz", "qqqqqq"]),
    ];
    let queries: Vec<(usize, &str)> = kinds
        .iter()
        .enumerate()
        .flat_map(|(k, (_, qs))| qs.iter().map(move |q| (k, *q)))
        .collect();
    let lines: Vec<String> = queries.iter().map(|(_, q)| format!("@{q}")).collect();
    client.open(&uri, &lines.join("\n")).await;
    // Completion answers with what is indexed so far after a grace time
    // (while the first scan runs): ask until it lists sessions, then until
    // status says the whole store is indexed (what the figures below are
    // measured on; `isIncomplete` cannot tell, a list cut at the limit is
    // incomplete too).
    let first = loop {
        let got = client
            .call(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}),
            )
            .await;
        if got["items"]
            .as_array()
            .is_some_and(|items| !items.is_empty())
        {
            break got;
        }
    };
    let listed = started.elapsed();
    // The largest VmRSS seen until the first index is built.
    let mut rss_first_index = rss_kib(pid);
    while client.call("sessionReference/status", json!({})).await["indexing"] == true {
        rss_first_index = rss_first_index.max(rss_kib(pid));
    }
    let indexed = started.elapsed();
    let indexed_cpu = cpu_time(&pid.to_string(), false);
    let count = client.call("sessionReference/status", json!({})).await["sessions"].clone();
    assert_eq!(first["items"].as_array().map(Vec::len), Some(50));
    let rss_indexed = rss_kib(pid);

    // Completion latency: round trips over stdio. While the full-text
    // index is still being built or brought up to date (status: fewer
    // sessions than the store, or some behind), each answer is also
    // counted apart, and the server's VmRSS read after it (issue 29
    // item 6: completion and memory while search works).
    // `LSP_BENCH_SMAPS=1`: what the memory is made of, to stderr.
    let smaps = std::env::var("LSP_BENCH_SMAPS").is_ok_and(|v| v == "1");
    let mut samples = Vec::new();
    let mut by_kind: Vec<Vec<Duration>> = vec![Vec::new(); kinds.len()];
    let mut during_build = Vec::new();
    let mut rss_during_build = 0u64;
    // The largest anonymous and mapped-file parts seen while it is built.
    let (mut anon_during_build, mut file_during_build) = (0u64, 0u64);
    for round in 0..40 {
        let status = client.call("sessionReference/status", json!({})).await;
        if smaps {
            eprintln!(
                "rounds {round:>2}  search {:>7}  behind {:>7}  anon {:>6.1}  file {:>6.1} MiB",
                status["search"]["sessions"],
                status["search"]["behind"],
                support::status_kib(pid, "RssAnon") as f64 / 1024.0,
                support::status_kib(pid, "RssFile") as f64 / 1024.0
            );
        }
        let building = search
            && (status["search"]["behind"].as_u64() != Some(0)
                || status["search"]["sessions"] != status["sessions"]);
        for (line, query) in lines.iter().enumerate() {
            let at = Instant::now();
            let got = client
                .call(
                    "textDocument/completion",
                    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": query.chars().count()}}),
                )
                .await;
            let took = at.elapsed();
            samples.push(took);
            if building {
                during_build.push(took);
                rss_during_build = rss_during_build.max(rss_kib(pid));
                anon_during_build = anon_during_build.max(support::status_kib(pid, "RssAnon"));
                file_during_build = file_during_build.max(support::status_kib(pid, "RssFile"));
            }
            if let Some(kind) = queries.get(line).and_then(|(k, _)| by_kind.get_mut(*k)) {
                kind.push(took);
            }
            if round == 0 && got.is_null() {
                panic!("no completion for {query:?}");
            }
        }
    }
    let hwm_after_rounds = support::status_kib(pid, "VmHWM");
    // The rounds above cover the build's first seconds only; "at every
    // moment" (issue 29 item 6) is the whole build: follow it to its end,
    // a completion and a VmRSS sample every 100 ms, then the peak the
    // kernel saw (VmHWM, which also holds the first index's).
    let build_followed = Instant::now();
    let mut follow = tokio::time::interval(Duration::from_millis(100));
    let mut followed = 0usize;
    // Its end is the progress's (after the last commit come the merges
    // and the checksums), not the status's "nothing behind".
    let mut still_building = search;
    while still_building && build_followed.elapsed() < Duration::from_secs(900) {
        follow.tick().await;
        let status = client.call("sessionReference/status", json!({})).await;
        still_building = !client.drain("$/progress").await.iter().any(|m| {
            m["params"]["token"] == "hydra-session/search" && m["params"]["value"]["kind"] == "end"
        });
        let line = followed % lines.len();
        followed += 1;
        let query = &queries[line].1;
        let at = Instant::now();
        let _ = client
            .call(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": query.chars().count()}}),
            )
            .await;
        during_build.push(at.elapsed());
        rss_during_build = rss_during_build.max(rss_kib(pid));
        anon_during_build = anon_during_build.max(support::status_kib(pid, "RssAnon"));
        file_during_build = file_during_build.max(support::status_kib(pid, "RssFile"));
        if smaps {
            eprintln!(
                "series {:>6} ms  search {:>7}  behind {:>7}  anon {:>6.1}  file {:>6.1} MiB",
                build_followed.elapsed().as_millis(),
                status["search"]["sessions"],
                status["search"]["behind"],
                support::status_kib(pid, "RssAnon") as f64 / 1024.0,
                support::status_kib(pid, "RssFile") as f64 / 1024.0
            );
        }
    }
    if smaps {
        print_largest_mappings(pid);
    }
    let build_end = (search && followed > 0).then(|| {
        (
            build_followed.elapsed(),
            support::status_kib(pid, "VmHWM"),
            rss_kib(pid),
            support::status_kib(pid, "RssAnon"),
            support::status_kib(pid, "RssFile"),
        )
    });
    let completion_n = samples.len();
    let completion_p50 = percentile(&mut samples, 0.50);
    let completion_p95 = percentile(&mut samples, 0.95);

    // Hover on the 20 MB session: cold (the log just grew, so the cache
    // misses) and warm.
    let hover_uri = file_uri("/home/u/proj7/hover.md");
    client.open(&hover_uri, &mention("huge", "Huge")).await;
    let _ = client.diagnostics(&hover_uri, 1).await;
    let hover =
        json!({"textDocument": {"uri": hover_uri}, "position": {"line": 0, "character": 3}});
    let huge_log = store_path.as_path().join("huge.jsonl");
    let mut seq = 100_000;
    let mut cold = Vec::new();
    for _ in 0..5 {
        seq += 1;
        let mut text = std::fs::read(&huge_log).expect("read");
        text.extend_from_slice(format!("{{\"seq\":{seq},\"type\":\"x\"}}\n").as_bytes());
        std::fs::write(&huge_log, text).expect("append");
        let at = Instant::now();
        let got = client.call("textDocument/hover", hover.clone()).await;
        cold.push(at.elapsed());
        assert!(got["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("Huge"));
        // Let the store event and its diagnostics run settle.
        let _ = client
            .wait_for("diagnostics after the append", |m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == hover_uri
            })
            .await;
    }
    let mut warm = Vec::new();
    for _ in 0..50 {
        let at = Instant::now();
        let _ = client.call("textDocument/hover", hover.clone()).await;
        warm.push(at.elapsed());
    }
    let cold_p50 = percentile(&mut cold, 0.5);
    let warm_p50 = percentile(&mut warm, 0.5);
    let warm_p95 = percentile(&mut warm, 0.95);

    // Diagnostics of a 1 MB document with 2,000 mentions of 3 sessions:
    // from the last change to the published diagnostics, less the debounce.
    let diag_uri = file_uri("/home/u/proj7/big.md");
    let mut doc = String::new();
    let filler = "Some prose around the mention to make the line long enough, ".repeat(7);
    for i in 0..2_000 {
        let n = 1 + i % 3;
        doc.push_str(&format!(
            "{filler}{} and more.\n",
            mention(&id(n), &format!("Session {n}"))
        ));
    }
    let doc_bytes = doc.len();
    client.open(&diag_uri, &doc).await;
    let first_diagnostics = client.diagnostics(&diag_uri, 1).await;
    let mut diag = Vec::new();
    for version in 2..=21 {
        change(&mut client, &diag_uri, version, "x").await;
        let at = Instant::now();
        let got = client.diagnostics(&diag_uri, version).await;
        diag.push(at.elapsed().saturating_sub(DEBOUNCE));
        assert_eq!(got, first_diagnostics);
    }
    let diag_p50 = percentile(&mut diag, 0.5);
    let diag_max = percentile(&mut diag, 1.0);
    let rss_end = rss_kib(pid);

    client.shutdown_and_exit().await;
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;

    // The CLI's `candidates` on the same store: with an empty cache
    // directory (every log read), then with the index cache it left.
    let cache = tempfile::tempdir().expect("tempdir");
    let cli = || {
        let cpu = cpu_time("self", true);
        let at = Instant::now();
        let out = std::process::Command::new(binary())
            .args(["candidates", "--cwd", "/home/u/proj7", "--store"])
            .arg(&store_path)
            .env("XDG_CACHE_HOME", cache.path())
            .env("CLAUDE_CONFIG_DIR", "/nonexistent")
            .env("CODEX_HOME", "/nonexistent")
            .output()
            .expect("run the CLI");
        assert!(out.status.success(), "candidates failed");
        (
            at.elapsed(),
            cpu_time("self", true).saturating_sub(cpu),
            out.stdout,
        )
    };
    let mut cli_cold = Vec::new();
    let mut cli_cold_cpu = Vec::new();
    let mut cold_output = Vec::new();
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(cache.path().join("hydra-session"));
        let (took, cpu, out) = cli();
        cli_cold.push(took);
        cli_cold_cpu.push(cpu);
        cold_output = out;
    }
    let mut cli_warm = Vec::new();
    let mut cli_warm_cpu = Vec::new();
    for _ in 0..10 {
        let (took, cpu, out) = cli();
        cli_warm.push(took);
        cli_warm_cpu.push(cpu);
        assert_eq!(out, cold_output, "the cache changed the output");
    }
    let cli_cold_p50 = percentile(&mut cli_cold, 0.5);
    let cli_cold_cpu = percentile(&mut cli_cold_cpu, 0.5);
    let cli_warm_p50 = percentile(&mut cli_warm, 0.5);
    let cli_warm_max = percentile(&mut cli_warm, 1.0);
    let cli_warm_cpu = percentile(&mut cli_warm_cpu, 0.5);

    println!("| measure | result | target |");
    println!("|---|---|---|");
    println!(
        "| store | {count} sessions, {} MB ({sessions} × 2–20 KB + one 20 MB log) | |",
        bytes / 1_000_000
    );
    println!(
        "| first index (initialize → status no longer indexing), wall / server CPU | {} / {} | |",
        ms(indexed),
        ms(indexed_cpu)
    );
    if listed < indexed {
        println!(
            "| first completion listing sessions (of what is indexed so far) | {} | |",
            ms(listed)
        );
    }
    // The targets the issues set: at 100,000 sessions (issue 8) tighter
    // latency and looser memory than at the default 10,000.
    let (p95_target, rss_target) = if sessions >= 100_000 {
        ("p95 ≤ 2 ms", "≤ 80 MiB")
    } else {
        ("p95 ≤ 5 ms", "≤ 60 MiB")
    };
    println!(
        "| completion p50 / p95 ({completion_n} requests, 50 items max) | {} / {} | {p95_target} |",
        ms(completion_p50),
        ms(completion_p95)
    );
    if !during_build.is_empty() {
        let n = during_build.len();
        println!(
            "| completion p50 / p95 while the search index is built ({n} requests) | {} / {} | p95 ≤ 2 ms |",
            ms(percentile(&mut during_build, 0.50)),
            ms(percentile(&mut during_build, 0.95))
        );
        println!(
            "| VmRSS sampled after each of those, max | {:.1} MiB | ≤ 80 MiB |",
            rss_during_build as f64 / 1024.0
        );
    }
    if let Some((took, hwm, rss, anon, file)) = build_end {
        println!(
            "| search build followed to its end after the rounds: time / VmHWM then / VmRSS then (anonymous + mapped files) | {} / {:.1} MiB / {:.1} MiB ({:.1} + {:.1}) | VmHWM ≤ 80 MiB |",
            ms(took),
            hwm as f64 / 1024.0,
            rss as f64 / 1024.0,
            anon as f64 / 1024.0,
            file as f64 / 1024.0
        );
        println!(
            "| the largest anonymous / mapped-file part sampled while it was built | {:.1} / {:.1} MiB | |",
            anon_during_build as f64 / 1024.0,
            file_during_build as f64 / 1024.0
        );
    }
    println!(
        "| VmRSS sampled until the first index is built, max | {:.1} MiB | |",
        rss_first_index as f64 / 1024.0
    );
    println!(
        "| VmHWM (peak RSS) after the completion rounds | {:.1} MiB | ≤ 80 MiB |",
        hwm_after_rounds as f64 / 1024.0
    );
    for ((name, qs), times) in kinds.iter().zip(&mut by_kind) {
        let n = times.len();
        println!(
            "| completion, {name} ({}; {n} requests) p50 / p95 | {} / {} | {p95_target} |",
            qs.iter()
                .map(|q| format!("`@{q}`"))
                .collect::<Vec<_>>()
                .join(" "),
            ms(percentile(times, 0.50)),
            ms(percentile(times, 0.95))
        );
    }
    println!(
        "| hover on the 20 MB session, cold (median of 5) | {} | |",
        ms(cold_p50)
    );
    println!(
        "| hover on the 20 MB session, warm p50 / p95 | {} / {} | ≤ 10 ms |",
        ms(warm_p50),
        ms(warm_p95)
    );
    println!(
        "| diagnostics after the last change, less the 150 ms debounce ({} KB, 2,000 mentions of 3 sessions) p50 / max | {} / {} | ≤ 30 ms |",
        doc_bytes / 1024,
        ms(diag_p50),
        ms(diag_max)
    );
    println!(
        "| resident memory once indexed | {:.1} MiB | {rss_target} |",
        rss_indexed as f64 / 1024.0
    );
    println!(
        "| resident memory at the end | {:.1} MiB | |",
        rss_end as f64 / 1024.0
    );
    println!(
        "| CLI `candidates`, no index cache, wall / CPU (median of 3) | {} / {} | |",
        ms(cli_cold_p50),
        ms(cli_cold_cpu)
    );
    println!(
        "| CLI `candidates`, index cache warm, wall p50 / max of 10, CPU p50 | {} / {}, {} | ≤ 150 ms |",
        ms(cli_warm_p50),
        ms(cli_warm_max),
        ms(cli_warm_cpu)
    );
}

/// `LSP_BENCH_SMAPS=1`: the server's largest mappings by resident size at
/// the end of the search build, to stderr (what its memory is made of).
fn print_largest_mappings(pid: u32) {
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).unwrap_or_default();
    let mut sizes: std::collections::HashMap<String, u64> = Default::default();
    let mut name = String::new();
    for line in smaps.lines() {
        if let Some(kib) = line.strip_prefix("Rss:") {
            let kib: u64 = kib
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap_or(0);
            *sizes.entry(name.clone()).or_default() += kib;
        } else if line
            .split_whitespace()
            .next()
            .is_some_and(|f| f.contains('-'))
        {
            name = line
                .split_whitespace()
                .nth(5)
                .unwrap_or("[anonymous]")
                .to_string();
            if let Some(file) = name
                .rsplit('/')
                .next()
                .filter(|_| name.contains("/search/"))
            {
                name = format!("search/*.{}", file.rsplit('.').next().unwrap_or(""));
            }
        }
    }
    let mut sizes: Vec<_> = sizes.into_iter().collect();
    sizes.sort_by_key(|s| std::cmp::Reverse(s.1));
    for (name, kib) in sizes.iter().take(12) {
        eprintln!("smaps {:>8.1} MiB  {name}", *kib as f64 / 1024.0);
    }
}
