//! The session store: finding logs, reading them as they are, and keeping
//! an index of their headers and titles. Read-only: nothing here writes to
//! a store, and no session id is ever turned into a path.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod catalog;
pub mod discover;
pub mod line;
pub mod log;
pub mod snapshot;

pub use catalog::{Catalog, Session, StoreNote};
pub use snapshot::{read_snapshot, Snapshot};
