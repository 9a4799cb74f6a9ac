//! The Gemini CLI session format (agent-logs-more.md "Gemini CLI"): the
//! JSONL form replayed (a message written again under its id keeps its
//! place, `$set` replaces fields, `$rewindTo` cuts), and the older
//! whole-JSON `session-*.json` documents. Lenient: a record that cannot be
//! understood is skipped and counted; only invalid UTF-8 fails a read.

pub mod defaults;
pub mod reader;
pub mod record;
pub mod replay;
pub mod track;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
pub(crate) mod tests;

use super::toolkit::declare::log_format;
use record::Message;
use track::Tracker;

log_format! {
    /// The Gemini CLI format.
    GeminiCli = "gemini",
    tracked_by: (scan: Tracker<bool>, read: Tracker<Message>),
    {
        /// Every `.jsonl`, and the older `session-*.json` documents (never
        /// `checkpoint-*.json` or `logs.json`).
        fn is_log_name(&self, rel: &[u8]) -> bool {
            let base = rel.rsplit(|&b| b == b'/').next().unwrap_or(rel);
            rel.ends_with(b".jsonl") || (base.starts_with(b"session-") && base.ends_with(b".json"))
        }

        /// A `session-*.json` is Gemini's by its name: a pretty-printed
        /// document's first line, `{`, tells no format (agent-logs-more.md
        /// "auto": a `.json` by the name rule and its document).
        fn claims_name(&self, path: &[u8]) -> bool {
            path.ends_with(b".json") && self.is_log_name(path)
        }

        /// A metadata record, or the start of a whole-JSON document: its `{`
        /// alone (pretty-printed), or all of it on one line.
        fn recognizes(&self, line: &[u8]) -> bool {
            record::is_metadata_line(line) || record::is_document_start(line)
        }
    }
}
