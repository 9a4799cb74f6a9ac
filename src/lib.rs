//! hydra-session-lsp: `@`-mentions of other agent sessions, validated,
//! previewed and rendered as the exact bounded context an agent receives.
//!
//! - [`reference`]: URIs, mentions, projection, retention, rendering,
//!   `prepare`, candidates and diagnostics — pure and LSP-free.
//! - [`store`]: the read-only session store.
//! - [`live`]: the live session index every long-lived face reads.
//! - [`cli`]: the command line over the core.
//! - [`server`]: the language server; LSP types live only there.
//! - [`mcp`]: the MCP server; MCP types live only there.

// No input may panic the tool: bad logs, documents and requests become
// typed errors. Tests may unwrap.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod cli;
pub mod config;
pub mod files;
pub mod formats;
pub mod fsio;
pub mod live;
pub mod mcp;
pub mod model;
pub mod proto;
pub mod reference;
pub mod search;
pub mod server;
pub mod spill;
pub mod store;
