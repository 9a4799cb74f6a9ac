//! The hydra log format (session-log.md): a header line, then events with
//! strictly increasing `seq`. Strict: any bad line fails the read.

pub mod defaults;
pub mod line;
pub mod reader;
pub mod track;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;

use super::toolkit::declare::log_format;
use track::Tracker;

log_format! {
    /// The hydra format.
    Hydra = "hydra",
    tracked_by: (Tracker),
    {
        /// agent-logs-files-3.md "auto" (1a)–(1c): `"type":"session"` with a
        /// key `createdAt` (1a), or of any other shape than Pi's header (1c,
        /// then judged by the header rule: not a session); a Pi header — no
        /// `createdAt`, a string `id` and `timestamp` (1b) — is Pi's.
        fn recognizes(&self, line: &[u8]) -> bool {
            // A header is an object with `"type":"session"`; parse only that.
            #[derive(serde::Deserialize)]
            struct Probe<'a> {
                #[serde(rename = "type", borrow)]
                kind: Option<std::borrow::Cow<'a, str>>,
            }
            serde_json::from_slice::<Probe>(line).is_ok_and(|p| p.kind.as_deref() == Some("session"))
                && !super::pi::entry::is_pi_header(line)
        }
    }
}
