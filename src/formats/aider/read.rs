//! The full read of one run: the file's lines are walked from the start
//! (the run is found by its id, counted as the index counts it), and the
//! run's lines, up to the next header, are projected into events.

use std::borrow::Cow;
use std::collections::HashMap;

use super::line::{classify, Line};
use super::project::{Piece, Projector};
use super::runs::Run;
use super::unverified;
use crate::formats::lines::Flow;
use crate::formats::text;
use crate::formats::toolkit::driver::{self, log_error};
use crate::formats::LogSource;
use crate::model::{Cancelled, Entry, Event, ReadError, ReadSummary, Role, SessionHeader};

/// Where the walk is.
enum At {
    /// Before the run asked for.
    Before,
    /// Inside it.
    In(Run),
    /// Past it: the walk stops.
    Past(Run),
}

/// Reads the run whose session id is `id` from the history `log` (named
/// `rel` relative to its store), handing its events to `sink` in order;
/// at most the first `limit` bytes are read. Fails when the file holds no
/// such run or a line is not UTF-8.
pub fn read_run(
    log: &dyn LogSource,
    rel: &str,
    id: &str,
    limit: Option<u64>,
    cancelled: Cancelled<'_>,
    sink: &mut dyn FnMut(Entry<'_>),
) -> Result<ReadSummary, ReadError> {
    let mut at = At::Before;
    let mut repeats: HashMap<String, u32> = HashMap::new();
    let mut projector = Projector::default();
    let mut title: Option<String> = None;
    let mut number = 0u64;
    let mut emit = |piece: Piece, title: &mut Option<String>| match piece {
        Piece::Message { seq, role, text } => {
            if title.is_none() && role == Role::User && !text.starts_with('/') {
                *title = text::cut_title(&text);
            }
            let event = Event::Message {
                role,
                text: Cow::Owned(text),
            };
            sink(Entry { seq, event });
        }
        Piece::Other { seq } => sink(Entry {
            seq,
            event: Event::Other,
        }),
    };
    let walked = driver::walk(log, limit, cancelled, &mut |raw| {
        number += 1;
        let line =
            simdutf8::basic::from_utf8(raw).map_err(|_| (number, "invalid UTF-8".to_string()))?;
        let line = classify(line);
        if let Line::Header(stamp) = line {
            let repeat = repeats.entry(stamp.to_string()).or_default();
            *repeat += 1;
            let run = Run {
                stamp: stamp.to_string(),
                repeat: *repeat,
                lines: 1,
                title: None,
                has_message: false,
            };
            match std::mem::replace(&mut at, At::Before) {
                At::In(done) => {
                    at = At::Past(done);
                    return Ok(Flow::Stop);
                }
                _ if run.id(rel) == id => at = At::In(run),
                _ => {}
            }
            return Ok(Flow::Continue);
        }
        if let At::In(run) = &mut at {
            run.lines += 1;
            projector.line(run.lines, line, &mut |p| emit(p, &mut title));
        }
        Ok(Flow::Continue)
    })?;
    let run = match at {
        At::In(run) | At::Past(run) => run,
        At::Before => {
            return Err(log_error(log, None, format!("holds no run {id:?}")));
        }
    };
    projector.finish(&mut |p| emit(p, &mut title));
    let cwd = log
        .path()
        .and_then(|p| p.parent())
        .and_then(unverified::cwd_of);
    Ok(ReadSummary {
        header: SessionHeader {
            version: 0,
            id: id.to_string(),
            created_at: run.created_at(log.modified_ms()),
            cwd,
            label: None,
        },
        captured_through_seq: Some(run.lines),
        title,
        capacity: None,
        skipped_lines: 0,
        bytes: walked.bytes,
    })
}
