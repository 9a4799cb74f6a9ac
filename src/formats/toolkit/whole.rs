//! The scan and the full read of a whole-JSON document (Cline's
//! `ui_messages.json`, Continue's sessions): the agent rewrites it whole,
//! often compact on one line with no line end, so it is not read by lines
//! as [`super::track`] reads a line log. Its [`Track`] is fed the
//! document's bytes in chunks instead ([`feed_document`]: [`Track::line`]
//! takes each chunk, then [`Track::end`]), the store's scan through
//! [`crate::formats::Scanner::document`] and the full read here; its
//! memory is what the tracker keeps.

use std::io::Read;

use super::driver;
use super::track::{feed_document, summary, verdict, FeedError, Track};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};

/// Reads a whole document with a [`Track`], handing its surface events to
/// `sink` in order.
pub fn read<T: Track>(
    log: &dyn crate::formats::LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let mut tracker = T::for_read();
    if let Some(millis) = log.modified_ms() {
        tracker.file_modified(millis);
    }
    match log.path() {
        Some(path) => tracker.file_path(path),
        None => tracker.file_name(log.name()),
    }
    let (reader, size) = log
        .open(None)
        .map_err(|e| driver::log_error(log, None, e.to_string()))?;
    let bytes = match feed_document(&mut tracker, &mut reader.take(size), cancelled, sink) {
        Ok(bytes) => bytes,
        Err(FeedError::Cancelled) => return Err(ReadError::Cancelled),
        Err(FeedError::Io(e)) => return Err(driver::log_error(log, None, e.to_string())),
    };
    Ok(summary(&tracker, verdict(log, &tracker)?, bytes))
}

/// The [`crate::formats::LogFormat`] methods of a whole document's format,
/// which no first line tells (its name does), read by its bytes:
/// `document_by!(Tracker);` in its `impl LogFormat`.
macro_rules! document_by {
    ($tracker:ty) => {
        fn is_document(&self) -> bool {
            true
        }

        /// No first line tells a document: its name does
        /// ([`crate::formats::LogFormat::claims_name`]).
        fn recognizes(&self, _line: &[u8]) -> bool {
            false
        }

        $crate::formats::toolkit::track::tracked_by!(
            scan: $tracker,
            read_with: $crate::formats::toolkit::whole::read::<$tracker>
        );
    };
}
pub(crate) use document_by;
