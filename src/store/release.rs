//! Letting go of the scanners of a first scan's old logs as they are read
//! (every 1,024 logs of each [`super::scan`] worker), while the scan goes
//! on, rather than once it has ended: at 100,000 logs their scanners were
//! the largest part of a long-lived face's peak (issue 29 item 6), held
//! until the index cache was written.

use std::sync::Arc;
use std::time::SystemTime;

use super::file_state::{FileState, Found};
use super::record::{Payload, PayloadBuffer};

/// How long after its last write a log keeps its scanner in a long-lived
/// face (here, and once the first index is recorded, in the catalog's
/// `release_scanners`): a session written to within the hour is likely to
/// grow again soon.
pub(crate) const KEEP_SCANNER_FOR: std::time::Duration = std::time::Duration::from_secs(3600);

/// Keeps what the scanners of `scanned` found, as an index cache records
/// it, in place of each scanner that will not be asked again: of a log
/// not written to within [`KEEP_SCANNER_FOR`] of `now` (an append is not
/// expected; one that comes reads the log again from its start, once, as
/// after a warm start), that titles no sub-agent (a child scanned later
/// asks its parent's scanner for its label), and that is no sub-agent
/// itself (its label comes from a parent that may not be scanned yet).
/// The index cache's own release, when it is written, takes care of those
/// kept here (the catalog's `release_scanners`).
pub(super) fn let_go_of_read(scanned: &mut [(Arc<[u8]>, FileState)], now: SystemTime) {
    let mut buffer = PayloadBuffer::default();
    let mut released = Vec::new();
    for (i, (_, state)) in scanned.iter().enumerate() {
        let Found::Scanner(scanner) = &state.found else {
            continue;
        };
        if state.stamp.modified_within(KEEP_SCANNER_FOR, now)
            || scanner.names_children()
            || scanner.parent().is_some()
        {
            continue;
        }
        if !buffer.push(&Payload::Values(state.header(), state.meta())) {
            break;
        }
        released.push(i);
    }
    for (i, cached) in released.into_iter().zip(buffer.finish()) {
        if let Some((_, state)) = scanned.get_mut(i) {
            state.found = Found::Cached(cached);
            state.first_line = (0, 0);
        }
    }
}
