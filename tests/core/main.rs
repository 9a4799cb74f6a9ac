//! The library's core against the contract, without the binary: property
//! tests of its own definitions, bad logs and documents, and the full
//! snapshot a spill stores.

mod bad_input;
mod full_snapshot;
mod properties;
