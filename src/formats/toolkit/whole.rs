//! The scan and the full read of a whole-JSON document (Cline's
//! `ui_messages.json`, Continue's sessions): the agent rewrites it whole,
//! often compact on one line with no line end, so it is not read by lines
//! as [`super::track`] reads a line log. Its [`Track`] is fed the
//! document's bytes in chunks instead ([`Track::line`] takes each chunk),
//! then [`Track::end`]; its memory is what the tracker keeps.

use std::io::{self, Read};

use super::driver;
use super::track::{Track, TrackScanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary};

/// Bytes handed to the tracker at a time.
const CHUNK: usize = 64 * 1024;

/// Feeds `reader` to `tracker` to its end (or until the tracker is done),
/// then ends it; the bytes read.
pub fn feed<T: Track>(
    tracker: &mut T,
    reader: &mut dyn Read,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<u64, FeedError> {
    let mut buf = vec![0u8; CHUNK];
    let mut read = 0u64;
    loop {
        if cancelled() {
            return Err(FeedError::Cancelled);
        }
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FeedError::Io(e)),
        };
        read += n as u64;
        tracker.line(&buf[..n], sink);
        if tracker.is_done() {
            return Ok(read);
        }
    }
    tracker.end(sink);
    Ok(read)
}

/// Why [`feed`] stopped early.
#[derive(Debug)]
pub enum FeedError {
    Io(io::Error),
    Cancelled,
}

/// The store's scan of a document: the scanner is handed the whole file.
pub fn scan<T: Track>(scanner: &mut TrackScanner<T>, reader: &mut dyn Read) -> io::Result<()> {
    match feed(&mut scanner.0, reader, &|| false, &mut |_| {}) {
        Ok(_) => Ok(()),
        Err(FeedError::Io(e)) => Err(e),
        Err(FeedError::Cancelled) => Ok(()),
    }
}

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
    let bytes = match feed(&mut tracker, &mut reader.take(size), cancelled, sink) {
        Ok(bytes) => bytes,
        Err(FeedError::Cancelled) => return Err(ReadError::Cancelled),
        Err(FeedError::Io(e)) => return Err(driver::log_error(log, None, e.to_string())),
    };
    if let Some(n) = tracker.failure() {
        return Err(driver::log_error(log, Some(n), "invalid UTF-8"));
    }
    if let Some(why) = tracker.not_session() {
        return Err(driver::log_error(log, None, why));
    }
    let Some(header) = tracker.header().cloned() else {
        let why = if tracker.lines() == 0 {
            T::NO_LINE
        } else {
            "not a session: no user or assistant message"
        };
        return Err(driver::log_error(log, None, why));
    };
    Ok(ReadSummary {
        header,
        captured_through_seq: Some(tracker.lines()),
        title: tracker.title(),
        capacity: tracker.capacity(),
        skipped_lines: tracker.skipped(),
        bytes,
    })
}
