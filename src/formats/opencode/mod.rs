//! OpenCode's sessions (agent-logs-more.md "OpenCode"): rows of its SQLite
//! database (`opencode.db`, `opencode-*.db`) or files of its older
//! `storage/` tree, projected the same way.

pub mod defaults;
pub mod project;
pub mod title;

/// The format's name in settings and status.
pub const NAME: &str = "opencode";

/// The agent's name for people (hover, completion details).
pub const DISPLAY_NAME: &str = "OpenCode";
