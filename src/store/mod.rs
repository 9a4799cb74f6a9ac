//! The file-system session store: finding logs below each store root,
//! keeping an index of their headers and titles, watching for changes, and
//! reading one session through its format. Read-only: nothing here writes
//! to a store, and no session id is ever turned into a path.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod aider;
#[cfg(test)]
mod batched_scan_tests;
mod by_name;
pub mod catalog;
pub mod database;
pub mod discover;
mod election;
mod file_state;
#[cfg(test)]
mod format_tests;
pub mod fs;
pub mod index_cache;
mod notes;
pub mod opencode;
mod record;
mod release;
mod scan;
mod stamp;
pub mod team;
pub mod watch;

pub use catalog::Catalog;
pub use fs::{FsStore, Scan, StoreSpec};
pub use scan::Walker;
