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

/// Issue 27 item 5: `search tax --store DIR` searched `--store DIR` as
/// words in the default stores and printed `[]`. Flags after the query are
/// flags, as with every command; an unknown one is a usage error.
#[test]
fn flags_after_the_query_are_flags() {
    let home = Home::new();
    let store = home.store.to_str().unwrap();
    let output = home.run(&["search", "tax", "--store", store, "--limit", "1"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let hits: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(hits.as_array().map(Vec::len), Some(1), "{hits}");
    assert_eq!(hits[0]["sessionId"], "checkout-tax");
    let output = home.run(&["search", "tax", "--store", store, "rounding"]);
    let hits: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(hits[0]["sessionId"], "checkout-tax", "{hits}");
    let output = home.run(&["search", "tax", "--stores", store]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    // A word that begins with `-` goes after `--`.
    let output = home.run(&["search", "--store", store, "--", "-tax"]);
    assert_eq!(output.status.code(), Some(0));
}

/// Issue 27 item 3: the error for a 120 KB query repeated it whole on
/// stderr. It repeats at most 300 bytes of it, and says it cut the rest.
#[test]
fn a_long_malformed_query_is_not_repeated_whole() {
    let home = Home::new();
    let punctuation = "!?".repeat(60_000);
    let long_agent = format!("agent:{}", "x".repeat(120_000));
    for words in [&[punctuation.as_str()][..], &[long_agent.as_str(), "tax"]] {
        let output = home.search(words);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("malformed search query"), "{stderr}");
        assert!(stderr.contains("(cut from 120"), "{stderr}");
        assert!(stderr.len() < 1000, "{} bytes", stderr.len());
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

/// The one index folder under the cache.
fn only_index(home: &Home) -> PathBuf {
    let dirs: Vec<PathBuf> = fs::read_dir(home.index_root())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.to_string_lossy().contains(".broken-"))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

/// Issue 27 item 6: a `.store` file changed under its intact footer
/// opened fine and failed every search; `status` said all was well.
/// `status` checks the checksums; `search` checks the doc store's (no
/// search reads it now, so no read would fail), moves the index aside,
/// rebuilds it and answers.
#[test]
fn a_file_corrupt_under_its_footer_is_found_and_rebuilt() {
    let home = Home::new();
    assert_eq!(home.ids(&["rounding"]), ["checkout-tax"]);
    let dir = only_index(&home);
    let mut corrupted = 0;
    for entry in fs::read_dir(&dir).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "store") {
            // Its first byte: the store holds no field (nothing is
            // stored), so it is short, and its footer must stay intact.
            let mut bytes = fs::read(entry.path()).unwrap();
            bytes[0] ^= 0x5a;
            fs::write(entry.path(), bytes).unwrap();
            corrupted += 1;
        }
    }
    assert!(corrupted > 0);
    let store = home.store.to_str().unwrap();
    let status = home.run(&["status", "--store", store]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["search"]["enabled"], false, "{status}");
    assert!(
        status["search"]["note"]
            .as_str()
            .is_some_and(|n| n.contains("corrupt files")),
        "{status}"
    );
    let output = home.search(&["rounding"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("was unusable and was rebuilt"), "{stderr}");
    let hits: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(hits[0]["sessionId"], "checkout-tax");
    let status = home.run(&["status", "--store", store]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["search"]["enabled"], true, "{status}");
    assert_eq!(status["search"]["behind"], 0, "{status}");
}

/// Issue 27 item 7: with tantivy's writer lock held by another process
/// that never commits the new session, `search` waits its 10 s, then
/// fails "still indexing" (exit 1) rather than answer `[]`.
#[test]
fn a_search_behind_another_writer_says_still_indexing() {
    let home = Home::new();
    assert_eq!(home.ids(&["rounding"]), ["checkout-tax"]);
    home.log("late.jsonl", "late", "/w", &["zanzibar quokka"], "Late one");
    let index = tantivy::Index::open_in_dir(only_index(&home)).unwrap();
    let held: tantivy::IndexWriter = index.writer_with_num_threads(1, 15 << 20).unwrap();
    let output = home.search(&["zanzibar"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("still indexing"), "{stdout}");
    drop(held);
    assert_eq!(home.ids(&["zanzibar"]), ["late"]);
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

/// Each kind of change to a log is seen by the very next call: the index
/// follows the store's own change detection, whatever the change.
#[test]
fn every_change_to_a_log_is_seen_by_the_next_search() {
    let home = Home::new();
    assert_eq!(home.ids(&["inventory_loader"]), ["inventory"]);
    // Appended: a new message, in the same file.
    let inv = home.store.join("inv.jsonl");
    let appended = serde_json::json!({"seq": 4, "type": "user/message",
        "data": {"source": {"kind": "user"}, "content": [{"type": "text", "text": "now the warehouse"}]}});
    let mut file = fs::OpenOptions::new().append(true).open(&inv).unwrap();
    writeln!(file, "{appended}").unwrap();
    drop(file);
    assert_eq!(home.ids(&["warehouse"]), ["inventory"]);
    assert_eq!(home.ids(&["inventory_loader"]), ["inventory"], "kept");
    // Replaced: another file renamed over it (as agents write), same id,
    // other words.
    home.log(
        "inv.jsonl.tmp",
        "inventory",
        "/home/ana/stock",
        &["Count the pallets", "Counted 12 pallets"],
        "Inventory",
    );
    fs::rename(home.store.join("inv.jsonl.tmp"), &inv).unwrap();
    assert_eq!(home.ids(&["pallets"]), ["inventory"]);
    assert!(home.ids(&["warehouse"]).is_empty(), "replaced");
    assert!(home.ids(&["inventory_loader"]).is_empty(), "replaced");
    // Rewritten in place to the same size with its modification time put
    // back: the status change time still tells.
    let before = fs::metadata(&inv).unwrap();
    let text = fs::read_to_string(&inv)
        .unwrap()
        .replace("pallets", "cartons");
    assert_eq!(text.len() as u64, before.len());
    fs::write(&inv, text).unwrap();
    let times = fs::FileTimes::new().set_modified(before.modified().unwrap());
    fs::File::options()
        .write(true)
        .open(&inv)
        .unwrap()
        .set_times(times)
        .unwrap();
    assert_eq!(home.ids(&["cartons"]), ["inventory"]);
    assert!(home.ids(&["pallets"]).is_empty(), "rewritten");
    // Removed.
    fs::remove_file(&inv).unwrap();
    assert!(home.ids(&["cartons"]).is_empty(), "removed");
    assert_eq!(home.ids(&["rounding"]), ["checkout-tax"]);
}

/// A full disk, for real: the cache directory is a 1 MiB tmpfs, filled,
/// in a mount namespace of the test's own (`unshare -Urm`, which works
/// for root and, where user namespaces are allowed, for anyone). Search
/// says it is off, `status` says why, and everything else works; once the
/// disk has room again, search is back.
#[test]
fn a_full_disk_turns_search_off_and_everything_else_works() {
    let home = Home::new();
    let probe = Command::new("unshare")
        .args(["-Urm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        crate::skip::skipped("no mount namespace here (`unshare -Urm` + tmpfs)");
        return;
    }
    let prompt = home.store.parent().unwrap().join("prompt.md");
    fs::write(&prompt, "see @[x](hydra-session:ImNoZWNrb3V0LXRheCI)\n").unwrap();
    fs::create_dir(&home.cache).unwrap();
    let out = home.store.parent().unwrap().join("out");
    fs::create_dir(&out).unwrap();
    let bin = env!("CARGO_BIN_EXE_hydra-session-lsp");
    // Each command's stdout and exit status land outside the small disk.
    let script = format!(
        "set -u
        mount -t tmpfs -o size=1m,mode=0700 tmpfs \"$CACHE\"
        dd if=/dev/zero of=\"$CACHE/fill\" bs=4k 2>/dev/null
        export XDG_CACHE_HOME=\"$CACHE\"
        run() {{ name=$1; shift; \"{bin}\" \"$@\" >\"$OUT/$name\" 2>\"$OUT/$name.err\"; echo $? >\"$OUT/$name.rc\"; }}
        run search search --store \"$STORE\" rounding
        run status status --store \"$STORE\"
        run candidates candidates --store \"$STORE\" --query check
        run prepare prepare --store \"$STORE\" \"$PROMPT\"
        rm \"$CACHE/fill\"
        run search_freed search --store \"$STORE\" rounding
        run status_freed status --store \"$STORE\""
    );
    let ran = Command::new("unshare")
        .args(["-Urm", "sh", "-c", &script])
        .env("CACHE", &home.cache)
        .env("OUT", &out)
        .env("STORE", &home.store)
        .env("PROMPT", &prompt)
        .env_remove("HYDRA_SESSION_STORE")
        .env_remove("HYDRA_HOME")
        .env("CLAUDE_CONFIG_DIR", "/nonexistent")
        .env("CODEX_HOME", "/nonexistent")
        .env("GEMINI_CLI_HOME", "/nonexistent")
        .output()
        .unwrap();
    assert!(ran.status.success(), "{ran:?}");
    let read = |name: &str| fs::read_to_string(out.join(name)).unwrap();
    let code = |name: &str| read(&format!("{name}.rc")).trim().to_string();
    // Search: off, with the reason, no panic.
    assert_eq!(code("search"), "1", "{}", read("search.err"));
    let search = read("search") + &read("search.err");
    assert!(search.contains("search is off: no space left"), "{search}");
    assert!(!search.contains("panicked"), "{search}");
    // Status: the note, search off.
    assert_eq!(code("status"), "0");
    let status: Value = serde_json::from_str(&read("status")).unwrap();
    assert_eq!(status["search"]["enabled"], false, "{status}");
    assert!(status["search"]["note"]
        .as_str()
        .is_some_and(|n| n.contains("no space left")));
    assert_eq!(status["sessions"], 2);
    // Everything else works.
    assert_eq!(code("candidates"), "0", "{}", read("candidates.err"));
    let candidates: Value = serde_json::from_str(&read("candidates")).unwrap();
    assert_eq!(candidates[0]["sessionId"], "checkout-tax");
    assert_eq!(code("prepare"), "0", "{}", read("prepare.err"));
    assert!(read("prepare").contains("checkout-tax"));
    // Room again (the fill removed): the next search builds the index
    // and finds the session, and `status` says search is on — the
    // recovery docs/search.md promises.
    assert_eq!(code("search_freed"), "0", "{}", read("search_freed.err"));
    let freed: Value = serde_json::from_str(&read("search_freed")).unwrap();
    assert_eq!(freed[0]["sessionId"], "checkout-tax", "{freed}");
    let status: Value = serde_json::from_str(&read("status_freed")).unwrap();
    assert_eq!(status["search"]["enabled"], true, "{status}");
    assert!(status["search"]["note"].is_null(), "{status}");
    // Nothing of the small disk was left behind: the mount was the
    // namespace's alone.
    assert_eq!(fs::read_dir(&home.cache).unwrap().count(), 0);
}

/// Issue 25 item 8: on a terminal, `status` and `search` print a summary
/// for a person (a search's matches in bold); `--format json`, or output
/// that is not a terminal, is the one JSON document as before. The
/// terminal is a pseudo-terminal from util-linux's `script`.
#[cfg(target_os = "linux")]
#[test]
fn a_terminal_gets_a_summary_and_anything_else_json() {
    let home = Home::new();
    let store = home.store.to_str().unwrap();
    let on_a_terminal = |args: &[&str], no_colour: bool| -> String {
        let mut line = shell_word(env!("CARGO_BIN_EXE_hydra-session-lsp"));
        for a in args {
            line.push(' ');
            line.push_str(&shell_word(a));
        }
        let mut command = Command::new("script");
        command
            .args(["-qec", &line, "/dev/null"])
            .env("XDG_CACHE_HOME", &home.cache)
            .env("TERM", "xterm")
            .env_remove("HYDRA_SESSION_STORE")
            .stdin(Stdio::null());
        if no_colour {
            command.env("NO_COLOR", "1");
        } else {
            command.env_remove("NO_COLOR");
        }
        let output = command
            .output()
            .expect("util-linux's `script` runs (the test needs a pseudo-terminal)");
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        String::from_utf8(output.stdout)
            .expect("UTF-8")
            .replace("\r\n", "\n")
    };

    let found = on_a_terminal(&["search", "--store", store, "rounding"], false);
    assert!(
        found.starts_with("Checkout bug  (hydra · /home/ana/shop · "),
        "{found:?}"
    );
    assert!(found.contains("\x1b[1mrounding\x1b[0m"), "{found:?}");
    assert!(
        found.contains("@[Checkout bug](hydra-session:"),
        "{found:?}"
    );
    let plain = on_a_terminal(&["search", "--store", store, "rounding"], true);
    assert!(
        !plain.contains('\x1b') && plain.contains("tax rounding"),
        "{plain:?}"
    );
    let none = on_a_terminal(&["search", "--store", store, "zanzibar"], false);
    assert_eq!(none, "No session matches.\n");
    let json = on_a_terminal(
        &["search", "--format", "json", "--store", store, "rounding"],
        false,
    );
    let hits: Value = serde_json::from_str(&json).expect("JSON with --format json");
    assert_eq!(hits[0]["sessionId"], "checkout-tax");

    let status = on_a_terminal(&["status", "--store", store], false);
    assert!(status.starts_with("2 sessions in 1 store\n"), "{status:?}");
    assert!(
        status.contains(&format!("{store}  2 sessions\n")),
        "{status:?}"
    );
    assert!(status.contains("Search: "), "{status:?}");
    let json = on_a_terminal(&["status", "--format", "json", "--store", store], false);
    let status: Value = serde_json::from_str(&json).expect("JSON with --format json");
    assert_eq!(status["sessions"], 2);

    // Not a terminal: JSON, as before; `--format text` asks for the summary
    // (no colour: the output is not a terminal).
    let piped = home.run(&["status", "--store", store]);
    let status: Value = serde_json::from_slice(&piped.stdout).expect("JSON when piped");
    assert_eq!(status["sessions"], 2);
    let text = home.run(&["search", "--format", "text", "--store", store, "rounding"]);
    let text = String::from_utf8(text.stdout).expect("UTF-8");
    assert!(
        text.starts_with("Checkout bug  (") && !text.contains('\x1b'),
        "{text:?}"
    );
}

/// `word` for `sh -c`.
#[cfg(target_os = "linux")]
fn shell_word(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}
