//! hydra-session-lsp: `@`-mentions of other agent sessions, validated,
//! previewed and rendered as the exact bounded context an agent receives.
//!
//! - [`reference`]: URIs, mentions, projection, retention, rendering,
//!   `prepare`, candidates and diagnostics — pure and LSP-free.
//! - [`store`]: the read-only session store.
//! - [`cli`]: the command line over the core.
//! - [`server`]: the language server; LSP types live only there.

pub mod cli;
pub mod reference;
pub mod server;
pub mod store;
