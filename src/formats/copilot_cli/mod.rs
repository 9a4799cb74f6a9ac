//! The GitHub Copilot CLI session format (agent-logs-more.md "GitHub
//! Copilot CLI"): `session-state/<id>/events.jsonl`, one event a line,
//! with `workspace.yaml` beside it for the cwd and name. Lenient: a line
//! that cannot be understood is skipped and counted; only invalid UTF-8
//! fails a read.

pub mod defaults;
pub mod event;
pub mod track;
pub mod workspace;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;

use super::toolkit::declare::log_format;
use track::Tracker;

log_format! {
    /// The GitHub Copilot CLI format.
    CopilotCli = "copilot-cli",
    recognizes: event::is_start_line,
    tracked_by: (Tracker),
    {
        fn side_files(&self) -> &'static [(&'static str, &'static str)] {
            &[(track::EVENTS, workspace::WORKSPACE)]
        }
    }
}
