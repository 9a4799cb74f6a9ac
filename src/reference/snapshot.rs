//! Reading one session's projected surface for `prepare`, hover and
//! diagnostics, through any [`SessionReader`].

use super::projection::{Projection, Projector};
use super::retention::{fixed_size, SourceMeta};
use crate::model::{Cancelled, ReadError, Session, SessionHeader, SessionReader};

/// A session as one read found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub header: SessionHeader,
    pub captured_through_seq: Option<u64>,
    pub title: Option<String>,
    pub capacity: Option<u64>,
    pub skipped_lines: u64,
    /// The bytes of the log this read covered: a second pass over them
    /// reads the same events (full snapshots, reference.md §5a).
    pub bytes: u64,
    pub projection: Projection,
}

/// Reads `session` now and projects its surface. `label` and `budget` let
/// the projector forget, early, text that retention could never keep
/// (`budget: None` keeps everything).
pub fn read_snapshot(
    reader: &dyn SessionReader,
    session: &Session,
    label: &str,
    budget: Option<usize>,
    cancelled: Cancelled<'_>,
) -> Result<Snapshot, ReadError> {
    let header = &session.header;
    let fixed_lower_bound = budget.map(|_| {
        // Without `capturedThroughSeq`: only a lower bound of the fixed part.
        fixed_size(&SourceMeta {
            session_id: &header.id,
            label,
            cwd: header.cwd.as_deref(),
            captured_through_seq: None,
        })
    });
    let mut projector = Projector::new(fixed_lower_bound, budget.unwrap_or(usize::MAX));
    let read = reader.read(session, cancelled, &mut |entry| projector.push(entry))?;
    Ok(Snapshot {
        header: read.header,
        captured_through_seq: read.captured_through_seq,
        title: read.title,
        capacity: read.capacity,
        skipped_lines: read.skipped_lines,
        bytes: read.bytes,
        projection: projector.finish(),
    })
}
