//! Where Claude Code keeps its transcripts (agent-logs.md "Claude Code"):
//! `projects/` in its configuration directory.

use std::path::PathBuf;

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`.
pub fn default_stores() -> Vec<DefaultPlace> {
    home::env_or_home("CLAUDE_CONFIG_DIR", ".claude")
        .map(|(dir, named)| DefaultPlace::agent(dir.join("projects"), named))
        .into_iter()
        .collect()
}

/// Claude Code's configuration directory: `$CLAUDE_CONFIG_DIR`, else
/// `~/.claude`.
pub fn config_dir() -> Option<PathBuf> {
    home::env_or_home("CLAUDE_CONFIG_DIR", ".claude").map(|(dir, _)| dir)
}
