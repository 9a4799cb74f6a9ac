//! Settings that both faces resolve the same way: where the stores are
//! and in which formats. The CLI's flags and the server's settings are
//! parsed by each face; what they mean is decided here, once.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod document;
pub mod editor_session;
pub mod mcp;
pub mod paths;
pub mod settings;
pub mod spill;
pub mod stores;

pub use stores::{
    default_store_list, default_store_list_in, default_stores, resolve_stores, resolve_stores_in,
    DefaultStore, StoreEntry,
};
