//! Publishing sessions to a team store (issue 26, `docs/team-store.md`):
//! the secret scan that runs first, the snapshot bytes (a session's
//! projected surface written as a hydra log), and the write protocol of
//! snapshots, manifests and the publisher's index. Face-neutral: the CLI's `publish` and the
//! language server's `sessionReference/publish` both call [`publish`].

pub mod error;
pub mod file_manifest;
pub mod index;
pub mod protocol;
pub mod run;
pub mod secrets;
pub mod snapshot;

pub use error::PublishError;
pub use run::{login_name, now_ms, publish, PublishRequest, Published, Sessions};
