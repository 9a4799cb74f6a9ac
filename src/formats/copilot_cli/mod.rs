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
mod tests;

use super::toolkit::track::tracked_by;
use super::LogFormat;
use track::Tracker;

/// The GitHub Copilot CLI format.
#[derive(Debug, Clone, Copy)]
pub struct CopilotCli;

impl LogFormat for CopilotCli {
    fn name(&self) -> &'static str {
        "copilot-cli"
    }

    fn side_files(&self) -> &'static [(&'static str, &'static str)] {
        &[(track::EVENTS, workspace::WORKSPACE)]
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        event::is_start_line(line)
    }

    tracked_by!(Tracker);
}
