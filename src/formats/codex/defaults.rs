//! Where Codex keeps its rollouts (agent-logs.md "Codex"): `sessions/` in
//! its home.

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$CODEX_HOME/sessions`, else `~/.codex/sessions`.
pub fn default_stores() -> Vec<DefaultPlace> {
    home::env_or_home("CODEX_HOME", ".codex")
        .map(|(dir, named)| DefaultPlace::agent(dir.join("sessions"), named))
        .into_iter()
        .collect()
}
