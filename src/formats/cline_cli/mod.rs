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
mod tests;

use std::path::Path;

use super::toolkit::track::TrackScanner;
use super::toolkit::whole;
use super::{LogFormat, LogSource, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};
use track::Tracker;

/// The Cline CLI format.
#[derive(Debug, Clone, Copy)]
pub struct ClineCli;

impl LogFormat for ClineCli {
    fn name(&self) -> &'static str {
        "cline-cli"
    }

    fn display_name(&self) -> &'static str {
        "Cline CLI"
    }

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

    fn is_document(&self) -> bool {
        true
    }

    /// No first line tells a session: its name does ([`Self::claims_name`]).
    fn recognizes(&self, _line: &[u8]) -> bool {
        false
    }

    fn scanner(&self) -> Box<dyn Scanner> {
        TrackScanner::<Tracker>::boxed()
    }

    fn read(
        &self,
        log: &dyn LogSource,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        whole::read::<Tracker>(log, cancelled, sink)
    }
}
