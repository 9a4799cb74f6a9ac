//! The `continue` format (agent-logs-files-3.md "Continue"): one session is
//! one `<global>/sessions/<sessionId>.json`, pretty-printed and rewritten
//! whole, its `history` read entry by entry
//! ([`crate::formats::toolkit::whole`]); its creation time is in the list
//! `sessions.json` beside it ([`place`]). (`continue` is a Rust keyword,
//! hence the module's name.) Every rule the contract leaves unverified is
//! in [`unverified`].

pub mod defaults;
pub mod place;
pub mod track;
pub mod unverified;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;

use std::path::Path;

use super::toolkit::declare::log_format;
use track::Tracker;

log_format! {
    /// The Continue format.
    Continue = "continue",
    document_by: Tracker,
    {
        /// A `<name>.json` other than `sessions.json` directly in `sessions`.
        fn is_log_name(&self, rel: &[u8]) -> bool {
            place::is_session_file(rel)
        }

        /// Under `auto`, unless Gemini CLI's or Copilot Chat's name rule
        /// claims the file first (agent-logs-files-3.md).
        fn claims_name(&self, path: &[u8]) -> bool {
            place::is_session_file(path)
                && !super::gemini_cli::GeminiCli.is_log_name(path)
                && !super::copilot_chat::CopilotChat.is_log_name(path)
        }

        fn side_facts(&self, path: &Path) -> Option<u64> {
            place::fingerprint(path)
        }

        fn side_scope(&self, rel: &[u8]) -> Option<Vec<u8>> {
            place::scope_of(rel)
        }
    }
}
