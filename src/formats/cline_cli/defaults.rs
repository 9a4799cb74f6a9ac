//! Where the Cline CLI keeps its sessions: `sessions/` in its data folder
//! (`--data-dir`, `CLINE_DATA_DIR`, else `~/.cline/data`), as Cline CLI
//! 3.0.65 wrote it here (docs/agent-logs.md).

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$CLINE_DATA_DIR/sessions` when the variable is an absolute path (a
/// relative one: [`super::unverified`]), else `~/.cline/data/sessions`.
pub fn default_stores() -> Vec<DefaultPlace> {
    let (data, named) = match home::env_path("CLINE_DATA_DIR").filter(|p| p.is_absolute()) {
        Some(dir) => (Some(dir), true),
        None => (
            home::home_dir().map(|h| h.join(".cline").join("data")),
            false,
        ),
    };
    data.map(|dir| DefaultPlace::agent(dir.join("sessions"), named))
        .into_iter()
        .collect()
}
