//! Where Pi keeps its sessions (agent-logs-files-3.md "Default stores"):
//! `sessions/` in its agent folder, `~/.pi/agent` unless
//! `PI_CODING_AGENT_DIR` moves it — `~` alone or a `~/` prefix under the
//! home directory, any other value as written (Pi's `config.ts`); set, the
//! default is not read.

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$PI_CODING_AGENT_DIR/sessions`, else `~/.pi/agent/sessions`.
pub fn default_stores() -> Vec<DefaultPlace> {
    home::env_or_home("PI_CODING_AGENT_DIR", ".pi/agent")
        .map(|(dir, named)| DefaultPlace::agent(dir.join("sessions"), named))
        .into_iter()
        .collect()
}
