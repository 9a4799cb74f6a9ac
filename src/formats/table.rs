//! The one table of formats: a row per format this build reads (line
//! formats and store kinds alike) with its settings name, the agent's
//! name for people, how its sessions are read, where they are by default
//! and how `auto` tells its files. Everything that lists formats reads it
//! — [`crate::formats::all`] and [`crate::formats::detect`] (in `auto`
//! order), [`FormatChoice::by_name`] and [`FormatChoice::names`] (the
//! `--store-format` values), the default store list — so adding a format
//! is its folder and one row here.

use std::sync::OnceLock;

use super::choice::FormatChoice;
use super::toolkit::home::DefaultPlace;
use super::{
    aider, claude_code, cline, cline_cli, codex, continue_dev, copilot_chat, copilot_cli, crush,
    cursor, gemini_cli, goose, hydra, kilo, opencode, pi, qwen_code, zed, LogFormat,
};

/// How `auto` tells a format's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auto {
    /// By a `.jsonl`'s first complete line (a document's: its start), at
    /// this rank: the contract's rule number times ten, its letter added
    /// (`(1a)` 10, `(1b)` 11, `(2)` 20, `(6a)` 61, `(7)` 70). The first
    /// rule that holds decides, in rank order.
    FirstLine(u16),
    /// By the file's name (OpenCode's `opencode.db`): a store kind read
    /// by a store of its own.
    ByName,
    /// By a `.json` document's name ([`LogFormat::claims_name`]: Cline's
    /// `tasks/<id>/ui_messages.json`, Continue's `sessions/<id>.json`),
    /// which no first line tells: a line format after every ranked one.
    DocumentName,
}

/// One format's row.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The name in settings, status and locators (`claude-code`).
    pub name: &'static str,
    /// The agent's name as its users know it (`Claude Code`).
    pub display_name: &'static str,
    /// How its sessions are read: a line format, or a store kind.
    pub reading: FormatChoice,
    /// Where its sessions are by default, in order, from the environment.
    pub defaults: fn() -> Vec<DefaultPlace>,
    pub auto: Auto,
}

/// Every format, in the contracts' default-store order (which is also the
/// order of `--store-format`'s values): agent-logs.md's, then
/// agent-logs-more.md's, then agent-logs-files-3.md's, then
/// agent-logs-db-3.md's.
pub static ROWS: &[Row] = &[
    Row {
        name: "hydra",
        display_name: "hydra",
        reading: FormatChoice::Fixed(&hydra::Hydra),
        defaults: hydra::defaults::default_stores,
        // (1): the strictest test, a header.
        auto: Auto::FirstLine(10),
    },
    Row {
        name: "claude-code",
        display_name: "Claude Code",
        reading: FormatChoice::Fixed(&claude_code::ClaudeCode),
        defaults: claude_code::defaults::default_stores,
        // (7), last: a line is recognised by much looser signs.
        auto: Auto::FirstLine(70),
    },
    Row {
        name: "codex",
        display_name: "Codex",
        reading: FormatChoice::Fixed(&codex::Codex),
        defaults: codex::defaults::default_stores,
        // (2): a `session_meta` line.
        auto: Auto::FirstLine(20),
    },
    Row {
        name: "gemini",
        display_name: "Gemini CLI",
        reading: FormatChoice::Fixed(&gemini_cli::GeminiCli),
        defaults: gemini_cli::defaults::default_stores,
        // (4), before Claude Code's: every metadata line has the string
        // `sessionId` that alone makes a Claude Code line.
        auto: Auto::FirstLine(40),
    },
    Row {
        name: "copilot-cli",
        display_name: "Copilot CLI",
        reading: FormatChoice::Fixed(&copilot_cli::CopilotCli),
        defaults: copilot_cli::defaults::default_stores,
        // (3): a `session.start` event.
        auto: Auto::FirstLine(30),
    },
    Row {
        name: opencode::NAME,
        display_name: opencode::DISPLAY_NAME,
        reading: FormatChoice::Opencode,
        defaults: opencode::defaults::default_stores,
        auto: Auto::ByName,
    },
    Row {
        name: "cursor",
        display_name: "Cursor",
        reading: FormatChoice::Fixed(&cursor::Cursor),
        defaults: cursor::defaults::default_stores,
        // (6): a role line has no `type`, which no Claude Code line of a
        // known type lacks.
        auto: Auto::FirstLine(60),
    },
    Row {
        name: "copilot-chat",
        display_name: "Copilot Chat",
        reading: FormatChoice::Fixed(&copilot_chat::CopilotChat),
        defaults: copilot_chat::defaults::default_stores,
        // (5): a full state, `{"kind":0,"v":{…}}`, which no Claude Code
        // line is.
        auto: Auto::FirstLine(50),
    },
    Row {
        name: "pi",
        display_name: "Pi",
        reading: FormatChoice::Fixed(&pi::Pi),
        defaults: pi::defaults::default_stores,
        // (1b), right after hydra's (1a): `"type":"session"` without
        // hydra's `createdAt` (hydra's (1c) takes the other shapes).
        auto: Auto::FirstLine(11),
    },
    Row {
        name: "qwen-code",
        display_name: "Qwen Code",
        reading: FormatChoice::Fixed(&qwen_code::QwenCode),
        defaults: qwen_code::defaults::default_stores,
        // (6a), before Claude Code's: Claude Code's fields, but a genai
        // `message`.
        auto: Auto::FirstLine(61),
    },
    Row {
        name: "continue",
        display_name: "Continue",
        reading: FormatChoice::Fixed(&continue_dev::Continue),
        defaults: continue_dev::defaults::default_stores,
        // `sessions/*.json`, unless Gemini CLI's or Copilot Chat's name
        // rule claims it first.
        auto: Auto::DocumentName,
    },
    Row {
        name: "cline",
        // Roo Code and Kilo Code (legacy) read as this format too.
        display_name: "Cline",
        reading: FormatChoice::Fixed(&cline::Cline),
        defaults: cline::defaults::default_stores,
        // `tasks/<id>/ui_messages.json`.
        auto: Auto::DocumentName,
    },
    Row {
        name: aider::NAME,
        display_name: aider::DISPLAY_NAME,
        reading: FormatChoice::Aider,
        // Found through the workspace (`aider::defaults::workspace_histories`).
        defaults: aider::defaults::default_stores,
        // `.aider.chat.history.md`, by name (agent-logs-files-3.md).
        auto: Auto::ByName,
    },
    // Not in a contract: the Cline CLI's own store, read as its 3.0.65
    // wrote it (docs/agent-logs.md "Cline CLI").
    Row {
        name: "cline-cli",
        display_name: "Cline CLI",
        reading: FormatChoice::Fixed(&cline_cli::ClineCli),
        defaults: cline_cli::defaults::default_stores,
        // `sessions/<id>/<id>.messages.json`.
        auto: Auto::DocumentName,
    },
    // agent-logs-db-3.md: rows of SQLite databases, read by the generic
    // database store (`store::database`); `auto` finds each by its file
    // name and header (`store::database::all`).
    Row {
        name: kilo::NAME,
        display_name: kilo::DISPLAY_NAME,
        reading: FormatChoice::Database(kilo::NAME),
        defaults: kilo::defaults::default_stores,
        auto: Auto::ByName,
    },
    Row {
        name: goose::NAME,
        display_name: goose::DISPLAY_NAME,
        reading: FormatChoice::Database(goose::NAME),
        defaults: goose::defaults::default_stores,
        auto: Auto::ByName,
    },
    Row {
        name: crush::NAME,
        display_name: crush::DISPLAY_NAME,
        reading: FormatChoice::Database(crush::NAME),
        defaults: crush::defaults::default_stores,
        auto: Auto::ByName,
    },
    Row {
        name: zed::NAME,
        display_name: zed::DISPLAY_NAME,
        reading: FormatChoice::Database(zed::NAME),
        defaults: zed::defaults::default_stores,
        auto: Auto::ByName,
    },
];

