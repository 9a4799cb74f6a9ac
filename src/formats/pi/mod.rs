//! The Pi coding agent's session files (agent-logs-files-3.md "Pi"):
//! `<agentDir>/sessions/--<cwd>--/<ts>_<id>.jsonl`, a header line then
//! entries forming a tree by `id`/`parentId` (v2, v3) or a chain (v1). The
//! scan is the shared [`TrackScanner`]; the read is its own
//! ([`reader`]): the live branch needs the whole file's id → parent map.
//! Every rule the contract leaves unverified is in [`unverified`].
//! Lenient: a line that cannot be understood is skipped and counted; only
//! invalid UTF-8 fails a read.

pub mod defaults;
pub mod entry;
pub mod reader;
pub mod track;
pub mod tree;
pub mod unverified;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;

use super::toolkit::declare::log_format;
use track::Tracker;

log_format! {
    /// The Pi format.
    Pi = "pi",
    // Rule (1b): `type` `"session"`, no key `createdAt`, a string `id`
    // and a string `timestamp`.
    recognizes: entry::is_pi_header,
    tracked_by: (scan: Tracker, read_with: reader::read_log)
}
