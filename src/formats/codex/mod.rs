//! The Codex rollout format (agent-logs.md "Codex"): `session_meta` first,
//! then `response_item`, `event_msg`, `compacted` and `turn_context`
//! lines. Lenient: a line that cannot be understood is skipped and
//! counted; only invalid UTF-8 fails a read.

pub mod defaults;
pub mod line;
pub mod reader;
pub mod text;
pub mod track;

use super::toolkit::declare::log_format;
use super::toolkit::track::TrackScanner;
use track::Tracker;

log_format! {
    /// The Codex rollout format.
    Codex = "codex",
    recognizes: line::is_session_meta,
    tracked_by: (scan: Tracker, read_with: reader::read_log)
}

/// The store's scanner of a rollout.
pub type CodexScanner = TrackScanner<Tracker>;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
pub(crate) mod tests;
