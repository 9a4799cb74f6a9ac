//! Letting go of the scanners of a first scan's old logs as they are read
//! (every 1,024 logs of each [`super::scan`] worker), while the scan goes
//! on, rather than once it has ended: at 100,000 logs their scanners were
//! the largest part of a long-lived face's peak (issue 29 item 6), held
//! until the index cache was written.

use std::sync::Arc;
use std::time::SystemTime;

use super::file_state::{FileState, Found};
use super::record::{Payload, PayloadBuffer};
use super::stamp::Stamp;

/// How long after its last write a log keeps its scanner in a long-lived
/// face (here, and once the first index is recorded, in the catalog's
/// `release_scanners`): a session written to within the hour is likely to
/// grow again soon.
pub(crate) const KEEP_SCANNER_FOR: std::time::Duration = std::time::Duration::from_secs(3600);

/// The most logs that keep their scanner for having been written within
/// [`KEEP_SCANNER_FOR`] (the latest written first), once the first index
/// is recorded: a store copied or restored within the hour has all its
/// logs written just now, and kept every scanner (100,000 logs: about 30
/// MiB more, docs/performance.md, stop 44). Sessions being written to at
/// once are far fewer; another that grows is read again from its start,
/// once.
pub(crate) const MOST_HOT: usize = 256;

/// The same bound for each part a scan worker lets go of as it reads
/// ([`let_go_of_read`]: every 1,024 logs), so the parts of a first scan
/// keep a few thousand at most. (2 in unit tests, whose parts are of 4.)
const MOST_HOT_OF_A_PART: usize = if cfg!(test) { 2 } else { 16 };

/// Which of `stamps` are hot (their scanners kept): written within
/// [`KEEP_SCANNER_FOR`] of `now`, and among the `most` written last.
pub(crate) fn hot<'a>(
    stamps: impl Iterator<Item = &'a Stamp>,
    now: SystemTime,
    most: usize,
) -> Vec<bool> {
    let mut marks = Vec::new();
    let mut recent = Vec::new();
    for (i, stamp) in stamps.enumerate() {
        let is_recent = stamp.modified_within(KEEP_SCANNER_FOR, now);
        if is_recent {
            recent.push((stamp.mtime, stamp.mtime_nsec, i));
        }
        marks.push(is_recent);
    }
    if recent.len() > most {
        // The latest `most` first, the rest let go.
        recent.select_nth_unstable_by(most, |a, b| b.cmp(a));
        for &(_, _, i) in &recent[most..] {
            marks[i] = false;
        }
    }
    marks
}

/// Keeps what the scanners of `scanned` found, as an index cache records
/// it, in place of each scanner that will not be asked again: of a log
/// not written to within [`KEEP_SCANNER_FOR`] of `now`, or not among the
/// part's [`MOST_HOT_OF_A_PART`] written last (an append is not
/// expected; one that comes reads the log again from its start, once, as
/// after a warm start), that titles no sub-agent (a child scanned later
/// asks its parent's scanner for its label), and that is no sub-agent
/// itself (its label comes from a parent that may not be scanned yet).
/// The index cache's own release, when it is written, takes care of those
/// kept here (the catalog's `release_scanners`).
pub(super) fn let_go_of_read(scanned: &mut [(Arc<[u8]>, FileState)], now: SystemTime) {
    let hot = hot(
        scanned.iter().map(|(_, state)| &state.stamp),
        now,
        MOST_HOT_OF_A_PART,
    );
    let mut buffer = PayloadBuffer::default();
    let mut released = Vec::new();
    for (i, (_, state)) in scanned.iter().enumerate() {
        let Found::Scanner(scanner) = &state.found else {
            continue;
        };
        if hot[i] || scanner.names_children() || scanner.parent().is_some() {
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    fn written(secs: i64, nsec: u32) -> Stamp {
        Stamp {
            mtime: secs,
            mtime_nsec: nsec,
            ..Stamp::default()
        }
    }

    /// Of the logs written within the hour only the latest `most` are hot;
    /// older logs never are, however few.
    #[test]
    fn only_the_latest_written_within_the_hour_are_hot() {
        let now = UNIX_EPOCH + Duration::from_secs(100_000);
        let stamps = [
            written(100_000 - 10, 0),
            written(100_000 - 7200, 0),
            written(100_000 - 5, 1),
            written(100_000 - 5, 0),
            written(100_000 - 3000, 0),
        ];
        assert_eq!(
            hot(stamps.iter(), now, 2),
            [false, false, true, true, false]
        );
        assert_eq!(hot(stamps.iter(), now, 10), [true, false, true, true, true]);
        assert_eq!(hot(stamps.iter(), now, 0), [false; 5]);
        assert!(hot([].iter(), now, 2).is_empty());
    }
}
