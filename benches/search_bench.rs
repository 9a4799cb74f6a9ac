//! Full-text search at scale (issue 16): a generated store of 1,000 Claude
//! Code transcripts and 1,000 Codex rollouts (about 200 MB) of Zipf-drawn
//! prose with code identifiers, built once under `target/` and reused.
//! Measures the first index (time, peak RSS of the indexing process, size
//! against the logs), known-item search (for three or four distinctive
//! words from the middle of one session, the last one sometimes half
//! typed: is that session first, within five?), query latency in process,
//! and a warm CLI `search` end to end.
//!
//! Run: `cargo bench --bench search_bench`. `SEARCH_BENCH_LOGS` (default
//! 1000 per agent) and `SEARCH_BENCH_KB` (default 100 per log) make a
//! smaller corpus. Prints a Markdown table; docs/performance.md ("Search")
//! records a run.
//!
//! `SEARCH_BENCH_CORPUS=prose` (issue 29 item 5): the prose corpus
//! instead — 1,000 sessions (500 per agent unless `SEARCH_BENCH_LOGS`
//! says otherwise) of 100 KB of messages only (no tool output: every byte
//! of a message is on the surface, the worst case for the index's size)
//! drawn from 200,000 words, deterministic (the same generator, seeded).
//! `SEARCH_BENCH_VOCABULARY` sets the number of words of either corpus.

#[path = "../tests/lsp_common/mod.rs"]
mod lsp_common;
#[path = "support/space.rs"]
mod space;
mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use hydra_session_lsp::formats::FormatChoice;
use hydra_session_lsp::model::SessionStore;
use hydra_session_lsp::reference::projection::Projector;
use hydra_session_lsp::search::{self, Search, SearchOptions};
use hydra_session_lsp::store::{FsStore, Scan, StoreSpec};
use lsp_common::file_uri;
use serde_json::json;
use support::{ms, percentile, rss_kib, spawn_server, status_kib, Lcg};

/// Distinct words of the generated language (the default corpus's).
const VOCABULARY: usize = 30_000;
/// Distinct words of the prose corpus.
const PROSE_VOCABULARY: usize = 200_000;
/// Words at or past this rank count as distinctive for a query.
const DISTINCTIVE: usize = 3_000;
const QUERIES: usize = 200;
const SYLLABLES: [&str; 20] = [
    "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "der", "mon", "tal", "bex",
    "for", "gin", "har", "ul", "os",
];

/// The word of rank `r`: short for frequent ranks, longer for rare ones.
fn word(r: usize) -> String {
    let mut out = String::new();
    let mut n = r + SYLLABLES.len();
    while n > 0 {
        out.push_str(SYLLABLES[n % SYLLABLES.len()]);
        n /= SYLLABLES.len();
    }
    out
}

struct Language {
    words: Vec<String>,
    rank: HashMap<String, usize>,
    /// Whether logs hold tool output beside the messages.
    tools: bool,
}

/// Which corpus, from `SEARCH_BENCH_CORPUS`: `prose` or the default.
fn prose_corpus() -> bool {
    std::env::var("SEARCH_BENCH_CORPUS").is_ok_and(|v| v == "prose")
}

impl Language {
    fn new() -> Self {
        let prose = prose_corpus();
        let default = if prose { PROSE_VOCABULARY } else { VOCABULARY };
        let size = env_usize("SEARCH_BENCH_VOCABULARY", default).max(DISTINCTIVE * 2);
        let words: Vec<String> = (0..size).map(word).collect();
        let rank = words
            .iter()
            .enumerate()
            .map(|(r, w)| (w.clone(), r))
            .collect();
        Language {
            words,
            rank,
            tools: !prose,
        }
    }

    /// A Zipf draw (exponent 1): rank ⌊N^u⌋ − 1.
    fn draw(&self, rng: &mut Lcg) -> &str {
        let u = rng.next(1 << 20) as f64 / (1u64 << 20) as f64;
        let n = self.words.len();
        let r = ((n as f64).powf(u) as usize).saturating_sub(1);
        &self.words[r.min(n - 1)]
    }

    /// `least` to `least + spread` words of prose, now and then a code
    /// identifier or a path.
    fn prose(&self, rng: &mut Lcg, least: usize, spread: usize) -> String {
        let n = least + rng.next(spread);
        let mut out = String::new();
        for i in 0..n {
            if i > 0 {
                out.push(if rng.next(12) == 0 { '\n' } else { ' ' });
            }
            match rng.next(40) {
                0 => {
                    let (a, b) = (self.draw(rng).to_string(), self.draw(rng).to_string());
                    out.push_str(&format!("{}{}", capital(&a), capital(&b)));
                }
                1 => out.push_str(&format!("{}_{}", self.draw(rng), self.draw(rng))),
                2 => out.push_str(&format!("src/{}/{}.rs", self.draw(rng), self.draw(rng))),
                _ => out.push_str(self.draw(rng)),
            }
        }
        out
    }
}

