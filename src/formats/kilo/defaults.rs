//! Where Kilo Code keeps its database (agent-logs-db-3.md "Default
//! stores"): `Global.Path.data` — `xdg-basedir`'s data folder, macOS and
//! Windows too.

use crate::formats::toolkit::home::{self, DefaultPlace};

/// `$XDG_DATA_HOME/kilo` (absolute), else `~/.local/share/kilo`.
pub fn default_stores() -> Vec<DefaultPlace> {
    let (data, named) = match home::xdg_path("XDG_DATA_HOME") {
        Some(dir) => (Some(dir), true),
        None => (home::home_dir().map(|h| h.join(".local/share")), false),
    };
    data.map(|dir| DefaultPlace::agent(dir.join("kilo"), named))
        .into_iter()
        .collect()
}
