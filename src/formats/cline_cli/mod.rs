//! The `cline-cli` format: the session store of Cline's own command line
//! (`cline` 3.x, npm), which is not the extension's `tasks/` layout of the
//! `cline` format. One session is one
//! `<data>/sessions/<id>/<id>.messages.json` (`<data>` is `~/.cline/data`,
//! or `CLINE_DATA_DIR`), rewritten whole, its `messages` read entry by
//! entry ([`crate::formats::toolkit::whole`]); its title, cwd and start
//! are in `<id>.json` beside it ([`place`]). The databases under
//! `<data>/db/` are never read: the files are the session. What was
//! verified on what is in docs/agent-logs.md; every rule the files did
//! not prove is in [`unverified`].

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
    /// The Cline CLI format.
    ClineCli = "cline-cli",
    document_by: Tracker,
    {
        /// `<id>.messages.json` directly in a folder named `<id>`.
        fn is_log_name(&self, rel: &[u8]) -> bool {
            place::session_id_of(rel).is_some()
        }

        /// Under `auto`, when that folder is directly in `sessions` too.
        fn claims_name(&self, path: &[u8]) -> bool {
            place::is_in_sessions(path)
        }

        fn side_facts(&self, path: &Path) -> Option<u64> {
            place::fingerprint(path)
        }

        fn side_scope(&self, rel: &[u8]) -> Option<Vec<u8>> {
            place::scope_of(rel)
        }
    }
}