fn capital(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn uuid(kind: usize, i: usize) -> String {
    format!("{kind:08x}-0000-4000-8000-{i:012x}")
}

fn stamp(i: usize, j: usize) -> String {
    format!(
        "2026-{:02}-{:02}T10:{:02}:{:02}.000Z",
        1 + i % 12,
        1 + i % 28,
        (j / 60) % 60,
        j % 60
    )
}

/// A Claude Code transcript of about `bytes`: prompts, answers, tool calls
/// with large results (not part of the surface).
fn claude(lang: &Language, rng: &mut Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(1, i);
    let cwd = format!("/home/u/proj{}", i % 40);
    let mut out = String::new();
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        let base = |kind: &str, message: serde_json::Value| {
            json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": cwd,
                "sessionId": session, "version": "2.1.7", "type": kind, "message": message,
                "uuid": uuid(2, i * 10_000 + j), "timestamp": stamp(i, j)})
        };
        // 1: a prompt, 2: an answer, 0: a tool's output (prose: none).
        let kind = if lang.tools { j % 3 } else { 2 - j % 2 };
        let line = match kind {
            1 => base(
                "user",
                json!({"role": "user", "content": lang.prose(rng, 10, 20)}),
            ),
            2 => base(
                "assistant",
                json!({"model": "claude-sonnet-4-5", "id": format!("msg_{i}_{j}"),
                "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": lang.prose(rng, 40, 120)}]}),
            ),
            _ => base(
                "user",
                json!({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("toolu_{i}_{j}"), "content": lang.prose(rng, 300, 600)}]}),
            ),
        };
        out.push_str(&line.to_string());
        out.push('\n');
    }
    (
        format!("claude/projects/-home-u-proj{}/{session}.jsonl", i % 40),
        out,
    )
}

/// A Codex rollout of about `bytes`.
fn codex(lang: &Language, rng: &mut Lcg, i: usize, bytes: usize) -> (String, String) {
    let session = uuid(3, i);
    let mut out = json!({"timestamp": stamp(i, 0), "type": "session_meta", "payload": {
        "id": session, "timestamp": stamp(i, 0), "cwd": format!("/home/u/proj{}", i % 40),
        "originator": "codex_cli_rs", "cli_version": "0.77.0", "source": "cli"}})
    .to_string()
        + "\n";
    let mut j = 0;
    while out.len() < bytes {
        j += 1;
        // 1: a prompt, 2: a tool's output (prose: none), 0: an answer.
        let kind = if lang.tools { j % 3 } else { j % 2 };
        let payload = match kind {
            1 => json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": lang.prose(rng, 10, 20)}]}),
            2 => json!({"type": "function_call_output", "call_id": format!("call_{i}_{j}"),
                "output": lang.prose(rng, 300, 600)}),
            _ => json!({"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": lang.prose(rng, 40, 120)}]}),
        };
        let line = json!({"timestamp": stamp(i, j), "type": "response_item", "payload": payload});
        out.push_str(&line.to_string());
        out.push('\n');
    }
    let day = 1 + i % 28;
    (
        format!(
            "codex/sessions/2026/11/{day:02}/rollout-2026-11-{day:02}T10-00-00-{session}.jsonl"
        ),
        out,
    )
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The corpus under `target/`, generated once per size.
fn corpus(logs: usize, kb: usize, lang: &Language) -> PathBuf {
    let kind = if lang.tools { "" } else { "prose-" };
    let words = lang.words.len();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "target/search-bench-corpus-{kind}{logs}x{kb}k-{words}w"
    ));
    let done = root.join(".complete");
    if done.exists() {
        return root;
    }
    let mut rng = Lcg(11);
    for i in 0..logs {
        for (rel, text) in [
            claude(lang, &mut rng, i, kb * 1024),
            codex(lang, &mut rng, i, kb * 1024),
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write");
        }
    }
    std::fs::write(&done, b"").expect("mark");
    root
}

fn specs(root: &Path) -> Vec<StoreSpec> {
    let format = |name: &str| {
        FormatChoice::Fixed(
            *hydra_session_lsp::formats::all()
                .iter()
                .find(|f| f.name() == name)
                .expect("format"),
        )
    };
    vec![
        StoreSpec {
            path: root.join("claude/projects"),
            format: format("claude-code"),
        },
        StoreSpec {
            path: root.join("codex/sessions"),
            format: format("codex"),
        },
    ]
}

fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let meta = entry.metadata().expect("meta");
        total += if meta.is_dir() {
            dir_bytes(&entry.path())
        } else {
            meta.len()
        };
    }
    total
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// In a process of its own (so its peak RSS is the indexing's): the first
/// index of the corpus into `index`, as the CLI's `search` builds it.
/// Prints `seconds peak_kib`.
fn first_index(root: &Path, index: &Path) {
    let started = Instant::now();
    let specs = specs(root);
    let store = FsStore::open(&specs, Scan::HeadersOnly);
    let roots: Vec<PathBuf> = specs.iter().map(|s| s.path.clone()).collect();
    // The CLI's writer unless `SEARCH_BENCH_WRITER_MIB` says otherwise
    // (16: the language server's).
    let budget = std::env::var("SEARCH_BENCH_WRITER_MIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(search::CLI_WRITER_BYTES, |mib| mib << 20);
    let search = Search::open(index, &roots, 0)
        .expect("open")
        .with_writer_budget(budget);
    let report = search
        .sync(
            &store.sessions(),
            store.reader().as_ref(),
            &|| false,
            &mut |_, _| {},
        )
        .expect("sync");
    assert_eq!(report.added, store.sessions().len());
    println!("{} {}", started.elapsed().as_secs_f64(), peak_rss_kib());
}

/// A known-item query for one session: three or four distinctive words of
/// one message from the middle of it, in order, the last one half typed
/// one time in three.
fn known_item(lang: &Language, rng: &mut Lcg, messages: &[String]) -> Option<String> {
    if messages.len() < 3 {
        return None;
    }
    let middle =
        &messages[messages.len() / 3..(2 * messages.len() / 3).max(messages.len() / 3 + 1)];
    let message = &middle[rng.next(middle.len())];
    let rare: Vec<&str> = message
        .split_whitespace()
        .filter(|w| lang.rank.get(*w).is_some_and(|&r| r >= DISTINCTIVE))
        .collect();
    let n = 3 + rng.next(2);
    if rare.len() < n {
        return None;
    }
    let start = rng.next(rare.len() - n + 1);
    let mut words: Vec<String> = rare[start..start + n]
        .iter()
        .map(|w| w.to_string())
        .collect();
    let typed_out = rng.next(3) != 0;
    if typed_out {
        return Some(words.join(" ") + " ");
    }
    let last = words.pop().unwrap_or_default();
    let keep = (last.len() * 3 / 5).max(3).min(last.len());
    words.push(last[..keep].to_string());
    Some(words.join(" "))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--first-index") {
        first_index(Path::new(&args[at + 1]), Path::new(&args[at + 2]));
        return;
    }
    // `--space INDEX`: where an index's bytes go, by field.
    if let Some(at) = args.iter().position(|a| a == "--space") {
        for row in space::rows(Path::new(&args[at + 1])) {
            println!("{row}");
        }
        return;
    }
    if args.iter().any(|a| a == "--list" || a == "--test") {
        return; // `cargo test --benches` lists benches: nothing to list.
    }
    let lang = Language::new();
    let logs = env_usize("SEARCH_BENCH_LOGS", if lang.tools { 1000 } else { 500 });
    let kb = env_usize("SEARCH_BENCH_KB", 100);
    let root = corpus(logs, kb, &lang);
    let log_bytes = dir_bytes(&root.join("claude")) + dir_bytes(&root.join("codex"));
    let cache = tempfile::tempdir().expect("tempdir");
    let index =
        search::location::for_specs(&cache.path().join("hydra-session/search"), &specs(&root));

    // 1. The first index, in a process of its own.
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--first-index",
            root.to_str().expect("utf-8"),
            index.to_str().expect("utf-8"),
        ])
        .output()
        .expect("first index");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.split_whitespace();
    let seconds: f64 = fields.next().and_then(|s| s.parse().ok()).expect("seconds");
    let peak_kib: u64 = fields.next().and_then(|s| s.parse().ok()).expect("peak");
    let index_bytes = dir_bytes(&index);

    // 2. Known items, and query latency in process.
    let specs = specs(&root);
    let store = FsStore::open(&specs, Scan::HeadersOnly);
    let sessions = store.sessions();
    let reader = store.reader();
    let search = Search::open_existing(&index).expect("open").expect("built");
    let session_of = |id: &str| store.get(id); // texts
    let mut rng = Lcg(99);
    let (mut first, mut top5, mut asked) = (0, 0, 0);
    let mut latencies = Vec::new();
    let mut misses = Vec::new();
    let mut known: Vec<(String, String)> = Vec::new();
    while asked < QUERIES {
        let session = &sessions[rng.next(sessions.len())];
        // The session's surface, as the index holds it (a Claude Code
        // branch or a shadowed message is not on it).
        let mut projector = Projector::new(None, usize::MAX);
        let _ = reader.read(session, &|| false, &mut |entry| projector.push(entry));
        let messages: Vec<String> = projector
            .finish()
            .messages
            .into_iter()
            .map(|m| m.text)
            .collect();
        let Some(query) = known_item(&lang, &mut rng, &messages) else {
            continue;
        };
        asked += 1;
        known.push((query.clone(), session.id().to_string()));
        let parsed = search::parse_query(&query).expect("query");
        let options = SearchOptions {
            limit: 5,
            workspace: None,
            now_ms: 1_800_000_000_000,
            exists: None,
            texts: Some(search::Texts {
                session: &session_of,
                reader: reader.as_ref(),
            }),
        };
        let started = Instant::now();
        let hits = search.search(&parsed, options).expect("search");
        latencies.push(started.elapsed());
        match hits.iter().position(|h| h.session_id == session.id()) {
            Some(0) => {
                first += 1;
                top5 += 1;
            }
            Some(_) => top5 += 1,
            None => misses.push(query),
        }
    }
    let p50 = percentile(&mut latencies, 0.5);
    let p95 = percentile(&mut latencies, 0.95);

    // 3. A warm CLI search, end to end.
    let mut cli = Vec::new();
    for i in 0..20 {
        let words = [
            "--store",
            "",
            "--format",
            "claude-code",
            "--store",
            "",
            "--format",
            "codex",
        ];
        let mut words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        words[1] = specs[0].path.display().to_string();
        words[5] = specs[1].path.display().to_string();
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
            .arg("search")
            .args(&words)
            .arg(lang.words[DISTINCTIVE + i].as_str())
            .env("XDG_CACHE_HOME", cache.path())
            .output()
            .expect("search runs");
        cli.push(started.elapsed());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let cli_p50 = percentile(&mut cli, 0.5);
    let cli_p95 = percentile(&mut cli, 0.95);

    // 4. The language server on the same index: memory without and with
    // it, query latency over stdio, appended messages found.
    let server = tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(server_figures(&root, cache.path(), &known, &lang));

    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "| search bench ({} logs, {:.0} MiB) | figure | goal |",
        sessions.len(),
        mib(log_bytes)
    );
    println!("|---|---|---|");
    // The goal is a rate: 6 s per 200 MB of logs (issue 29 item 5).
    let goal = 6.0 * log_bytes as f64 / 200e6;
    println!("| first index | {seconds:.2} s | ≤ {goal:.1} s (6 s per 200 MB) |");
    println!(
        "| peak RSS while indexing | {:.0} MiB | ≤ 200 MiB |",
        peak_kib as f64 / 1024.0
    );
    println!(
        "| index size | {:.1} MiB ({:.1} % of the logs) | ≤ 40 % |",
        mib(index_bytes),
        100.0 * index_bytes as f64 / log_bytes as f64
    );
    println!(
        "| known item first | {first}/{asked} ({:.1} %) | ≥ 99 % |",
        100.0 * first as f64 / asked as f64
    );
    println!("| known item in the first five | {top5}/{asked} | all |");
    println!(
        "| query p50 / p95 (in process) | {} / {} | p95 ≤ 10 ms |",
        ms(p50),
        ms(p95)
    );
    println!(
        "| warm CLI search p50 / p95 | {} / {} | ≤ 50 ms |",
        ms(cli_p50),
        ms(cli_p95)
    );
    let mib_of = |kib: u64| kib as f64 / 1024.0;
    println!(
        "| server VmRSS indexed, before any search | {:.1} MiB | |",
        mib_of(server.rss_before)
    );
    println!(
        "| server VmRSS (VmHWM) after {} searches | {:.1} ({:.1}) MiB | ≤ 40 MiB more |",
        server.queries.len(),
        mib_of(server.rss_after),
        mib_of(server.hwm_after)
    );
    println!(
        "| server: first search (opens and checks the index) | {} | |",
        ms(server.first)
    );
    let mut queries = server.queries.clone();
    println!(
        "| server query p50 / p95 (stdio round trip) | {} / {} | p95 ≤ 10 ms |",
        ms(percentile(&mut queries, 0.5)),
        ms(percentile(&mut queries, 0.95))
    );
    println!(
        "| server: known item first | {}/{} | |",
        server.first_hits,
        server.queries.len()
    );
    let mut appended = server.appended.clone();
    println!(
        "| appended message searchable, p50 / max of {} | {} / {} | ≤ 1 s |",
        appended.len(),
        ms(percentile(&mut appended, 0.5)),
        ms(percentile(&mut appended, 1.0))
    );
    println!();
    println!("| index: field | part | size | share |");
    println!("|---|---|---|---|");
    for row in space::rows(&index) {
        println!("{row}");
    }
    for miss in misses.iter().take(5) {
        println!("missed: {miss:?}");
    }
    let _: Duration = p95;
}

