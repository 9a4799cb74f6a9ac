//! The protocol edge: conversions between the core's byte offsets and
//! types and the LSP's positions and types. The server speaks LSP through
//! it; `check --format json` prints LSP diagnostics through it too, and
//! the CLI prints the contract's JSON answers through [`ext`]'s shapes.

pub mod ext;
pub mod from_proto;
pub mod position;
pub mod to_proto;
