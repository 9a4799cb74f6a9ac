//! Where Copilot Chat in VS Code keeps its sessions (agent-logs-more.md
//! "Default stores"): the user-data folders of VS Code and VS Code
//! Insiders.

use std::path::PathBuf;

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `<config>/Code/User`, then `<config>/Code - Insiders/User`; `<config>`
/// being `$XDG_CONFIG_HOME` (when absolute) else `~/.config` on Linux,
/// and `~/Library/Application Support` on macOS.
pub fn default_stores() -> Vec<DefaultPlace> {
    let (config, named) = editor_config_dir();
    config
        .map(|config| {
            ["Code", "Code - Insiders"]
                .map(|app| DefaultPlace::agent(config.join(app).join("User"), named))
                .to_vec()
        })
        .unwrap_or_default()
}

/// The folder editors keep their user data in (Electron's `appData`),
/// and whether an environment variable named it: none does on macOS.
pub fn editor_config_dir() -> (Option<PathBuf>, bool) {
    if cfg!(target_os = "macos") {
        let config = home::home_dir().map(|h| h.join("Library").join("Application Support"));
        return (config, false);
    }
    match home::xdg_path("XDG_CONFIG_HOME") {
        Some(config) => (Some(config), true),
        None => (home::home_dir().map(|h| h.join(".config")), false),
    }
}
