//! File mentions, automatic budgets and spills through the real binary
//! over stdio (server.md "File mentions", reference.md §4a, §5a).

use crate::lsp_common;

use std::path::Path;
use std::process::Stdio;

use lsp_common::*;
use serde_json::{json, Value};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

type ProcessClient = TestClient<ChildStdout, ChildStdin>;

/// The server binary with its own empty cache directory.
fn spawn(cache: &Path) -> (ProcessClient, Child) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .env_remove("HYDRA_SESSION_STORE")
        .env("XDG_CACHE_HOME", cache)
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

/// A workspace with files, and a store with sessions in that workspace.
struct Fixture {
    workspace: tempfile::TempDir,
    store: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let workspace = tempfile::tempdir().unwrap();
        let root = workspace.path();
        for d in ["src", "docs", "target", ".git"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("src/cart.rs"), "fn total() {}\n// second\n").unwrap();
        std::fs::write(root.join("src/tax.rs"), "").unwrap();
        std::fs::write(root.join("docs/design notes.md"), "# Design\n").unwrap();
        std::fs::write(root.join("target/out"), "").unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        let store = tempfile::tempdir().unwrap();
        let cwd = root.to_str().unwrap();
        LogBuilder::new("s-one", 2, Some(cwd))
            .title("Source one")
            .user("hello")
            .write(&store.path().join("one.jsonl"));
        Fixture {
            workspace,
            store,
            cache: tempfile::tempdir().unwrap(),
        }
    }

    fn cwd(&self) -> &str {
        self.workspace.path().to_str().unwrap()
    }

    fn doc(&self) -> String {
        file_uri(&format!("{}/prompt.md", self.cwd()))
    }

    async fn start(&self) -> (ProcessClient, Child) {
        let (mut client, child) = spawn(self.cache.path());
        client.start(self.store.path(), self.cwd()).await;
        (client, child)
    }
}

async fn complete(client: &mut ProcessClient, uri: &str, line: u32, character: u32) -> Value {
    client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
        .await
}

fn labels(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn completion_offers_sessions_then_files_and_folders_re_trigger() {
    let fx = Fixture::new();
    let (mut client, _child) = fx.start().await;
    let uri = fx.doc();
    client.open(&uri, "@\n@src/\n@\"docs/des\nx @.git").await;

    let all = complete(&mut client, &uri, 0, 1).await;
    // Sessions first (by sortText), then folders, then files; ignored and
    // hidden entries are left out.
    let mut items = all["items"].as_array().unwrap().clone();
    items.sort_by_key(|i| i["sortText"].as_str().unwrap().to_string());
    let shown: Vec<&str> = items.iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(shown, vec!["Source one", "docs/", "src/"]);
    let folder = &items[2];
    assert_eq!(folder["kind"], json!(19), "Folder");
    assert_eq!(folder["command"]["command"], "editor.action.triggerSuggest");
    assert_eq!(folder["textEdit"]["newText"], "@src/");
    assert_eq!(folder["filterText"], "@src/");

    // Inside the folder: files only, each finishing the mention.
    let inside = complete(&mut client, &uri, 1, 5).await;
    assert_eq!(labels(&inside), vec!["src/cart.rs", "src/tax.rs"]);
    let file = &inside["items"][0];
    assert_eq!(file["kind"], json!(17), "File");
    assert!(file.get("command").is_none() || file["command"].is_null());
    assert_eq!(file["textEdit"]["newText"], "@src/cart.rs");
    assert_eq!(
        file["textEdit"]["range"],
        json!({"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 5}})
    );

    // Quoted: the name needs quotes, and the query may hold a space.
    let quoted = complete(&mut client, &uri, 2, 10).await;
    assert_eq!(labels(&quoted), vec!["docs/design notes.md"]);
    assert_eq!(
        quoted["items"][0]["textEdit"]["newText"],
        "@\"docs/design notes.md\""
    );

    // `.git` is never listed (hidden entries are, for a `.` query).
    let hidden = complete(&mut client, &uri, 3, 7).await;
    assert_eq!(labels(&hidden), vec![".gitignore"]);

    // The custom request gives the CLI's candidates.
    let files = client
        .call(
            "sessionReference/files",
            json!({"textDocument": {"uri": uri}, "query": "src/"}),
        )
        .await;
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(["files", "--cwd", fx.cwd(), "--query", "src/"])
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(files, cli);
    assert_eq!(
        files,
        json!([{"path": "src/cart.rs", "kind": "file"}, {"path": "src/tax.rs", "kind": "file"}])
    );
    client.shutdown_and_exit().await;
}

#[tokio::test]
async fn file_mentions_get_diagnostics_hover_and_links() {
    let fx = Fixture::new();
    let (mut client, _child) = fx.start().await;
    let uri = fx.doc();
    let text = "see @src/cart.rs and @docs/nope.md, @types/node, @\"gone.md\"";
    client.open(&uri, text).await;
    let diagnostics = client.diagnostics(&uri, 1).await;
    let found: Vec<(String, u64)> = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"]["character"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("FILE_REFERENCE_NOT_FOUND".to_string(), 21),
            ("FILE_REFERENCE_NOT_FOUND".to_string(), 49),
        ]
    );
    assert_eq!(diagnostics[1]["range"]["end"]["character"], json!(59));

    let hover = client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 8}}),
        )
        .await;
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.contains("src/cart.rs"), "{value}");
    assert!(value.contains("- kind: file"), "{value}");
    assert!(value.contains("- lines: 2"), "{value}");
    assert!(
        value.contains("```rs\nfn total() {}\n// second\n```"),
        "{value}"
    );

    let links = client
        .call(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 1, "{links:?}");
    assert!(links[0]["target"]
        .as_str()
        .unwrap()
        .ends_with("/src/cart.rs"));
    assert_eq!(links[0]["range"]["start"]["character"], json!(4));
    client.shutdown_and_exit().await;
}

