//! Logging to stderr (stdout is the protocol channel), at the level of
//! `RUST_LOG` or, once the client sends it, the `logLevel` setting.

use std::sync::OnceLock;

use tracing_subscriber::prelude::*;
use tracing_subscriber::{reload, EnvFilter, Registry};

static RELOAD: OnceLock<reload::Handle<EnvFilter, Registry>> = OnceLock::new();

/// Installs the stderr subscriber (once per process; later calls do nothing).
pub fn init() {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(filter_for("info")));
    let (filter, handle) = reload::Layer::new(filter);
    let installed = tracing_subscriber::registry()
        .with(filter)
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .try_init();
    if installed.is_ok() {
        let _ = RELOAD.set(handle);
    }
}

/// Switches the level (`error`…`trace`), when a subscriber was installed.
pub fn set_level(level: &str) {
    if let Some(handle) = RELOAD.get() {
        if let Err(e) = handle.reload(EnvFilter::new(filter_for(level))) {
            tracing::warn!("cannot change the log level: {e}");
        }
    }
}

/// `level` for our code; the file watcher's own chatter (a watch removed
/// twice, say) only when it is an error.
fn filter_for(level: &str) -> String {
    format!("{level},notify=error,tower_lsp=warn")
}
