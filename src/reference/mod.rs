//! The session-reference core: pure, synchronous, and free of LSP types.
//! Both the CLI and the language server call it.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod budget;
pub mod candidates;
pub mod diagnostics;
pub mod echo;
pub mod error;
pub mod file_mention;
pub mod full_snapshot;
pub mod json;
pub mod mention;
pub mod one_line;
pub mod pin;
pub mod prepare;
pub mod preselect;
pub mod projection;
pub mod render;
pub mod retention;
pub mod settings;
pub mod snapshot;
pub mod source;
pub mod table;
pub mod time;
pub mod uri;

pub use error::{ErrorCode, ReferenceError};
