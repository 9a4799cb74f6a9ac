//! The file-system session store: finding logs below each store root,
//! keeping an index of their headers and titles, watching for changes, and
//! reading one session through its format. Read-only: nothing here writes
//! to a store, and no session id is ever turned into a path.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod by_name;
pub mod catalog;
pub mod discover;
pub mod fs;
pub mod index_cache;
mod record;
mod stamp;
pub mod watch;

pub use catalog::{Catalog, FormatChoice};
pub use fs::{FsStore, Scan, StoreSpec};
