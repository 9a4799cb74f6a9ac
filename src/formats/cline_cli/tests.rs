//! The `cline-cli` format on its fixture.
