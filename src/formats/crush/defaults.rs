//! Where Crush keeps its global folder, with the `projects.json` that
//! names each project's `crush.db` (agent-logs-db-3.md "Default stores").

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush` (absolute), else
/// `~/.local/share/crush` (macOS too) [V `GlobalConfigData`].
pub fn default_stores() -> Vec<DefaultPlace> {
    if let Some(global) = home::resolve_env("CRUSH_GLOBAL_DATA") {
        return vec![DefaultPlace::agent(global, true)];
    }
    let (data, named) = match home::xdg_path("XDG_DATA_HOME") {
        Some(dir) => (Some(dir), true),
        None => (home::home_dir().map(|h| h.join(".local/share")), false),
    };
    data.map(|dir| DefaultPlace::agent(dir.join("crush"), named))
        .into_iter()
        .collect()
}
