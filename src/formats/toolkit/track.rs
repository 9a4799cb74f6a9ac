//! The common part of every line format: a format keeps its own rules in
//! one [`Track`] (the state of one log as its complete lines come), and
//! this module turns it into both faces a format has — the store's
//! incremental [`Scanner`] ([`TrackScanner`]) and the full read
//! ([`read_tracked`]) — so that neither is written again per format.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use super::driver;
use crate::formats::lines::Flow;
use crate::formats::{HeaderState, LogSource, ScanMeta, Scanner};
use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};

/// What every tracker counts alike: a tracker that keeps one lends it
/// ([`Track::tally`]) instead of answering each count itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Complete lines taken so far.
    pub lines: u64,
    /// Lines skipped as not understood.
    pub skipped: u64,
    /// The line that is not valid UTF-8, if one was read.
    pub failure: Option<u64>,
    /// Why the log is no session, once that is decided.
    pub not_session: Option<String>,
}

impl Tally {
    /// Nothing counted: what a tracker without a tally lends.
    pub const NONE: Tally = Tally {
        lines: 0,
        skipped: 0,
        failure: None,
        not_session: None,
    };
}

/// The state of one log as its complete lines are read, shared by the
/// store's scan (which only judges) and the full read (which also hands
/// each surface event on).
pub trait Track: Clone + Send + Sync + fmt::Debug + 'static {
    /// What a read says of a log with no complete line
    /// (`"not a Cursor transcript: no complete line"`).
    const NO_LINE: &'static str;

    /// A tracker for the store's scan: events are judged, not built.
    fn for_scan() -> Self;

    /// A tracker for a full read: every surface event is built and handed on.
    fn for_read() -> Self;

    /// The log file's modification time (Unix epoch milliseconds), given
    /// before the first line.
    fn file_modified(&mut self, millis: u64) {
        let _ = millis;
    }

    /// Where the log file is, given before the first line.
    fn file_path(&mut self, path: &Path) {
        let _ = path;
    }

    /// The log's name, for a log that is no file (a test's, a fuzz
    /// target's), given before the first line instead of its path.
    fn file_name(&mut self, name: &str) {
        let _ = name;
    }

    /// Takes the next complete line (without its line end), handing the
    /// surface events it completes to `sink` (a scan's sink drops them).
    /// A document's tracker ([`super::whole`]) takes the next chunk of its
    /// bytes instead.
    fn line(&mut self, raw: &[u8], sink: &mut dyn FnMut(Entry<'_>));

    /// The log has ended (a full read): hands on what was still held (a
    /// model's run of lines joined into one message).
    fn end(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        let _ = sink;
    }

    /// The counts the tracker keeps, which the next four answer from.
    /// A tracker implements this, or each of them.
    fn tally(&self) -> &Tally {
        &Tally::NONE
    }

    /// Complete lines taken so far (a read's `capturedThroughSeq`).
    fn lines(&self) -> u64 {
        self.tally().lines
    }

    /// Lines skipped as not understood.
    fn skipped(&self) -> u64 {
        self.tally().skipped
    }

    /// The line that is not valid UTF-8, if one was read.
    fn failure(&self) -> Option<u64> {
        self.tally().failure
    }

    /// Why the log is no session, once that is decided.
    fn not_session(&self) -> Option<&str> {
        self.tally().not_session.as_deref()
    }

    /// The header, once the log is known to be a session.
    fn header(&self) -> Option<&SessionHeader>;

    fn title(&self) -> Option<String>;

    fn capacity(&self) -> Option<u64> {
        None
    }

    /// Whether appended lines continue what was read (see
    /// [`Scanner::resumable`]).
    fn resumable(&self) -> bool {
        true
    }

    /// See [`Scanner::parent`].
    fn parent(&self) -> Option<(String, String)> {
        None
    }

    /// See [`Scanner::child_title`].
    fn child_title(&self, key: &str) -> Option<String> {
        let _ = key;
        None
    }

    /// See [`Scanner::names_children`].
    fn names_children(&self) -> bool {
        false
    }

    /// Whether later lines can change nothing.
    fn is_done(&self) -> bool {
        self.failure().is_some() || self.not_session().is_some()
    }

    /// Why the log cannot be read, if it cannot (a scan's words).
    fn why_not(&self) -> Option<String> {
        if let Some(n) = self.failure() {
            return Some(format!("line {n}: invalid UTF-8"));
        }
        self.not_session().map(str::to_string)
    }

    /// Why a full read fails, once a line decided it cannot succeed: the
    /// line at fault, when one is, and the reason (a read's words, which
    /// may name the format where a scan's do not).
    fn read_fault(&self) -> Option<(Option<u64>, String)> {
        if let Some(n) = self.failure() {
            return Some((Some(n), "invalid UTF-8".into()));
        }
        self.not_session().map(|why| (None, why.to_string()))
    }

    /// Why a read that ended without a fault found no session.
    fn no_header(&self) -> (Option<u64>, String) {
        let why = if self.lines() == 0 {
            Self::NO_LINE
        } else {
            "not a session: no user or assistant message"
        };
        (None, why.into())
    }

    /// The read's `capturedThroughSeq`: its complete lines, unless the
    /// format numbers its events otherwise (a document's entries, a
    /// strict log's own `seq`).
    fn captured_through_seq(&self) -> Option<u64> {
        Some(self.lines())
    }
}

/// The store's [`Scanner`] of any [`Track`].
#[derive(Debug, Clone)]
pub struct TrackScanner<T: Track>(pub T);

impl<T: Track> Default for TrackScanner<T> {
    fn default() -> Self {
        TrackScanner(T::for_scan())
    }
}

impl<T: Track> TrackScanner<T> {
    /// A boxed scanner, what [`crate::formats::LogFormat::scanner`] returns.
    pub fn boxed() -> Box<dyn Scanner> {
        Box::new(TrackScanner(T::for_scan()))
    }
}

impl<T: Track> Scanner for TrackScanner<T> {
    fn file_modified(&mut self, millis: u64) {
        self.0.file_modified(millis);
    }

    fn file_path(&mut self, path: &Path) {
        self.0.file_path(path);
    }

    fn resumable(&self) -> bool {
        self.0.resumable()
    }

    fn line(&mut self, line: &[u8]) {
        self.0.line(line, &mut |_| {});
    }

    fn document(&mut self, bytes: &mut dyn Read) -> io::Result<()> {
        match feed_document(&mut self.0, bytes, &|| false, &mut |_| {}) {
            Ok(_) | Err(FeedError::Cancelled) => Ok(()),
            Err(FeedError::Io(e)) => Err(e),
        }
    }

    fn header(&self) -> HeaderState {
        if let Some(header) = self.0.header() {
            return HeaderState::Session(header.clone());
        }
        match self.0.why_not() {
            Some(why) => HeaderState::NotASession(why),
            None => HeaderState::Pending,
        }
    }

    fn header_ref(&self) -> Option<&SessionHeader> {
        self.0.header()
    }

    fn meta(&self) -> ScanMeta {
        // A log with a bad line is listed (its read says why it fails),
        // but what it holds is unknown.
        let failure = self.0.why_not().filter(|_| self.0.failure().is_some());
        let readable = failure.is_none();
        ScanMeta {
            title: self.0.title().filter(|_| readable),
            capacity: self.0.capacity().filter(|_| readable),
            skipped_lines: self.0.skipped(),
            failure,
        }
    }

    fn is_done(&self) -> bool {
        self.0.is_done()
    }

    fn parent(&self) -> Option<(String, String)> {
        self.0.parent()
    }

    fn child_title(&self, key: &str) -> Option<String> {
        self.0.child_title(key)
    }

    fn names_children(&self) -> bool {
        self.0.names_children()
    }

    fn clone_box(&self) -> Box<dyn Scanner> {
        Box::new(self.clone())
    }
}

/// Reads a whole log with a [`Track`], handing its surface events to
/// `sink` in order, in the memory the tracker keeps (never the log's).
pub fn read_tracked<T: Track>(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    read_with(log, T::for_read(), None, cancelled, sink)
}

/// [`read_tracked`] with a tracker the format made (one a first pass
/// decided something of) and the size to stop at (what that pass saw).
pub fn read_with<T: Track>(
    log: &dyn LogSource,
    mut tracker: T,
    limit: Option<u64>,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let bytes = walk_tracked(log, &mut tracker, limit, cancelled, &mut |t, raw| {
        t.line(raw, sink)
    })?
    .bytes;
    let summary = summary(&tracker, verdict(log, &tracker)?, bytes);
    // Last: a replayed format hands on its final state here, and may
    // give it up doing so.
    tracker.end(sink);
    Ok(summary)
}

/// The read preamble every format shares: gives `tracker` the log's
/// facts (its time, its place or name), then hands it each complete line
/// through `take` until it is done.
pub fn walk_tracked<T: Track>(
    log: &dyn LogSource,
    tracker: &mut T,
    limit: Option<u64>,
    cancelled: Cancelled<'_>,
    take: &mut dyn FnMut(&mut T, &[u8]),
) -> Result<driver::Walked, ReadError> {
    if let Some(millis) = log.modified_ms() {
        tracker.file_modified(millis);
    }
    match log.path() {
        Some(path) => tracker.file_path(path),
        None => tracker.file_name(log.name()),
    }
    driver::walk(log, limit, cancelled, &mut |raw| {
        take(tracker, raw);
        Ok(if tracker.is_done() {
            Flow::Stop
        } else {
            Flow::Continue
        })
    })
}

/// Pass 1 of a read that must see every line before its surface (the
/// formats whose live branch or chain ends at the last line): `T`'s read
/// tracker over the whole log, how many bytes that was (later passes read
/// no further), and its verdict.
pub fn whole_pass<T: Track>(
    log: &dyn LogSource,
    cancelled: Cancelled<'_>,
) -> Result<(T, u64, SessionHeader), ReadError> {
    let mut tracker = T::for_read();
    let bytes = walk_tracked(log, &mut tracker, None, cancelled, &mut |t, raw| {
        t.line(raw, &mut |_| {})
    })?
    .bytes;
    let header = verdict(log, &tracker)?;
    Ok((tracker, bytes, header))
}

/// What a read of `bytes` found besides its events, as `tracker` counted
/// it, with the `header` of its [`verdict`].
pub fn summary<T: Track>(tracker: &T, header: SessionHeader, bytes: u64) -> ReadSummary {
    ReadSummary {
        header,
        captured_through_seq: tracker.captured_through_seq(),
        title: tracker.title(),
        capacity: tracker.capacity(),
        skipped_lines: tracker.skipped(),
        bytes,
    }
}

/// What a walked tracker says of its log: the session's header, or the
/// error the read reports.
pub fn verdict<T: Track>(log: &dyn LogSource, tracker: &T) -> Result<SessionHeader, ReadError> {
    if let Some((line, why)) = tracker.read_fault() {
        return Err(driver::log_error(log, line, why));
    }
    match tracker.header() {
        Some(header) => Ok(header.clone()),
        None => {
            let (line, why) = tracker.no_header();
            Err(driver::log_error(log, line, why))
        }
    }
}

/// The [`crate::formats::LogFormat::scanner`] and
/// [`crate::formats::LogFormat::read`] of a line format whose tracker does
/// both: `tracked_by!(Tracker);` in its `impl LogFormat`, or
/// `tracked_by!(scan: A, read: B);` when the scan keeps less than the read,
/// or `tracked_by!(scan: A, read_with: reader::read_log);` when the read
/// is the format's own (one that needs the whole file's tree). A whole
/// document's format says `document_by!(Tracker);` instead
/// ([`super::whole`]).
macro_rules! tracked_by {
    ($tracker:ty) => {
        $crate::formats::toolkit::track::tracked_by!(scan: $tracker, read: $tracker);
    };
    (scan: $scan:ty, read_with: $read:path) => {
        fn scanner(&self) -> Box<dyn $crate::formats::Scanner> {
            $crate::formats::toolkit::track::TrackScanner::<$scan>::boxed()
        }

        fn read(
            &self,
            log: &dyn $crate::formats::LogSource,
            cancelled: $crate::model::Cancelled<'_>,
            sink: &mut dyn FnMut($crate::model::Entry<'_>),
        ) -> Result<$crate::model::ReadSummary, $crate::model::ReadError> {
            $read(log, cancelled, sink)
        }
    };
    (scan: $scan:ty, read: $read:ty) => {
        $crate::formats::toolkit::track::tracked_by!(
            scan: $scan,
            read_with: $crate::formats::toolkit::track::read_tracked::<$read>
        );
    };
}
pub(crate) use tracked_by;

/// The parts of an `impl Track` most trackers write alike, named in one
/// `tracker_parts!(…);` inside it:
/// - `for_scan`: `for_scan` is the `Default` tracker;
/// - `scan_or_project`: `for_scan`, and `for_read` the same with its
///   field `project` set (events built, not only judged);
/// - `file_modified`: the log's time kept in the field `file_modified`;
/// - `tally`: the counts are the field `tally`;
/// - `tally_and_header`: `tally`, and the header the field `header`,
///   unless the log is known to be no session.
macro_rules! tracker_parts {
    ($($part:ident),+ $(,)?) => {
        $($crate::formats::toolkit::track::tracker_parts!(@ $part);)+
    };
    (@ for_scan) => {
        fn for_scan() -> Self {
            Self::default()
        }
    };
    (@ scan_or_project) => {
        $crate::formats::toolkit::track::tracker_parts!(@ for_scan);

        fn for_read() -> Self {
            Self {
                project: true,
                ..Self::default()
            }
        }
    };
    (@ file_modified) => {
        fn file_modified(&mut self, millis: u64) {
            self.file_modified = Some(millis);
        }
    };
    (@ tally) => {
        fn tally(&self) -> &$crate::formats::toolkit::track::Tally {
            &self.tally
        }
    };
    (@ tally_and_header) => {
        $crate::formats::toolkit::track::tracker_parts!(@ tally);

        fn header(&self) -> Option<&$crate::model::SessionHeader> {
            self.header
                .as_ref()
                .filter(|_| self.tally.not_session.is_none())
        }
    };
}
pub(crate) use tracker_parts;

/// Bytes handed to the tracker at a time.
const CHUNK: usize = 64 * 1024;

/// Feeds a whole document's bytes from `reader` to `tracker` (see
/// [`super::whole`]) to its end (or until the tracker is done),
/// then ends it; the bytes read.
pub fn feed_document<T: Track>(
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

/// Why [`feed_document`] stopped early.
#[derive(Debug)]
pub enum FeedError {
    Io(io::Error),
    Cancelled,
}
