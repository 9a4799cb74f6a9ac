//! Where OpenCode keeps its data folder (agent-logs-more.md "Default
//! stores"): `xdg-basedir`'s data folder, macOS too.

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
pub fn default_stores() -> Vec<DefaultPlace> {
    let (data, named) = match home::xdg_path("XDG_DATA_HOME") {
        Some(dir) => (Some(dir), true),
        None => (
            home::home_dir().map(|h| h.join(".local").join("share")),
            false,
        ),
    };
    data.map(|dir| DefaultPlace::agent(dir.join("opencode"), named))
        .into_iter()
        .collect()
}
