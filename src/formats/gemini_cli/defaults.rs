//! Where Gemini CLI keeps its sessions (agent-logs-more.md "Default
//! stores"): `.gemini/tmp` in the user's home, unless `GEMINI_CLI_HOME`
//! moves that home.

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$GEMINI_CLI_HOME/.gemini/tmp`, else `~/.gemini/tmp`.
pub fn default_stores() -> Vec<DefaultPlace> {
    let (home, named) = match home::resolve_env("GEMINI_CLI_HOME") {
        Some(dir) => (Some(dir), true),
        None => (home::home_dir(), false),
    };
    home.map(|dir| DefaultPlace::agent(dir.join(".gemini").join("tmp"), named))
        .into_iter()
        .collect()
}
