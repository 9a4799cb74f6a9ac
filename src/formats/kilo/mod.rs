//! Kilo Code's sessions (agent-logs-db-3.md "Kilo Code"): its `kilo.db` is
//! OpenCode's schema under another name, projected by OpenCode's rules
//! (`formats::opencode`) word for word; only the name, the file and the
//! agent's label differ.

pub mod defaults;

/// The format's name in settings and status.
pub const NAME: &str = "kilo";

/// The agent's name for people (hover, completion details).
pub const DISPLAY_NAME: &str = "Kilo Code";

/// The one database Kilo Code keeps [V `db.ts`: one fixed path, no
/// channel databases, no override].
pub const DATABASE: &str = "kilo.db";

/// The rules chosen here, not read in Kilo Code's source or files: none of
/// its own beyond OpenCode's (`formats::opencode`), but these two.
pub mod unverified {
    /// OpenCode's default titles are Kilo's too (Kilo's `isDefaultTitle`
    /// was not read; the real CLI 7.7.7 wrote `New session - <ISO>`).
    pub const OPENCODE_DEFAULT_TITLES: bool = true;

    /// A `storage/` tree left by a pre-SQLite Kilo is not read.
    pub const READS_STORAGE_TREE: bool = false;
}
