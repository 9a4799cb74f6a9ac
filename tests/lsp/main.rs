//! The language server, one module per feature: each drives the server in
//! this process (`lsp_common::in_process`) or the built binary over stdio,
//! as an editor does. `tests/lsp_common` is shared with the MCP tests, the
//! soak test and the benches, so it stays where they all find it.

#[path = "../lsp_common/mod.rs"]
mod lsp_common;
#[path = "../skip/mod.rs"]
mod skip;

mod aider;
mod completion;
mod custom;
mod diagnostics;
mod editor_session;
mod ext_shapes;
mod extensions_doc;
mod features;
mod files;
mod hostile;
mod lifecycle;
mod opencode;
mod pickers;
mod protocol_edge;
mod search;
mod stdio;
mod team;
mod watch;
