//! The hydra log format (session-log.md): a header line, then events with
//! strictly increasing `seq`. Strict: any bad line fails the read.

pub mod line;
pub mod reader;

#[cfg(test)]
mod tests;

use super::{HeaderState, LogFormat, LogSource, ScanMeta, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};
use line::LineError;
use reader::EventCursor;

/// The hydra format.
#[derive(Debug, Clone, Copy)]
pub struct Hydra;

impl LogFormat for Hydra {
    fn name(&self) -> &'static str {
        "hydra"
    }

    fn display_name(&self) -> &'static str {
        "hydra"
    }

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

    fn scanner(&self) -> Box<dyn Scanner> {
        Box::new(HydraScanner::default())
    }

    fn read(
        &self,
        log: &dyn LogSource,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        reader::read_log(log, cancelled, sink)
    }
}

/// Header, title and validity of a hydra log, line by line.
#[derive(Debug, Clone, Default)]
struct HydraScanner {
    header: Option<Result<line::Header, LineError>>,
    cursor: EventCursor,
    failure: Option<String>,
}

impl Scanner for HydraScanner {
    fn line(&mut self, raw: &[u8]) {
        if self.is_done() {
            return;
        }
        match &self.header {
            None => {
                let parsed = line::parse_header_with_capacity(raw);
                if let Ok((_, capacity)) = &parsed {
                    self.cursor = EventCursor::after_header_with(*capacity);
                }
                self.header = Some(parsed.map(|(header, _)| header));
            }
            Some(_) => {
                if let Err((n, e)) = self.cursor.accept(raw) {
                    self.failure = Some(format!("line {n}: {e}"));
                }
            }
        }
    }

    fn header(&self) -> HeaderState {
        match &self.header {
            None => HeaderState::Pending,
            Some(Ok(h)) => HeaderState::Session(h.clone()),
            Some(Err(e)) => {
                HeaderState::NotASession(format!("line 1 is not a session header ({e})"))
            }
        }
    }

    fn header_ref(&self) -> Option<&SessionHeader> {
        match &self.header {
            Some(Ok(h)) => Some(h),
            _ => None,
        }
    }

    fn meta(&self) -> ScanMeta {
        ScanMeta {
            title: self
                .failure
                .is_none()
                .then(|| self.cursor.title.clone())
                .flatten(),
            capacity: self
                .failure
                .is_none()
                .then_some(self.cursor.capacity)
                .flatten(),
            skipped_lines: 0,
            failure: self.failure.clone(),
        }
    }

    fn is_done(&self) -> bool {
        self.failure.is_some() || matches!(self.header, Some(Err(_)))
    }

    fn clone_box(&self) -> Box<dyn Scanner> {
        Box::new(self.clone())
    }
}
