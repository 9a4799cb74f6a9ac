//! Where Continue keeps its sessions (agent-logs-files-3.md "Default
//! stores"): `sessions/` in its global folder.

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$CONTINUE_GLOBAL_DIR/sessions` when the variable is an absolute path
/// (\[U\]: Continue resolves a relative one against its own working
/// directory, which is not known here), else `~/.continue/sessions`.
pub fn default_stores() -> Vec<DefaultPlace> {
    let (global, named) = match home::env_path("CONTINUE_GLOBAL_DIR").filter(|p| p.is_absolute()) {
        Some(dir) => (Some(dir), true),
        None => (home::home_dir().map(|h| h.join(".continue")), false),
    };
    global
        .map(|dir| DefaultPlace::agent(dir.join("sessions"), named))
        .into_iter()
        .collect()
}
