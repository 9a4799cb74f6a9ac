//! hydra-session-lsp: `@`-mentions of other agent sessions, validated,
//! previewed and rendered as the exact bounded context an agent receives.
//!
//! - [`model`]: the format-neutral session model, at the bottom.
//! - [`heap`]: the allocator's freed memory given back, for every layer.
//! - [`formats`]: the agents' log formats, read into the model.
//! - [`reference`]: URIs, mentions, projection, retention, rendering,
//!   `prepare`, candidates and diagnostics — pure and LSP-free.
//! - [`store`]: the read-only session store.
//! - [`live`]: the live session index every long-lived face reads.
//! - [`proto`]: the protocol edge, where the core's types become LSP types
//!   and the contract's JSON shapes.
//! - [`cli`]: the command line over the core (`check --format json`
//!   prints LSP diagnostics, made in [`proto`]).
//! - [`server`]: the language server; LSP types live there and in
//!   [`proto`], never in the core.
//! - [`mcp`]: the MCP server; MCP types live only there.
//!
//! The layers and the rest of the modules are in `docs/architecture.md`.

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
pub mod heap;
pub mod live;
pub mod mcp;
pub mod model;
pub mod proto;
pub mod publish;
pub mod reference;
pub mod search;
pub mod server;
pub mod spill;
pub mod store;
