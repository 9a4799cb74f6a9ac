//! The Codex rollout format (agent-logs.md "Codex"): `session_meta` first,
//! then `response_item`, `event_msg`, `compacted` and `turn_context`
//! lines. Lenient: a line that cannot be understood is skipped and
//! counted; only invalid UTF-8 fails a read.

pub mod defaults;
pub mod line;
pub mod reader;
pub mod text;
pub mod track;

use super::toolkit::track::{tracked_by, TrackScanner};
use super::LogFormat;
use track::Tracker;

/// The Codex rollout format.
#[derive(Debug, Clone, Copy)]
pub struct Codex;

impl LogFormat for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        line::is_session_meta(line)
    }

    tracked_by!(scan: Tracker, read_with: reader::read_log);
}

/// The store's scanner of a rollout.
pub type CodexScanner = TrackScanner<Tracker>;

#[cfg(test)]
mod tests;
