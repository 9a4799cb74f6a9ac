//! Reading one log as it is at one moment (session-log.md "Lines").
//!
//! The file is read in chunks up to the size it had when opened; only
//! complete lines (ended by `\n`) are parsed, so an append in progress is
//! ignored. Memory holds one chunk plus the longest line, never the file.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::line::{self, Event, EventBody, Header, LineError};

const CHUNK: usize = 256 * 1024;
/// A header line longer than this is not a session header we will read.
const MAX_HEADER_LINE: usize = 1 << 20;

/// A log that could not be read: names the file (relative to the store)
/// and, for a bad line, its number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogError {
    pub file: String,
    pub line: Option<u64>,
    pub reason: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

impl std::error::Error for LogError {}

/// Why a file is not a session (reported, never fatal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotASession {
    Empty,
    Unterminated,
    Invalid(LineError),
    Io(String),
}

impl fmt::Display for NotASession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotASession::Empty => f.write_str("empty file"),
            NotASession::Unterminated => f.write_str("line 1 is not ended by a newline"),
            NotASession::Invalid(e) => write!(f, "line 1 is not a session header ({e})"),
            NotASession::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

/// Reads only line 1 and parses it as a header. Returns the header and the
/// byte length of line 1 including its `\n`.
pub fn read_header(path: &Path) -> Result<(Header, u64), NotASession> {
    let file = File::open(path).map_err(|e| NotASession::Io(e.to_string()))?;
    let mut reader = file.take(MAX_HEADER_LINE as u64);
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = read_some(&mut reader, &mut chunk).map_err(|e| NotASession::Io(e.to_string()))?;
        if n == 0 {
            return Err(if buf.is_empty() {
                NotASession::Empty
            } else {
                NotASession::Unterminated
            });
        }
        let before = buf.len();
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = memchr::memchr(b'\n', &buf[before..]) {
            let end = before + i;
            let header = line::parse_header(strip_cr(&buf[..end])).map_err(NotASession::Invalid)?;
            return Ok((header, end as u64 + 1));
        }
    }
}

/// Validation state carried from line to line; resumable, so an index can
/// parse only what was appended since its last read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventCursor {
    /// Lines consumed so far (line 1 is the header).
    pub line: u64,
    /// The seq of the last event line: the log's `capturedThroughSeq`.
    pub last_seq: Option<u64>,
    /// The latest non-empty `session/title`.
    pub title: Option<String>,
}

impl Default for EventCursor {
    fn default() -> Self {
        Self::after_header()
    }
}

impl EventCursor {
    pub fn after_header() -> Self {
        Self {
            line: 1,
            last_seq: None,
            title: None,
        }
    }

    /// Accepts one complete line (without its `\n`).
    pub fn accept<'l>(&mut self, raw: &'l [u8]) -> Result<Option<Event<'l>>, (u64, LineError)> {
        self.line += 1;
        let raw = strip_cr(raw);
        if raw.is_empty() {
            return Ok(None);
        }
        let event = line::parse_event(raw).map_err(|e| (self.line, e))?;
        if self.last_seq.is_some_and(|last| event.seq <= last) {
            return Err((self.line, LineError::SeqNotIncreasing));
        }
        self.last_seq = Some(event.seq);
        if let EventBody::Title(title) = &event.body {
            if !title.is_empty() {
                self.title = Some(title.to_string());
            }
        }
        Ok(Some(event))
    }
}

/// What a full read of one log found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRead {
    pub header: Header,
    pub cursor: EventCursor,
    /// Bytes consumed: up to and including the last `\n` read.
    pub consumed: u64,
}

/// Reads a whole log as it is now, handing each event to `on_event`.
/// `cancelled` is polled between chunks.
pub fn read_log(
    path: &Path,
    display: &str,
    cancelled: &dyn Fn() -> bool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<LogRead, ReadError> {
    let fail = |line: Option<u64>, reason: String| {
        ReadError::Log(LogError {
            file: display.to_string(),
            line,
            reason,
        })
    };
    let mut file = File::open(path).map_err(|e| fail(None, e.to_string()))?;
    let size = file
        .metadata()
        .map_err(|e| fail(None, e.to_string()))?
        .len();
    let mut reader = (&mut file).take(size);
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK.min(size as usize + 1));
    let mut header: Option<Header> = None;
    let mut cursor = EventCursor::after_header();
    let mut consumed = 0u64;
    let mut eof = false;
    while !eof {
        if cancelled() {
            return Err(ReadError::Cancelled);
        }
        let start = buf.len();
        buf.resize(start + CHUNK, 0);
        let n = read_some(&mut reader, &mut buf[start..]).map_err(|e| fail(None, e.to_string()))?;
        buf.truncate(start + n);
        eof = n == 0;
        // Search for line ends only in the new bytes.
        let Some(last_nl) = memchr::memrchr(b'\n', &buf[start..]).map(|i| start + i) else {
            continue;
        };
        let mut line_start = 0;
        for nl in memchr::memchr_iter(b'\n', &buf[..=last_nl]) {
            let raw = &buf[line_start..nl];
            line_start = nl + 1;
            match &header {
                None => {
                    let h = line::parse_header(strip_cr(raw))
                        .map_err(|e| fail(Some(1), format!("not a session header ({e})")))?;
                    header = Some(h);
                }
                Some(_) => match cursor.accept(raw) {
                    Ok(Some(event)) => on_event(event),
                    Ok(None) => {}
                    Err((line, e)) => return Err(fail(Some(line), e.to_string())),
                },
            }
        }
        consumed += line_start as u64;
        buf.drain(..line_start);
    }
    let header = header.ok_or_else(|| fail(Some(1), "no complete session header".into()))?;
    Ok(LogRead {
        header,
        cursor,
        consumed,
    })
}

/// Parses the complete lines of `bytes` (appended after `cursor`), for an
/// index that reads only what a log gained. Returns the bytes consumed.
pub fn resume(cursor: &mut EventCursor, bytes: &[u8]) -> Result<u64, (u64, LineError)> {
    let mut line_start = 0;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        cursor.accept(&bytes[line_start..nl])?;
        line_start = nl + 1;
    }
    Ok(line_start as u64)
}

/// A failed read: a bad log, or the caller gave up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    Log(LogError),
    Cancelled,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Log(e) => e.fmt(f),
            ReadError::Cancelled => f.write_str("cancelled"),
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn read_some(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}
