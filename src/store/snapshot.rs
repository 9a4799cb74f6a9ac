//! Reading one session's projected surface for `prepare`, hover and
//! diagnostics.

use super::catalog::Session;
use super::line::Header;
use super::log::{self, ReadError};
use crate::reference::projection::{Projection, Projector};
use crate::reference::retention::{fixed_size, SourceMeta};

/// A session as one read found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub header: Header,
    pub captured_through_seq: Option<u64>,
    pub title: Option<String>,
    pub projection: Projection,
}

/// Reads `session`'s log now and projects its surface. `label` and
/// `budget` let the projector forget, early, text that retention could
/// never keep (`budget: None` keeps everything).
pub fn read_snapshot(
    session: &Session,
    label: &str,
    budget: Option<usize>,
    cancelled: &dyn Fn() -> bool,
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
    let read = log::read_log(&session.path, &session.rel, cancelled, &mut |event| {
        projector.push(&event)
    })?;
    if read.header.id != header.id {
        // The file was replaced by another session since it was indexed.
        return Err(ReadError::Log(log::LogError {
            file: session.rel.clone(),
            line: Some(1),
            reason: format!("now holds session {:?}", read.header.id),
        }));
    }
    Ok(Snapshot {
        captured_through_seq: read.cursor.last_seq,
        title: read.cursor.title,
        header: read.header,
        projection: projector.finish(),
    })
}
