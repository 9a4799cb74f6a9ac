//! Issue 27 item 14: one session whose first prompt is a 100 MB message
//! row, in each database format (OpenCode's schema as Kilo Code's and
//! OpenCode's own, Goose, Crush, Zed's zstd thread). It lists with the
//! title of its first words, its listing's peak resident memory stays
//! within 64 MiB of an empty store's (it was 700 MiB: every body read
//! whole, parsed and copied), and `prepare` gives the whole message in
//! its full snapshot.
//!
//! The peak is the binary's own `ru_maxrss` as GNU time reports it (the
//! process's `VmHWM` at its end, which `/proc` no longer shows once it
//! exits); without `/usr/bin/time` the test is skipped, and says so.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use base64::Engine;
use rusqlite::Connection;
use serde_json::{json, Value};

const MESSAGE_BYTES: usize = 100 << 20;

const FIRST_WORDS: &str = "Plan the billing migration now";

/// What each listing's title must be: the first words, cut to 80.
const TITLE: &str =
    "Plan the billing migration now lorem ipsum dolor sit amet lorem ipsum dolor sit";

/// The listing's allowance over an empty store's peak.
const LISTING_ALLOWANCE: u64 = 64 << 20;

/// The 100 MB prompt.
fn big_text() -> String {
    let filler = "lorem ipsum dolor sit amet ";
    let mut text = format!("{FIRST_WORDS}\n");
    text.push_str(&filler.repeat(MESSAGE_BYTES / filler.len()));
    text
}

fn schema(conn: &Connection, fixture: &str) {
    let sql = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture),
    )
    .expect("fixture");
    // The fixture's DDL only (OpenCode's file holds rows too).
    let ddl: String = sql
        .lines()
        .filter(|l| !l.starts_with("INSERT"))
        .collect::<Vec<_>>()
        .join("\n");
    conn.execute_batch(&ddl).expect("schema");
}

fn open(path: &Path) -> Connection {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    Connection::open(path).expect("db")
}

/// OpenCode's schema (Kilo Code's `kilo.db`, OpenCode's `opencode.db`).
fn opencode_schema(path: &Path, text: &str) {
    let conn = open(path);
    schema(&conn, "opencode/opencode.sql");
    conn.execute_batch(
        "INSERT INTO project VALUES ('prj', '/w', 1);
         INSERT INTO session VALUES ('ses_big', 'prj', NULL, 's', '/w', 'New session - 2026-09-01T08:00:00.000Z', '1', NULL, 1788249600000, 1788249600000);
         INSERT INTO message VALUES ('msg_1', 'ses_big', 1, 1, '{\"role\":\"user\"}');
         INSERT INTO message VALUES ('msg_2', 'ses_big', 2, 2, '{\"role\":\"assistant\",\"parentID\":\"msg_1\",\"finish\":\"stop\"}');
         INSERT INTO part VALUES ('prt_2', 'msg_2', 'ses_big', 2, 2, '{\"type\":\"text\",\"text\":\"Planned.\"}');",
    )
    .expect("rows");
    let part = json!({"type": "text", "text": text}).to_string();
    conn.execute(
        "INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_big', 1, 1, ?1)",
        [part],
    )
    .expect("big part");
}

fn goose(path: &Path, text: &str) {
    let conn = open(path);
    schema(&conn, "goose/schema.sql");
    conn.execute_batch(
        "INSERT INTO sessions (id, name, working_dir, created_at) VALUES ('g_big', 'CLI Session', '/w', '2026-09-01 08:00:00');",
    )
    .expect("session");
    let content = json!([{"type": "text", "text": text}]).to_string();
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('g_big', 'user', ?1, 1788249600)",
        [content],
    )
    .expect("big message");
    conn.execute_batch(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('g_big', 'assistant', '[{\"type\":\"text\",\"text\":\"Planned.\"}]', 1788249601);",
    )
    .expect("reply");
}

fn crush(path: &Path, text: &str) {
    let conn = open(path);
    schema(&conn, "crush/schema.sql");
    conn.execute_batch(
        "INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('c_big', 'New Session', 1, 1788249600);",
    )
    .expect("session");
    let parts = json!([{"type": "text", "data": {"text": text}}]).to_string();
    conn.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m1', 'c_big', 'user', ?1, 1788249600, 1)",
        [parts],
    )
    .expect("big message");
    conn.execute_batch(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m2', 'c_big', 'assistant', '[{\"type\":\"text\",\"data\":{\"text\":\"Planned.\"}}]', 1788249601, 1);",
    )
    .expect("reply");
}

fn zed(path: &Path, text: &str) {
    let conn = open(path);
    schema(&conn, "zed/schema.sql");
    let thread = json!({
        "version": "0.3.0",
        "title": "New Thread",
        "messages": [
            {"User": {"id": "u1", "content": [{"Text": text}]}},
            {"Agent": {"content": [{"Text": "Planned."}], "tool_results": {}}}
        ]
    })
    .to_string();
    let data = zstd::encode_all(thread.as_bytes(), 3).expect("zstd");
    conn.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, folder_paths_order, created_at) VALUES ('z_big', 'New Thread', '2026-09-01T08:05:00Z', 'zstd', ?1, '/w', '0', '2026-09-01T08:00:00Z')",
        [data],
    )
    .expect("thread");
}

