//! The Claude Code transcript format (agent-logs.md "Claude Code"):
//! lenient JSON Lines whose `uuid`/`parentUuid` links form a tree; the
//! surface is the live branch. Rules decided where the contract is silent
//! are in docs/agent-logs.md.

pub mod defaults;
pub mod line;
pub mod meta;
pub mod reader;
pub mod text;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
pub(crate) mod tests;

use super::toolkit::declare::log_format;
use meta::Meta;

log_format! {
    /// The Claude Code format.
    ClaudeCode = "claude-code",
    recognizes: line::recognizes,
    tracked_by: (scan: Meta, read_with: reader::read_log),
    {
        /// Transcripts are `*.jsonl`; spilled tool results (`tool-results/`)
        /// and sidecar metadata (`*.meta.json`) are not sessions.
        fn is_log_name(&self, rel: &[u8]) -> bool {
            rel.ends_with(b".jsonl")
                && !rel
                    .split(|&b| b == b'/')
                    .any(|part| part == b"tool-results")
        }
    }
}
