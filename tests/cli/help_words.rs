//! Issue 25 item 4: the help a person reads names the agents this build
//! reads, from the one table of formats (no hand-kept list), and the
//! README's `--store-format` list is that table's.

use std::process::Command;

use hydra_session_lsp::formats::table::ROWS;
use hydra_session_lsp::formats::FormatChoice;

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"))
        .args(args)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn candidates_and_store_help_name_every_agent_read() {
    let text = help(&["candidates", "--help"]);
    // clap wraps long help: compare with the line breaks undone.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for row in ROWS {
        assert!(flat.contains(row.display_name), "{}: {text}", row.name);
    }
    assert!(flat.contains("plus the stores of every agent this build reads that exist: Claude Code, Codex, Gemini CLI"), "{text}");
}

#[test]
fn the_readme_lists_every_store_format() {
    let readme = include_str!("../../README.md");
    let listed = format!("--store-format {}", FormatChoice::names().join("|"));
    assert!(readme.contains(&listed), "README lacks `{listed}`");
    assert!(readme.contains("`format` (`auto`, or one of the `--store-format` names above)"));
}

/// Issue 25 item 5: `hook --help` says which agents have no hook here, and
/// what to use for them.
#[test]
fn hook_help_names_the_agents_without_a_hook() {
    let text = help(&["hook", "--help"]);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for agent in ["claude-code", "codex", "qwen", "gemini", "copilot"] {
        assert!(flat.contains(agent), "{agent}: {text}");
    }
    assert!(
        flat.contains("Cline, Continue, Kilo, OpenCode, Pi and Aider"),
        "{text}"
    );
    assert!(flat.contains("prepare --format text"), "{text}");
}