/// A target session whose log records a capacity.
fn target_log(window: u64) -> String {
    format!(
        "{}\n",
        json!({"type": "session", "version": 1, "id": "me", "createdAt": 1,
               "options": {"contextWindow": window}})
    )
}

#[tokio::test]
async fn hover_names_the_automatic_budget_and_follows_appends() {
    let fx = Fixture::new();
    let target = fx.store.path().join("me.jsonl");
    std::fs::write(&target, target_log(200_000)).unwrap();
    let (mut client, _child) = spawn(fx.cache.path());
    client
        .initialize(json!({
            "processId": null, "rootUri": null, "capabilities": {},
            "workspaceFolders": [{"uri": file_uri(fx.cwd()), "name": "ws"}],
            "initializationOptions": {"hydraSession": {
                "store": fx.store.path(), "spillDir": "", "targetSessionId": "me"}},
        }))
        .await;
    let uri = fx.doc();
    client.open(&uri, &mention("s-one", "one")).await;
    let value = hover_text(&mut client, &uri).await;
    assert!(
        value.contains("66,666 bytes: a 200,000-token window shared by 3 references"),
        "{value}"
    );
    // A route without a window: no capacity, without a restart.
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(&target)
        .unwrap();
    std::io::Write::write_all(
        &mut log,
        b"{\"seq\":1,\"type\":\"route/assembled\",\"data\":{\"model\":\"x\"}}\n",
    )
    .unwrap();
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let value = hover_text(&mut client, &uri).await;
        if value.contains("64 KiB: the target records no model capacity") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{value}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // A corrupt target: every valid mention says so.
    std::io::Write::write_all(&mut log, b"{not json\n").unwrap();
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let published = client
            .wait_for("diagnostics", |m| {
                m["method"] == "textDocument/publishDiagnostics"
            })
            .await;
        let diagnostics = published["params"]["diagnostics"].clone();
        if diagnostics[0]["code"] == "SESSION_REFERENCE_READ_FAILED" {
            assert_eq!(diagnostics[0]["severity"], json!(2));
            assert!(diagnostics[0]["message"]
                .as_str()
                .unwrap()
                .contains("me.jsonl"));
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{diagnostics}");
    }
    client.shutdown_and_exit().await;
}

