//! Copilot Chat sessions of VS Code read with zero configuration, through
//! the built binary: the fixtures written here (`tests/fixtures/copilot-chat/User`)
//! as `~/.config/Code/User` (HOME pointed at a temp dir), then moved by
//! `XDG_CONFIG_HOME` and found in VS Code Insiders' folder; a store named
//! with `--store-format copilot-chat`; and the store's index noticing the
//! log rewritten from scratch (a same-size file, a shorter one, a new full
//! state appended).

use crate::support::{prepare, run, snapshots, stdout_json, store_status};
use std::io::Write;
use std::path::{Path, PathBuf};

use hydra_session_lsp::formats::{self, FormatChoice};
use hydra_session_lsp::store::Catalog;
use serde_json::{json, Value};

const LOG_ID: &str = "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b";
const DOCUMENT_ID: &str = "d2b3c4d5-e6f7-4a80-9b1c-2d3e4f5a6b7c";
const EMPTY_WINDOW_ID: &str = "e3c4d5e6-f7a8-4b90-8c2d-3e4f5a6b7c8d";

fn fixture_user() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot-chat/User")
}

/// A copy of the fixtures' user-data folder at `to`.
fn copy_user(to: &Path) {
    let mut stack = vec![fixture_user()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture dir").flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(fixture_user())
                .expect("below the fixtures");
            if path.is_dir() {
                stack.push(path);
            } else if !path.to_string_lossy().ends_with(".expected.json") {
                let target = to.join(rel);
                std::fs::create_dir_all(target.parent().expect("a parent")).expect("mkdir");
                std::fs::copy(&path, target).expect("copy");
            }
        }
    }
}

fn sorted_ids(list: &Value) -> Vec<String> {
    let mut ids: Vec<String> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["sessionId"].as_str().unwrap_or_default().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn candidates_status_and_prepare_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    copy_user(&home.path().join(".config/Code/User"));
    let list = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(sorted_ids(&list), [LOG_ID, DOCUMENT_ID, EMPTY_WINDOW_ID]);
    let row = list
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["sessionId"] == LOG_ID)
        .expect("the log's session");
    assert_eq!(
        json!({"label": row["label"], "cwd": row["cwd"], "createdAt": row["createdAt"]}),
        json!({"label": "Round the tax per cart", "cwd": "/home/ana/shop front", "createdAt": 1_796_026_500_000u64})
    );
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let store = store_status(&status, "copilot-chat");
    assert_eq!(store["sessions"], 3);
    assert_eq!(store["errors"], json!([]));

    let mention = row["mention"].as_str().expect("a mention");
    let prepared = prepare(home.path(), mention);
    let snapshot = snapshots(&prepared);
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "Round the tax per line, not per cart"},
            {"role": "assistant", "text": "Each line is rounded now, in `tax::line_total`."},
            {"role": "user", "text": "Now add a regression test"},
            {"role": "assistant", "text": "Added `tests/tax_rounding.rs`."}
        ])
    );
    assert_eq!(snapshot[0]["capturedThroughSeq"], 13);
}

#[test]
fn xdg_config_home_moves_the_store_and_insiders_is_found() {
    let home = tempfile::tempdir().expect("temp dir");
    let config = tempfile::tempdir().expect("temp dir");
    copy_user(&config.path().join("Code - Insiders/User"));
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("XDG_CONFIG_HOME", config.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(sorted_ids(&moved), [LOG_ID, DOCUMENT_ID, EMPTY_WINDOW_ID]);
    // A relative XDG_CONFIG_HOME counts for nothing: `~/.config` again.
    copy_user(&home.path().join(".config/Code/User"));
    std::fs::remove_dir_all(home.path().join(".config/Code/User/workspaceStorage")).expect("rm");
    let relative = stdout_json(&run(
        home.path(),
        &[("XDG_CONFIG_HOME", Path::new("config"))],
        &["candidates"],
        b"",
    ));
    assert_eq!(sorted_ids(&relative), [EMPTY_WINDOW_ID]);
}

#[test]
fn a_store_named_with_the_copilot_chat_format() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = fixture_user();
    let store = store.to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &[
            "candidates",
            "--store",
            store,
            "--store-format",
            "copilot-chat",
        ],
        b"",
    ));
    assert_eq!(sorted_ids(&list), [LOG_ID, DOCUMENT_ID, EMPTY_WINDOW_ID]);
}

#[test]
fn an_auto_store_decides_a_json_by_its_document() {
    // A pretty-printed document's first line is `{`, the start of any
    // document (Gemini's too): in a `chatSessions` folder it is Copilot
    // Chat's, judged by its document.
    let home = tempfile::tempdir().expect("temp dir");
    let store = tempfile::tempdir().expect("temp dir");
    copy_user(store.path());
    let store = store.path().to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store],
        b"",
    ));
    assert_eq!(sorted_ids(&list), [LOG_ID, DOCUMENT_ID, EMPTY_WINDOW_ID]);
}

