//! Aider's chat history (agent-logs-files-3.md "Aider"): one Markdown file,
//! `.aider.chat.history.md`, that every run of Aider appends to. Each run
//! after a `# aider chat started at …` header is one session, so this is
//! not a [`super::LogFormat`] (one file, one session): the store lists a
//! file's runs (`store::aider`), and this module holds what is pure — the
//! line classification ([`line`]), the messages a run's lines make
//! ([`project`]), the incremental scan of a file's runs ([`runs`]), the
//! full read of one run ([`read`]) and every unverified rule
//! ([`unverified`]).

pub mod defaults;
pub mod line;
pub mod project;
pub mod read;
pub mod runs;
pub mod unverified;

#[cfg(test)]
mod tests;

pub use read::read_run;
pub use runs::{HistoryScan, Run};

/// The store kind's name in settings and status (`--store-format aider`).
pub const NAME: &str = "aider";

/// The agent's name for people.
pub const DISPLAY_NAME: &str = "Aider";

/// The one file name Aider's history has (agent-logs-files-3.md "Files
/// read"): a store of format `aider` or `auto` reads every file so named.
pub const FILE_NAME: &str = ".aider.chat.history.md";

/// Whether `rel` (a `/`-separated path relative to a store root) names an
/// Aider chat history.
pub fn is_history_name(rel: &[u8]) -> bool {
    let name = match memchr::memrchr(b'/', rel) {
        Some(slash) => &rel[slash + 1..],
        None => rel,
    };
    name == FILE_NAME.as_bytes()
}
