//! Qwen Code's chat files (agent-logs-files-3.md "Qwen Code"):
//! `<runtime>/projects/<project>/chats/<sessionId>.jsonl`, one `ChatRecord`
//! a line, a tree by `uuid`/`parentUuid` whose live chain hangs from the
//! last record; streaming writes several records of one uuid. The scan is
//! the shared [`TrackScanner`]; the read is its own ([`reader`]): the
//! chain needs the whole file's uuid → parent map. Every rule the contract
//! leaves unverified is in [`unverified`]. Lenient: a line that cannot be
//! understood is skipped and counted; only invalid UTF-8 fails a read.

pub mod chain;
pub mod defaults;
pub mod reader;
pub mod record;
pub mod track;
pub mod unverified;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;

use super::toolkit::declare::log_format;
use track::Tracker;

log_format! {
    /// The Qwen Code format.
    QwenCode = "qwen-code",
    // Rule (6a), before Claude Code's.
    recognizes: record::is_first_record,
    tracked_by: (scan: Tracker, read_with: reader::read_log)
}
