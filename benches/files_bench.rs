//! File-mention completion and hover, measured at the client over stdio
//! with the real release binary: folders of 10,000 entries each with a
//! 200-line `.gitignore`, every first keystroke in a new folder included;
//! and one folder of 300,000 entries, where completion and hover must stay
//! bounded.
//!
//! Run: `cargo bench --bench files_bench`. Prints a Markdown table;
//! docs/performance.md ("File mentions") records a run.

#[path = "../tests/lsp_common/mod.rs"]
mod lsp_common;
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use lsp_common::{file_uri, TestClient};
use serde_json::json;
use support::{ms, percentile, spawn_server};
use tokio::process::{ChildStdin, ChildStdout};

type Client = TestClient<ChildStdout, ChildStdin>;

const FOLDERS: usize = 8;
const ENTRIES: usize = 10_000;
const HUGE: usize = 300_000;

/// Folders `f0/`…: 10,000 entries each (100 subfolders, the rest files)
/// and a 200-line `.gitignore` at the workspace root.
fn generate(root: &Path) {
    let mut ignore = String::new();
    for i in 0..200 {
        ignore.push_str(&match i % 4 {
            0 => format!("*.tmp{i}\n"),
            1 => format!("build{i}/\n"),
            2 => format!("/f{}/ignored_{i}_*\n", i % FOLDERS),
            _ => format!("**/cache{i}/**\n"),
        });
    }
    std::fs::write(root.join(".gitignore"), ignore).expect("gitignore");
    for f in 0..FOLDERS {
        let dir = root.join(format!("f{f}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for i in 0..ENTRIES {
            let name = format!("{}{i:05}", ["alpha", "beta", "gamma", "delta"][i % 4]);
            if i % 100 == 0 {
                std::fs::create_dir(dir.join(format!("{name}_dir"))).expect("mkdir");
            } else {
                std::fs::write(dir.join(format!("{name}.rs")), b"").expect("write");
            }
        }
    }
    let huge = root.join("huge");
    std::fs::create_dir_all(&huge).expect("mkdir");
    for i in 0..HUGE {
        std::fs::write(huge.join(format!("e{i:06}")), b"").expect("write");
    }
}

async fn complete(
    client: &mut Client,
    uri: &str,
    line: usize,
    character: usize,
) -> (Duration, usize) {
    let at = Instant::now();
    let got = client
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
        .await;
    (at.elapsed(), got["items"].as_array().map_or(0, Vec::len))
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let workspace = tempfile::tempdir().expect("tempdir");
    let store = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    generate(workspace.path());
    eprintln!("generated in {:.1?}", started.elapsed());
    // Cold: the page cache keeps the folders, but the server has seen none.
    let (_child, mut client) = spawn_server(&[("HYDRA_SESSION_STORE", store.path().as_os_str())]);
    let cwd = workspace.path().to_str().expect("utf-8");
    client
        .initialize(json!({
            "capabilities": {},
            "workspaceFolders": [{"uri": file_uri(cwd), "name": "ws"}],
            "initializationOptions": {"spillDir": ""},
        }))
        .await;
    let uri = file_uri(&format!("{cwd}/prompt.md"));
    // One line per keystroke of a path typed into each folder.
    let typed = [
        "", "a", "al", "alp", "alph", "alpha", "alpha0", "alpha01", "g", "ga", "gam",
    ];
    let mut lines = Vec::new();
    for f in 0..FOLDERS {
        for t in typed {
            lines.push(format!("@f{f}/{t}"));
        }
    }
    lines.push("@huge/".to_string());
    lines.push("@huge/e1".to_string());
    client.open(&uri, &lines.join("\n")).await;
    // The session index is empty: wait for it once, outside the figures.
    let _ = client.call("sessionReference/status", json!({})).await;

    let mut all = Vec::new();
    let mut first_in_folder = Vec::new();
    for (line, text) in lines.iter().enumerate().take(FOLDERS * typed.len()) {
        let (took, items) = complete(&mut client, &uri, line, text.chars().count()).await;
        assert!(
            items > 0 || text.ends_with("alpha01"),
            "no items for {text}"
        );
        if line % typed.len() == 0 {
            first_in_folder.push(took);
        }
        all.push(took);
    }
    // Warm rounds: the same keystrokes again.
    for _ in 0..4 {
        for (line, text) in lines.iter().enumerate().take(FOLDERS * typed.len()) {
            all.push(
                complete(&mut client, &uri, line, text.chars().count())
                    .await
                    .0,
            );
        }
    }
    let n = all.len();
    let p50 = percentile(&mut all, 0.50);
    let p95 = percentile(&mut all, 0.95);
    let firsts: Vec<String> = first_in_folder.iter().map(|d| ms(*d)).collect();
    let first_max = *first_in_folder.iter().max().expect("samples");

    let huge_line = FOLDERS * typed.len();
    let (huge_first, huge_items) = complete(&mut client, &uri, huge_line, 6).await;
    let (huge_prefix, _) = complete(&mut client, &uri, huge_line + 1, 8).await;
    let at = Instant::now();
    let hover = client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": huge_line, "character": 2}}),
        )
        .await;
    let huge_hover = at.elapsed();
    assert!(hover["contents"]["value"]
        .as_str()
        .is_some_and(|v| v.contains("entries")));

    println!("| measure | result | target |");
    println!("|---|---|---|");
    println!(
        "| file completion p50 / p95 ({n} requests in {FOLDERS} folders of {ENTRIES} entries, 200-line .gitignore) | {} / {} | p95 ≤ 3 ms |",
        ms(p50),
        ms(p95)
    );
    println!(
        "| first keystroke in a new folder, max of {FOLDERS} ({}) | {} | (included above) |",
        firsts.join(", "),
        ms(first_max)
    );
    println!(
        "| folder of {HUGE} entries: completion `@huge/` ({huge_items} items) / `@huge/e1` / hover | {} / {} / {} | ≤ 50 ms |",
        ms(huge_first),
        ms(huge_prefix),
        ms(huge_hover)
    );
    client.shutdown_and_exit().await;
}
