//! Where Cursor keeps its agent transcripts (agent-logs-more.md "Default
//! stores"): `projects/` in `~/.cursor`, which `CURSOR_CONFIG_DIR` is
//! reported to move [S].

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$CURSOR_CONFIG_DIR/projects`, else `~/.cursor/projects`.
pub fn default_stores() -> Vec<DefaultPlace> {
    home::env_or_home("CURSOR_CONFIG_DIR", ".cursor")
        .map(|(dir, named)| DefaultPlace::agent(dir.join("projects"), named))
        .into_iter()
        .collect()
}
