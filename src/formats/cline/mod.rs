//! The `cline` format (agent-logs-files-3.md "Cline, Roo Code, Kilo Code
//! (legacy)"): one task is one `tasks/<taskId>/ui_messages.json` in a VS
//! Code extension's global storage. **Roo Code** (`rooveterinaryinc.roo-cline`)
//! and **Kilo Code's legacy extension** (`kilocode.kilo-code`) write the same
//! layout and read as this format; their `history_item.json` and
//! `tasks/_index.json` stand where Cline has `state/taskHistory.json`
//! ([`history`]). The document is rewritten whole, compact on one line, so
//! it is read by its bytes ([`crate::formats::toolkit::whole`]), never by
//! lines. Every rule the contract leaves unverified is in [`unverified`].

pub mod defaults;
pub mod history;
pub mod message;
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
    /// The Cline format (Cline, Roo Code, Kilo Code legacy).
    Cline = "cline",
    document_by: Tracker,
    {
        /// `ui_messages.json` directly in a task folder directly in `tasks`.
        fn is_log_name(&self, rel: &[u8]) -> bool {
            place::is_task_log(rel)
        }

        fn claims_name(&self, path: &[u8]) -> bool {
            place::is_task_log(path)
        }

        fn side_facts(&self, path: &Path) -> Option<u64> {
            history::fingerprint(path)
        }

        fn side_scope(&self, rel: &[u8]) -> Option<Vec<u8>> {
            place::scope_of(rel)
        }
    }
}