async fn hover_text(client: &mut ProcessClient, uri: &str) -> String {
    let hover = client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}}),
        )
        .await;
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A long session: truncated at any small budget.
fn long_store(store: &Path, messages: usize) {
    let mut log = LogBuilder::new("long", 1, Some("/w"));
    for i in 0..messages {
        log = log.user(&format!("message {i} {}", "x".repeat(200)));
    }
    log.write(&store.join("long.jsonl"));
}

#[tokio::test]
async fn prepare_spills_and_a_cancelled_prepare_publishes_nothing() {
    let fx = Fixture::new();
    long_store(fx.store.path(), 20_000);
    let spill = fx.workspace.path().join("spill");
    let (mut client, _child) = fx.start().await;
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"spillDir": "spill", "maxReferenceBytes": 4096}}}),
        )
        .await;
    let uri = fx.doc();
    client.open(&uri, &mention("long", "long")).await;
    let prepared = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let text = prepared["additionalContext"]["content"][0]["text"]
        .as_str()
        .unwrap();
    let locator = format!("\"fullSnapshot\":{{\"path\":\"{}/", spill.display());
    assert!(
        text.contains(&locator),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 1);

    // Cancelled while it reads and spills: RequestCancelled, no result.
    // (Whether the work had reached the spill directory when the cancel
    // arrived is a race; the directory is a cache, and the cancelled work
    // may still be winding down after the answer, so nothing below
    // depends on it.)
    let id = client
        .send_request(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    client.notify("$/cancelRequest", json!({"id": id})).await;
    let answer = client.response(id).await;
    assert_eq!(answer["error"]["code"], json!(-32800), "{answer}");
    assert!(answer.get("result").is_none());
    // An unusable spill directory: `unavailable`, a normal result, and the
    // server goes on serving.
    let blocked = fx.workspace.path().join("blocked");
    std::fs::write(&blocked, b"a file in the way").unwrap();
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"hydraSession": {"spillDir": "blocked", "maxReferenceBytes": 4096}}}),
        )
        .await;
    let prepared = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let text = prepared["additionalContext"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("\"fullSnapshot\":{\"unavailable\":\"spill failed: "));
    assert_eq!(std::fs::read(&blocked).unwrap(), b"a file in the way");
    let status = client.call("sessionReference/status", json!({})).await;
    assert_eq!(status["sessions"], json!(2));
    // Nothing went to the user's cache.
    assert_eq!(std::fs::read_dir(fx.cache.path()).unwrap().count(), 0);
    client.shutdown_and_exit().await;
}

/// Issue 18, items 3 and 5, over the binary: a log rewritten in place to
/// the same size with its old modification time put back shows its new
/// text in hover (the snapshot cache keyed only on size, mtime and inode
/// served the old one), and a FIFO renamed over the log still gets the
/// hover answered (opening it used to wait for a writer, for ever, holding
/// a request slot).
#[cfg(unix)]
#[tokio::test]
async fn hover_never_serves_a_rewritten_log_stale_nor_hangs_on_a_fifo() {
    let fx = Fixture::new();
    let log = fx.store.path().join("one.jsonl");
    let (mut client, _child) = fx.start().await;
    let uri = fx.doc();
    client.open(&uri, &mention("s-one", "one")).await;
    let value = hover_text(&mut client, &uri).await;
    assert!(value.contains("hello"), "{value}");
    let mtime = std::fs::metadata(&log).unwrap().modified().unwrap();
    let rewritten = std::fs::read_to_string(&log)
        .unwrap()
        .replace("hello", "HOWDY");
    let mut file = std::fs::OpenOptions::new().write(true).open(&log).unwrap();
    std::io::Write::write_all(&mut file, rewritten.as_bytes()).unwrap();
    file.set_modified(mtime).unwrap();
    drop(file);
    let value = hover_text(&mut client, &uri).await;
    assert!(value.contains("HOWDY"), "stale text: {value}");

    let fifo = fx.store.path().join("fifo");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::fs::rename(&fifo, &log).unwrap();
    // Answered (an error, or the session gone), for every slot in turn.
    for _ in 0..3 {
        let id = client
            .send_request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}}),
            )
            .await;
        let response = client.response(id).await;
        assert!(
            !response["result"].to_string().contains("HOWDY"),
            "{response}"
        );
    }
    client.call("sessionReference/status", json!({})).await;
    client.shutdown_and_exit().await;
}

