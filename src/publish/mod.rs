//! Publishing sessions to a team store (issue 26, `docs/team-store.md`):
//! the secret scan that runs first, the snapshot bytes (a session's
//! projected surface written as a hydra log), and the write protocol of
//! snapshots and manifests.

pub mod secrets;
pub mod snapshot;
