//! The team store over the built binary: publishing, and two people (two
//! `HOME`s) sharing sessions through one bucket of a real S3-compatible
//! server (`weed mini`, see `weed.rs`), and through a `file://` folder.
//! Without the server installed the tests skip, which CI counts as a
//! failure (tests/skip); `.ci/run` installs it.

#[path = "../lsp_common/mod.rs"]
mod lsp_common;
#[path = "../skip/mod.rs"]
mod skip;

mod index;
mod kept_listing;
mod pending;
mod person;
mod publish_file;
mod publish_s3;
mod stopped;
mod weed;
