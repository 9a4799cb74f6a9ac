//! Where hydra keeps its sessions (session-log.md): `$HYDRA_SESSION_STORE`,
//! else `$HYDRA_HOME/sessions`, else `~/.hydra/sessions`.

use std::path::PathBuf;

use crate::formats::toolkit::home::{self, DefaultPlace};

/// The hydra store: always listed (its absence is worth a note), read as
/// `auto`.
pub fn default_stores() -> Vec<DefaultPlace> {
    let named = ["HYDRA_SESSION_STORE", "HYDRA_HOME"]
        .iter()
        .any(|v| home::resolve_env(v).is_some());
    vec![DefaultPlace {
        path: store(),
        named,
        own: true,
    }]
}

/// The hydra default store's path.
pub fn store() -> PathBuf {
    if let Some(store) = home::resolve_env("HYDRA_SESSION_STORE") {
        return store;
    }
    if let Some(hydra_home) = home::resolve_env("HYDRA_HOME") {
        return hydra_home.join("sessions");
    }
    home::home_dir()
        .unwrap_or_default()
        .join(".hydra")
        .join("sessions")
}
