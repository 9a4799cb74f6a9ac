//! Where GitHub Copilot CLI keeps its sessions (agent-logs-more.md
//! "Default stores").

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$COPILOT_HOME/session-state` (else `~/.copilot/session-state`), then
/// `$XDG_STATE_HOME/.copilot/session-state`, where VS Code's integration
/// also looks.
pub fn default_stores() -> Vec<DefaultPlace> {
    let own = home::env_or_home("COPILOT_HOME", ".copilot")
        .map(|(dir, named)| DefaultPlace::agent(dir.join("session-state"), named));
    let xdg = home::xdg_path("XDG_STATE_HOME")
        .map(|dir| DefaultPlace::agent(dir.join(".copilot").join("session-state"), true));
    own.into_iter().chain(xdg).collect()
}
