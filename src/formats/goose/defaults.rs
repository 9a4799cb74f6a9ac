//! Where Goose keeps `sessions.db` (agent-logs-db-3.md "Default stores").

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$GOOSE_PATH_ROOT/data/sessions` when that is absolute [V `paths.rs`];
/// else `$XDG_DATA_HOME/goose/sessions` (absolute), else
/// `~/.local/share/goose/sessions` (macOS too: a real macOS user's), and
/// on macOS also `~/Library/Application Support/Block/goose/sessions` [U].
pub fn default_stores() -> Vec<DefaultPlace> {
    if let Some(root) = home::env_path("GOOSE_PATH_ROOT").filter(|p| p.is_absolute()) {
        return vec![DefaultPlace::agent(root.join("data/sessions"), true)];
    }
    let (data, named) = match home::xdg_path("XDG_DATA_HOME") {
        Some(dir) => (Some(dir), true),
        None => (home::home_dir().map(|h| h.join(".local/share")), false),
    };
    let mut places: Vec<DefaultPlace> = data
        .map(|dir| DefaultPlace::agent(dir.join("goose/sessions"), named))
        .into_iter()
        .collect();
    if cfg!(target_os = "macos") {
        if let Some(home) = home::home_dir() {
            let block = home.join("Library/Application Support/Block/goose/sessions");
            places.push(DefaultPlace::agent(block, false));
        }
    }
    places
}
