//! `search` over the built binary (issue 16): what it finds and prints,
//! malformed queries, a deleted log, a broken index, the index's modes and
//! place, and the commands that must never create it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A store of hydra logs and a cache directory of this test's own.
struct Home {
    _tmp: tempfile::TempDir,
    store: PathBuf,
    cache: PathBuf,
}

impl Home {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        let cache = tmp.path().join("cache");
        fs::create_dir(&store).unwrap();
        let home = Home {
            _tmp: tmp,
            store,
            cache,
        };
        home.log(
            "tax.jsonl",
            "checkout-tax",
            "/home/ana/shop",
            &[
                "Why does checkout fail?",
                "The tax rounding in ModuleSpec is off by a cent.",
            ],
            "Checkout bug",
        );
        home.log(
            "inv.jsonl",
            "inventory",
            "/home/ana/stock",
            &[
                "Refactor the inventory_loader",
                "Moved it into src/stock/loader.rs",
            ],
            "Inventory",
        );
        home
    }

    fn log(&self, file: &str, id: &str, cwd: &str, messages: &[&str], title: &str) {
        let mut lines = vec![serde_json::json!({
            "type": "session", "version": 1, "id": id, "createdAt": 1_764_400_000_000u64, "cwd": cwd
        })];
        for (i, text) in messages.iter().enumerate() {
            let seq = i as u64 + 1;
            lines.push(if i % 2 == 0 {
                serde_json::json!({"seq": seq, "type": "user/message",
                    "data": {"source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})
            } else {
                serde_json::json!({"seq": seq, "type": "assistant/message",
                    "data": {"message": {"content": [{"type": "text", "text": text}]}}})
            });
        }
        lines.push(serde_json::json!({"seq": messages.len() + 1, "type": "session/title", "data": {"title": title}}));
        let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
        fs::write(self.store.join(file), text).unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &self.cache, b"")
    }

    fn run_with(&self, args: &[&str], cache: &Path, stdin: &[u8]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
        command
            .args(args)
            .env_remove("HYDRA_SESSION_STORE")
            .env_remove("HYDRA_HOME")
            .env("XDG_CACHE_HOME", cache)
            .env("CLAUDE_CONFIG_DIR", "/nonexistent")
            .env("CODEX_HOME", "/nonexistent")
            .env("GEMINI_CLI_HOME", "/nonexistent")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        if let Some(mut input) = child.stdin.take() {
            let _ = input.write_all(stdin);
        }
        child.wait_with_output().unwrap()
    }

    fn search(&self, words: &[&str]) -> Output {
        let store = self.store.to_str().unwrap();
        let mut args = vec!["search", "--store", store];
        args.extend_from_slice(words);
        self.run(&args)
    }

    fn ids(&self, words: &[&str]) -> Vec<String> {
        let output = self.search(words);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let hits: Value = serde_json::from_slice(&output.stdout).unwrap();
        hits.as_array()
            .unwrap()
            .iter()
            .map(|h| h["sessionId"].as_str().unwrap().to_string())
            .collect()
    }

    fn index_root(&self) -> PathBuf {
        self.cache.join("hydra-session/search")
    }
}

/// Every path below `dir`, with its mode.
fn tree(dir: &Path) -> Vec<(PathBuf, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let meta = fs::symlink_metadata(entry.path()).unwrap();
            out.push((entry.path(), meta.permissions().mode() & 0o777));
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn sessions_are_found_by_what_was_said() {
    let home = Home::new();
    let output = home.search(&["rounding", "modulespec"]);
    assert_eq!(output.status.code(), Some(0));
    let hits: Value = serde_json::from_slice(&output.stdout).unwrap();
    let hit = &hits[0];
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert_eq!(hit["sessionId"], "checkout-tax");
    assert_eq!(hit["title"], "Checkout bug");
    assert_eq!(hit["agent"], "hydra");
    assert_eq!(hit["cwd"], "/home/ana/shop");
    assert_eq!(hit["createdAt"], 1_764_400_000_000u64);
    assert_eq!(
        hit["mention"],
        "@[Checkout bug](hydra-session:ImNoZWNrb3V0LXRheCI)"
    );
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    let snippet = &hit["snippets"][0];
    assert_eq!(
        (snippet["turn"].as_u64(), snippet["role"].as_str()),
        (Some(2), Some("assistant"))
    );
    let text: Vec<char> = snippet["text"].as_str().unwrap().chars().collect();
    let marked: Vec<String> = snippet["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            text[r[0].as_u64().unwrap() as usize..r[1].as_u64().unwrap() as usize]
                .iter()
                .collect()
        })
        .collect();
    assert_eq!(marked, ["rounding", "ModuleSpec"]);
    // Paths and snake_case by their parts; the last word as a prefix.
    assert_eq!(home.ids(&["loader.rs"]), ["inventory"]);
    assert_eq!(home.ids(&["inventory_loa"]), ["inventory"]);
    assert_eq!(home.ids(&["agent:hydra", "refactor"]), ["inventory"]);
    assert!(home.ids(&["agent:codex", "refactor"]).is_empty());
    // --limit cuts.
    assert_eq!(home.ids(&["--limit", "1", "the"]).len(), 1);
}

#[test]
fn a_malformed_query_exits_2_with_the_reason_on_stderr() {
    let home = Home::new();
    for (words, reason) in [
        (&["tax", "\"rounding"][..], "a quote (\") is not closed"),
        (&["agent:gpt", "tax"], "unknown agent:gpt"),
        (&["after:someday"], "is not a date"),
        (&["--", "--"], "no words"),
    ] {
        let output = home.search(words);
        assert_eq!(output.status.code(), Some(2), "{words:?}");
        assert!(output.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("malformed search query") && stderr.contains(reason),
            "{stderr}"
        );
    }
}

#[test]
fn mentions_are_one_line_each_and_parse_back() {
    let home = Home::new();
    home.log(
        "odd.jsonl",
        "odd",
        "/w",
        &["zebra crossing"],
        "two\nlines \u{1b}[2J\u{202e}evil",
    );
    let output = home.search(&["--format", "mention", "zebra"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text, "@[two lines [2Jevil](hydra-session:Im9kZCI)\n");
    let parsed = home.run_with(&["parse"], &home.cache, text.as_bytes());
    let parsed: Value = serde_json::from_slice(&parsed.stdout).unwrap();
    assert_eq!(parsed["references"][0]["sessionId"], "odd");
    let output = home.search(&["--format", "text", "zebra"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.lines().all(|l| !l.contains('\u{1b}')), "{text}");
    assert!(text.contains("1 user: zebra crossing"), "{text}");
}

#[test]
fn a_deleted_log_leaves_no_trace() {
    let home = Home::new();
    assert_eq!(home.ids(&["inventory_loader"]), ["inventory"]);
    fs::remove_file(home.store.join("inv.jsonl")).unwrap();
    assert!(home.ids(&["inventory_loader"]).is_empty());
    assert!(home.ids(&["inventory"]).is_empty(), "titles too");
}

#[test]
fn a_corrupt_index_is_moved_aside_and_rebuilt() {
    let home = Home::new();
    assert_eq!(home.ids(&["rounding"]), ["checkout-tax"]);
    let dirs: Vec<PathBuf> = fs::read_dir(home.index_root())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(dirs.len(), 1);
    fs::write(dirs[0].join("meta.json"), b"\x00garbage").unwrap();
    let output = home.search(&["rounding"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("was unusable and was rebuilt"));
    assert_eq!(home.ids(&["rounding"]), ["checkout-tax"]);
    let names: Vec<String> = fs::read_dir(home.index_root())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().any(|n| n.contains(".broken-")), "{names:?}");
}

#[test]
fn the_index_is_owner_only_and_never_inside_a_store() {
    let home = Home::new();
    let before = tree(&home.store);
    assert_eq!(home.ids(&["rounding"]), ["checkout-tax"]);
    let made = tree(&home.cache);
    assert!(made.len() > 4, "{made:?}");
    for (path, mode) in &made {
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(*mode, want, "{}", path.display());
    }
    assert_eq!(tree(&home.store), before, "nothing written into the store");
    // A cache directory inside the store: no index there, search still
    // answers (from memory), the store untouched.
    let inside = home.store.join("cache");
    let store = home.store.to_str().unwrap();
    let output = home.run_with(&["search", "--store", store, "rounding"], &inside, b"");
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("inside the session store"));
    assert_eq!(tree(&home.store), before);
}

#[test]
fn only_search_creates_the_index() {
    let home = Home::new();
    let store = home.store.to_str().unwrap();
    let prompt = home.store.parent().unwrap().join("prompt.md");
    fs::write(
        &prompt,
        "see @[Checkout bug](hydra-session:ImNoZWNrb3V0LXRheCI)\n",
    )
    .unwrap();
    let prompt = prompt.to_str().unwrap();
    let hook_input = serde_json::json!({
        "session_id": "x", "hook_event_name": "UserPromptSubmit", "prompt": "hello", "cwd": "/w"
    })
    .to_string();
    for args in [
        &["candidates", "--store", store][..],
        &["prepare", "--store", store, prompt],
        &["check", "--store", store, prompt],
        &["status", "--store", store],
        &["hook", "claude-code", "--store", store],
        &["search", "--no-search-index", "--store", store, "rounding"],
    ] {
        let output = home.run_with(args, &home.cache, hook_input.as_bytes());
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            !home.index_root().exists(),
            "{args:?} created the search index"
        );
    }
    // Without the index on disk, search still finds.
    assert_eq!(
        serde_json::from_slice::<Value>(
            &home
                .run(&["search", "--no-search-index", "--store", store, "rounding"])
                .stdout
        )
        .unwrap()[0]["sessionId"],
        "checkout-tax"
    );
}

#[test]
fn status_reports_the_index() {
    let home = Home::new();
    let store = home.store.to_str().unwrap();
    let status = |extra: &[&str]| -> Value {
        let mut args = vec!["status", "--store", store];
        args.extend_from_slice(extra);
        serde_json::from_slice(&home.run(&args).stdout).unwrap()
    };
    let before = status(&[]);
    assert_eq!(before["search"]["sessions"], 0);
    assert_eq!(before["search"]["behind"], 2);
    assert!(before["search"]["note"]
        .as_str()
        .unwrap()
        .contains("not built yet"));
    home.ids(&["rounding"]);
    let after = status(&[]);
    assert_eq!(after["search"]["enabled"], true);
    assert_eq!(after["search"]["sessions"], 2);
    assert_eq!(after["search"]["behind"], 0);
    assert!(after["search"]["bytes"].as_u64().unwrap() > 0);
    assert!(after["search"]["path"]
        .as_str()
        .unwrap()
        .starts_with(home.index_root().to_str().unwrap()));
    home.log("new.jsonl", "new", "/w", &["fresh"], "New");
    assert_eq!(status(&[])["search"]["behind"], 1);
    let off = status(&["--no-search-index"]);
    assert_eq!(off["search"]["enabled"], false);
}