/// The row called `name`.
pub fn row(name: &str) -> Option<&'static Row> {
    ROWS.iter().find(|r| r.name == name)
}

/// The agents this build reads, by the names their users know, in the
/// table's order (`Claude Code, Codex, …, Zed`): what the MCP server's
/// instructions, its `list_sessions` description and the CLI's help say,
/// so no hand-kept list goes stale when a row is added. hydra's own
/// sessions are named apart: hydra is not another agent.
pub fn agent_names() -> &'static str {
    static NAMES: OnceLock<String> = OnceLock::new();
    NAMES.get_or_init(|| {
        ROWS.iter()
            .filter(|r| r.name != "hydra")
            .map(|r| r.display_name)
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// The line formats, in `auto` order.
pub fn line_formats() -> &'static [&'static dyn LogFormat] {
    static BY_RANK: OnceLock<Vec<&'static dyn LogFormat>> = OnceLock::new();
    BY_RANK.get_or_init(|| {
        let mut ranked: Vec<(u16, &'static dyn LogFormat)> = ROWS
            .iter()
            .filter_map(|r| match (r.reading, r.auto) {
                (FormatChoice::Fixed(f), Auto::FirstLine(rank)) => Some((rank, f)),
                (FormatChoice::Fixed(f), Auto::DocumentName) => Some((u16::MAX, f)),
                _ => None,
            })
            .collect();
        ranked.sort_by_key(|(rank, _)| *rank);
        ranked.into_iter().map(|(_, f)| f).collect()
    })
}

impl FormatChoice {
    /// The format called `name`: `auto`, or a row's.
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(FormatChoice::Auto),
            name => row(name).map(|r| r.reading),
        }
    }

    /// Every name [`Self::by_name`] accepts: the rows' in order, `auto`
    /// last.
    pub fn names() -> Vec<&'static str> {
        ROWS.iter()
            .map(|r| r.name)
            .chain(std::iter::once("auto"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_names_its_format_as_the_format_does() {
        for r in ROWS {
            assert_eq!(r.reading.name(), r.name);
            if let FormatChoice::Fixed(f) = r.reading {
                assert_eq!(f.display_name(), r.display_name, "{}", r.name);
            }
        }
        let mut names: Vec<_> = ROWS.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ROWS.len(), "a name is in two rows");
    }

    #[test]
    fn agent_names_come_from_the_rows() {
        let names = agent_names();
        assert!(
            names.starts_with("Claude Code, Codex, Gemini CLI, "),
            "{names}"
        );
        assert!(names.ends_with(", Zed"), "{names}");
        assert!(!names.contains("hydra"), "{names}");
        assert_eq!(names.split(", ").count(), ROWS.len() - 1);
    }

    #[test]
    fn line_formats_are_in_auto_order() {
        let order: Vec<_> = line_formats().iter().map(|f| f.name()).collect();
        assert_eq!(
            order,
            [
                "hydra",
                "pi",
                "codex",
                "copilot-cli",
                "gemini",
                "copilot-chat",
                "cursor",
                "qwen-code",
                "claude-code",
                "continue",
                "cline",
                "cline-cli"
            ]
        );
        let ranks: Vec<_> = ROWS
            .iter()
            .filter_map(|r| match r.auto {
                Auto::FirstLine(rank) => Some(rank),
                Auto::ByName | Auto::DocumentName => None,
            })
            .collect();
        let mut unique = ranks.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ranks.len(), "two rows share a rank");
    }
}
