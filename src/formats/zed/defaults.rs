//! Where Zed keeps `threads/threads.db` (agent-logs-db-3.md "Default
//! stores"): its data folder's `threads`.

use crate::formats::toolkit::home::{self, DefaultPlace};

/// Linux: `$FLATPAK_XDG_DATA_HOME/zed/threads` (absolute), else
/// `$XDG_DATA_HOME/zed/threads` (absolute), else
/// `~/.local/share/zed/threads`; macOS: `~/Library/Application
/// Support/Zed/threads` [S: Zed's `paths::data_dir` as readers quote it].
pub fn default_stores() -> Vec<DefaultPlace> {
    if cfg!(target_os = "macos") {
        return home::home_dir()
            .map(|h| DefaultPlace::agent(h.join("Library/Application Support/Zed/threads"), false))
            .into_iter()
            .collect();
    }
    let (data, named) =
        match home::xdg_path("FLATPAK_XDG_DATA_HOME").or_else(|| home::xdg_path("XDG_DATA_HOME")) {
            Some(dir) => (Some(dir), true),
            None => (home::home_dir().map(|h| h.join(".local/share")), false),
        };
    data.map(|dir| DefaultPlace::agent(dir.join("zed/threads"), named))
        .into_iter()
        .collect()
}