/// What the language server shows on the corpus.
struct ServerFigures {
    /// VmRSS once the sessions are indexed, before any search (KiB).
    rss_before: u64,
    /// VmRSS and VmHWM after the searches (KiB).
    rss_after: u64,
    hwm_after: u64,
    /// The first search: opening the index and checking every log.
    first: Duration,
    /// Each known-item query, round trip over stdio.
    queries: Vec<Duration>,
    first_hits: usize,
    /// From appending a message to a watched log to a search finding it.
    appended: Vec<Duration>,
}

/// Appended messages measured.
const APPENDS: usize = 20;

async fn server_figures(
    root: &Path,
    cache: &Path,
    known: &[(String, String)],
    lang: &Language,
) -> ServerFigures {
    let specs = specs(root);
    let (mut child, mut client) = spawn_server(&[
        ("XDG_CACHE_HOME", cache.as_os_str()),
        ("CLAUDE_CONFIG_DIR", "/nonexistent".as_ref()),
        ("CODEX_HOME", "/nonexistent".as_ref()),
        ("GEMINI_CLI_HOME", "/nonexistent".as_ref()),
    ]);
    let pid = child.id().unwrap_or(0);
    client
        .initialize(json!({
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri("/home/u/proj7"), "name": "proj7"}],
            "initializationOptions": {"hydraSession": {"spillDir": "", "store": [
                {"path": specs[0].path, "format": "claude-code"},
                {"path": specs[1].path, "format": "codex"},
            ]}},
        }))
        .await;
    // Indexed when status says so (it answers at once, while indexing).
    loop {
        let status = client.call("sessionReference/status", json!({})).await;
        if status["indexing"] == false && status["sessions"].as_u64() > Some(0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let rss_before = rss_kib(pid);
    let search = |query: &str| json!({"query": query, "limit": 5});
    let started = Instant::now();
    client
        .call("sessionReference/search", search("warmup"))
        .await;
    let first = started.elapsed();
    let mut queries = Vec::new();
    let mut first_hits = 0;
    for (query, id) in known {
        let started = Instant::now();
        let hits = client.call("sessionReference/search", search(query)).await;
        queries.push(started.elapsed());
        if hits[0]["sessionId"] == id.as_str() {
            first_hits += 1;
        }
    }
    let rss_after = rss_kib(pid);
    let hwm_after = status_kib(pid, "VmHWM");
    // Appends: a new assistant message with a word no log has, to one
    // Codex rollout after another; the search asked until it finds it.
    let rollouts: Vec<PathBuf> = walk_files(&root.join("codex/sessions"));
    let mut appended = Vec::new();
    for n in 0..APPENDS {
        let marker = lang_word_unused(lang, n);
        let rollout = &rollouts[(n * 97) % rollouts.len()];
        let line = json!({"timestamp": stamp(n, 9_999), "type": "response_item", "payload": {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": format!("appended {marker} here")}]}});
        let started = Instant::now();
        {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(rollout)
                .expect("open the rollout");
            writeln!(file, "{line}").expect("append");
        }
        loop {
            let hits = client
                .call("sessionReference/search", search(&marker))
                .await;
            if hits.as_array().is_some_and(|h| !h.is_empty()) {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "appended message never found"
            );
        }
        appended.push(started.elapsed());
    }
    client.shutdown_and_exit().await;
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    ServerFigures {
        rss_before,
        rss_after,
        hwm_after,
        first,
        queries,
        first_hits,
        appended,
    }
}

/// A word of the language's alphabet that no log holds: past every rank
/// drawn.
/// A word of no session for the `n`th append of this run: the corpus is
/// kept between runs and each run appends to it, so the word is also new
/// to every earlier run (made of this run's start time), or the search
/// would find an earlier run's copy at once.
fn lang_word_unused(lang: &Language, n: usize) -> String {
    static RUN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let run = *RUN.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as usize % 1_000_000_007)
    });
    let w = format!("{}{}", word(lang.words.len() * 4 + n * 7919), word(run));
    assert!(!lang.rank.contains_key(&w));
    w
}

/// Every file below `dir`, sorted.
fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