/// GNU time, which reports its child's `ru_maxrss`.
const TIME: &str = "/usr/bin/time";

/// Runs the binary as `support::run` does, under GNU time: its output and
/// its peak resident memory in bytes.
///
/// Not `wait4` here: a child spawned from this process (`posix_spawn`,
/// whose child shares our memory until it executes) inherits our own
/// peak in `ru_maxrss` (Linux keeps the larger across `execve`), and this
/// process holds the 100 MB message. GNU time is a small process that
/// forks the binary, so the binary's `ru_maxrss` is its own.
fn run_measured(home: &Path, args: &[&str], stdin: &[u8]) -> (Output, u64) {
    let cwd = tempfile::tempdir().expect("temp dir");
    let report = cwd.path().join("peak");
    let mut command = Command::new(TIME);
    command
        .args(["-f", "%M", "-o"])
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(args)
        .current_dir(cwd.path())
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("HOME", home)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("XDG_DATA_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("time runs");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin).expect("stdin");
    }
    let output = child.wait_with_output().expect("binary finishes");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // `%M`: the peak in KiB, on the report's last line.
    let report = std::fs::read_to_string(&report).expect("time's report");
    let kib: u64 = report
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in {report:?}"));
    assert!(kib > 0, "no peak in {report:?}");
    (output, kib * 1024)
}

/// One format's check: `seed` writes the big session at `file` below a
/// store folder read as `format`; `id` is the session's.
fn lists_in_bounded_memory_and_prepares_whole(
    format: &str,
    file: &str,
    id: &str,
    seed: fn(&Path, &str),
) {
    if !Path::new(TIME).is_file() {
        crate::skip::skipped("no GNU time at /usr/bin/time to measure the peak");
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let empty = tempfile::tempdir().expect("empty store");
    let store = tempfile::tempdir().expect("store");
    let text = big_text();
    seed(&store.path().join(file), &text);
    let empty_root = empty.path().to_str().expect("utf-8");
    let root = store.path().to_str().expect("utf-8");
    let args = |command, root| [command, "--store", root, "--store-format", format];
    let (_, baseline) = run_measured(home.path(), &args("candidates", empty_root), b"");
    let (listed, peak) = run_measured(home.path(), &args("candidates", root), b"");
    let list: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(list[0]["sessionId"], id, "{format}: {list}");
    assert_eq!(list[0]["label"], TITLE, "{format}: {list}");
    assert!(
        peak < baseline + LISTING_ALLOWANCE,
        "{format}: the listing peaked at {} MiB, an empty store's at {} MiB",
        peak >> 20,
        baseline >> 20
    );
    eprintln!(
        "{format}: listing peak {} MiB (empty store {} MiB)",
        peak >> 20,
        baseline >> 20
    );
    let reference = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("\"{id}\""));
    let prompt = format!("Continue @[Plan](hydra-session:{reference})");
    let (prepared, peak) = run_measured(home.path(), &args("prepare", root), prompt.as_bytes());
    eprintln!("{format}: prepare peak {} MiB", peak >> 20);
    let prepared: Value = serde_json::from_slice(&prepared.stdout).expect("JSON");
    let context = prepared["additionalContext"]["content"][0]["text"]
        .as_str()
        .expect("context");
    let start = context.find("<referenced-sessions>\n").expect("open") + 22;
    let end = context.find("\n</referenced-sessions>").expect("close");
    let snapshot: Value = serde_json::from_str(&context[start..end]).expect("snapshot");
    assert_eq!(snapshot[0]["sessionId"], id, "{format}");
    assert_eq!(snapshot[0]["capturedThroughSeq"], 2, "{format}");
    // The 100 MB message is past any budget: the full snapshot has it.
    let full = snapshot[0]["fullSnapshot"]["path"]
        .as_str()
        .unwrap_or_else(|| panic!("{format}: no full snapshot in {snapshot}"));
    let full: Value =
        serde_json::from_slice(&std::fs::read(full).expect("full snapshot")).expect("JSON");
    let conversation = full["conversation"].as_array().expect("conversation");
    assert_eq!(conversation.len(), 2, "{format}");
    assert_eq!(conversation[0]["role"], "user");
    assert_eq!(
        conversation[0]["text"].as_str(),
        Some(text.as_str()),
        "{format}"
    );
    assert_eq!(conversation[1]["text"], "Planned.");
}

#[test]
fn kilo_code() {
    lists_in_bounded_memory_and_prepares_whole("kilo", "kilo.db", "ses_big", opencode_schema);
}

#[test]
fn opencode_database() {
    lists_in_bounded_memory_and_prepares_whole(
        "opencode",
        "opencode.db",
        "ses_big",
        opencode_schema,
    );
}

#[test]
fn goose_sessions() {
    lists_in_bounded_memory_and_prepares_whole("goose", "sessions.db", "g_big", goose);
}

#[test]
fn crush_project() {
    lists_in_bounded_memory_and_prepares_whole("crush", "crush.db", "c_big", crush);
}

#[test]
fn zed_threads() {
    lists_in_bounded_memory_and_prepares_whole("zed", "threads.db", "z_big", zed);
}