/// Issue 18, item 11, over the binary: hovers on `@doc.txt` while another
/// thread swaps it between a regular file and a link out of the workspace
/// never show the outside file (the check and the read were different
/// moments: 15 of 7,635 hovers showed it).
#[cfg(unix)]
#[tokio::test]
async fn hover_on_a_file_swapped_for_a_link_out_never_shows_the_outside_file() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    // Before the fix, two runs of three showed the outside file within
    // this many hovers.
    const HOVERS: usize = 5000;
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "SECRET\n").unwrap();
    let doc = fx.workspace.path().join("doc.txt");
    std::fs::write(&doc, "INSIDE\n").unwrap();
    let (mut client, _child) = fx.start().await;
    let uri = fx.doc();
    client.open(&uri, "@doc.txt").await;
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, doc, secret) = (stop.clone(), doc.clone(), secret.clone());
        std::thread::spawn(move || {
            let (file, link) = (doc.with_extension("f"), doc.with_extension("l"));
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                std::fs::write(&file, "INSIDE\n").unwrap();
                std::fs::rename(&file, &doc).unwrap();
                std::os::unix::fs::symlink(&secret, &link).unwrap();
                std::fs::rename(&link, &doc).unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let mut inside = 0;
    for _ in 0..HOVERS {
        let hover = client
            .call(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 2}}),
            )
            .await;
        let value = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(
            !value.contains("SECRET"),
            "the outside file was shown: {value}"
        );
        inside += usize::from(value.contains("INSIDE"));
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    // Not vacuous: the hovers read the file (a hover that shows nothing
    // shows no secret either) while it was being swapped.
    assert!(
        inside > 0,
        "no hover of {HOVERS} showed the file inside: the hover does not read it"
    );
    assert!(swaps > 0, "the file was never swapped during the hovers");
}

#[tokio::test]
async fn every_match_in_a_folder_of_200000_entries_is_found() {
    // Issue 18 item 17: a folder read only in part (100,000 entries or
    // 20 ms) hid most matches; the typed prefix now filters while reading.
    let fx = Fixture::new();
    let big = fx.workspace.path().join("big");
    std::fs::create_dir(&big).unwrap();
    for i in 0..200_000 {
        std::fs::File::create(big.join(format!("f{i:06}"))).unwrap();
    }
    let expected = |from: usize| -> Vec<String> {
        (from..from + 10).map(|i| format!("big/f{i:06}")).collect()
    };
    // The command line, over both halves of the folder.
    for (query, from) in [("big/f19999", 199_990), ("big/f00001", 10)] {
        let cli = std::process::Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
            .args(["files", "--cwd", fx.cwd(), "--query", query])
            .output()
            .unwrap();
        let found: Vec<Value> = serde_json::from_slice(&cli.stdout).unwrap();
        let paths: Vec<&str> = found.iter().filter_map(|f| f["path"].as_str()).collect();
        assert_eq!(paths, expected(from), "{query}");
        assert_eq!(String::from_utf8_lossy(&cli.stderr), "", "{query}");
    }
    // A list cut at its limit says so on stderr.
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args([
            "files",
            "--cwd",
            fx.cwd(),
            "--query",
            "big/f0000",
            "--limit",
            "3",
        ])
        .output()
        .unwrap();
    let found: Vec<Value> = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(found.len(), 3);
    let note = String::from_utf8_lossy(&cli.stderr);
    assert!(note.contains("note: the list is cut"), "{note}");
    // The server: every match, and a list cut at its limit is incomplete.
    let (mut client, _child) = fx.start().await;
    let uri = fx.doc();
    client.open(&uri, "@big/f00001\n@big/f0000").await;
    let got = complete(&mut client, &uri, 0, 11).await;
    assert_eq!(labels(&got), expected(10));
    assert_eq!(got["isIncomplete"], false);
    let got = complete(&mut client, &uri, 1, 10).await;
    assert_eq!(got["isIncomplete"], true);
    client.shutdown_and_exit().await;
}