#[test]
fn a_store_whose_every_file_is_skipped_says_so() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = tempfile::tempdir().expect("temp dir");
    let sessions = store.path().join("workspaceStorage/w1/chatSessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    // Files no format reads by their name: skipped without a note of
    // their own, so the store's note is all that says why it is empty.
    std::fs::write(store.path().join("state.vscdb"), "SQLite").expect("write");
    std::fs::write(sessions.join("a.md"), "# notes\n").expect("write");
    let root = store.path().to_str().expect("UTF-8 path");
    let notes = |home: &Path| {
        let status = stdout_json(&run(home, &[], &["status", "--store", root], b""));
        status["notes"].as_array().expect("notes").clone()
    };
    let silent = notes(home.path());
    assert_eq!(silent.len(), 1, "{silent:?}");
    assert_eq!(silent[0]["kind"], "allSkipped");
    assert_eq!(
        silent[0]["message"],
        format!(
            "the session store {root} lists no session: every file in it was skipped, \
             2 by its name (no format of the store reads it)"
        )
    );
    // With a log that is no session: its own note follows the store's.
    std::fs::write(sessions.join("b.jsonl"), "not json\n").expect("write");
    let noted = notes(home.path());
    assert_eq!(noted[0]["kind"], "allSkipped", "{noted:?}");
    assert!(noted[0]["message"]
        .as_str()
        .is_some_and(|m| m.ends_with(", 1 as not a session")));
    assert_eq!(noted[1]["kind"], "notASession", "{noted:?}");
    // A store with a session among them has no such note.
    copy_user(store.path());
    let kinds: Vec<Value> = notes(home.path())
        .iter()
        .map(|n| n["kind"].clone())
        .collect();
    assert!(!kinds.contains(&json!("allSkipped")), "{kinds:?}");
}

/// One full-state line titled `title` (its length is the title's plus a
/// constant), then `more` lines.
fn log(title: &str, more: &[&str]) -> String {
    let mut text = format!(
        "{{\"kind\":0,\"v\":{{\"sessionId\":\"s1\",\"creationDate\":5,\"customTitle\":\"{title}\",\"requests\":[]}}}}\n"
    );
    for line in more {
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn title(catalog: &Catalog) -> Option<String> {
    catalog.get("s1").and_then(|s| s.title)
}

#[test]
fn the_index_notices_a_log_rewritten_from_scratch() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("workspaceStorage/w1/chatSessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let path = sessions.join("s1.jsonl");
    let rename = r#"{"kind":1,"k":["customTitle"],"v":"Renamed"}"#;
    std::fs::write(&path, log("First", &[])).expect("write");
    let format = FormatChoice::Fixed(formats::by_name("copilot-chat").expect("the format"));
    let mut catalog = Catalog::scan_with(dir.path(), 0, format, true);
    assert_eq!(title(&catalog).as_deref(), Some("First"));

    // Appended to: read on from where it was.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    writeln!(file, "{rename}").expect("append");
    drop(file);
    catalog.refresh_path(&path);
    assert_eq!(title(&catalog).as_deref(), Some("Renamed"));

    // Rewritten in place to a file of the same size that is another one.
    let same_size = log(
        "Other",
        &[r#"{"kind":1,"k":["customTitle"],"v":"Againnn"}"#],
    );
    assert_eq!(
        same_size.len(),
        std::fs::metadata(&path).expect("stat").len() as usize
    );
    rewrite_in_place(&path, &same_size);
    catalog.refresh_path(&path);
    assert_eq!(title(&catalog).as_deref(), Some("Againnn"));

    // Compacted: a shorter file.
    rewrite_in_place(&path, &log("Short", &[]));
    catalog.refresh_path(&path);
    assert_eq!(title(&catalog).as_deref(), Some("Short"));

    // Larger, but its first line changed: started over, not read on.
    rewrite_in_place(&path, &log("Longer first line", &[rename, rename]));
    catalog.refresh_path(&path);
    assert_eq!(title(&catalog).as_deref(), Some("Renamed"));
    assert_eq!(catalog.get("s1").map(|s| s.skipped_lines), Some(0));

    // A new full state appended replaces the whole state.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    write!(file, "{}", log("Fresh start", &[])).expect("append");
    drop(file);
    catalog.refresh_path(&path);
    assert_eq!(title(&catalog).as_deref(), Some("Fresh start"));
}

/// Writes `text` over the file at `path`, keeping the file (its inode).
/// Its modification time is set apart from the last one's: VS Code
/// rewrites a log seconds after it last wrote it, and a same-size rewrite
/// within the file system's clock tick would leave the stamp as it was.
fn rewrite_in_place(path: &Path, text: &str) {
    static TICK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .expect("open");
    file.write_all(text.as_bytes()).expect("write");
    let tick = TICK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 * tick))
        .expect("set the modification time");
}

#[test]
fn a_log_written_beside_its_older_document_takes_its_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("workspaceStorage/w1/chatSessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    std::fs::write(
        sessions.join("s1.json"),
        "{\n  \"requests\": [],\n  \"sessionId\": \"s1\",\n  \"customTitle\": \"Document\"\n}",
    )
    .expect("write");
    let format = FormatChoice::Fixed(formats::by_name("copilot-chat").expect("the format"));
    let mut catalog = Catalog::scan_with(dir.path(), 0, format, true);
    assert_eq!(title(&catalog).as_deref(), Some("Document"));
    std::fs::write(sessions.join("s1.jsonl"), log("Log", &[])).expect("write");
    catalog.rescan();
    assert_eq!(title(&catalog).as_deref(), Some("Log"));
    assert_eq!(catalog.len(), 1, "the document is no duplicate");
}
