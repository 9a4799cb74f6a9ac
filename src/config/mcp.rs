//! What `hydra-session-lsp mcp` was asked: the CLI parses the flags, the
//! MCP face runs with them (neither depends on the other).

use super::settings::{Requested, SpillRequest};

/// The clients `mcp --print-config` knows, by the name it takes: every
/// agent this build reads that has MCP (by its format's name; `vscode`
/// for Copilot Chat), in the table's order. Pi and Aider have no MCP.
pub const CLIENTS: [&str; 14] = [
    "claude-code",
    "codex",
    "gemini",
    "copilot-cli",
    "opencode",
    "cursor",
    "vscode",
    "qwen-code",
    "continue",
    "cline",
    "kilo",
    "goose",
    "crush",
    "zed",
];

/// The default of the resources one list offers, over at most 20 pages
/// (`mcp::page_policy`): Claude Code reads at most 20 and lists every
/// resource in its `@` menu.
pub const DEFAULT_RESOURCE_LIMIT: u64 = 500;

/// The MCP revisions `mcp --protocol` can force as the newest served.
pub const PROTOCOL_REVISIONS: [&str; 3] = ["2026-07-28", "2025-11-25", "2025-06-18"];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpRequest {
    pub settings: Requested,
    pub spill: SpillRequest,
    /// `--limit`: at most this many sessions listed as resources.
    pub limit: Option<u64>,
    /// `--print-config CLIENT`: print how to install, then exit.
    pub print_config: Option<String>,
    /// `--no-search-index`: `search_sessions` keeps its index in memory.
    pub no_search_index: bool,
    /// `--protocol REVISION`: the newest MCP revision served.
    pub protocol: Option<String>,
}
