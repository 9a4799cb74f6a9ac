//! The hydra log format (session-log.md): a header line, then events with
//! strictly increasing `seq`. Strict: any bad line fails the read.

pub mod defaults;
pub mod line;
pub mod reader;
pub mod track;

#[cfg(test)]
mod tests;

use super::toolkit::track::tracked_by;
use super::LogFormat;
use track::Tracker;

/// The hydra format.
#[derive(Debug, Clone, Copy)]
pub struct Hydra;

impl LogFormat for Hydra {
    fn name(&self) -> &'static str {
        "hydra"
    }

    fn recognizes(&self, line: &[u8]) -> bool {
        // A header is an object with `"type":"session"`; parse only that.
        #[derive(serde::Deserialize)]
        struct Probe<'a> {
            #[serde(rename = "type", borrow)]
            kind: Option<std::borrow::Cow<'a, str>>,
        }
        serde_json::from_slice::<Probe>(line).is_ok_and(|p| p.kind.as_deref() == Some("session"))
    }

    tracked_by!(Tracker);
}
