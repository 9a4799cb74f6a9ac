//! Which log holds each session id: the first by relative path wins, the
//! others are duplicates.

use std::borrow::Cow;

use rustc_hash::FxHashSet;

use super::by_name::ByName;
use super::file_state::FileState;

/// Marks the first file of each id (by name) as its winner; returns the
/// number of distinct ids.
pub(super) fn elect(files: &mut ByName<FileState>) -> usize {
    // Ids a scanner lends are borrowed; a cached or copied id is owned
    // (`seen`). A quick hash is enough: a collision costs a comparison.
    let mut seen: FxHashSet<String> = FxHashSet::default();
    let mut borrowed: FxHashSet<&str> =
        FxHashSet::with_capacity_and_hasher(files.len(), Default::default());
    let mut winners = Vec::with_capacity(files.len());
    for state in files.values() {
        let won = match state.session_id() {
            None => false,
            Some(Cow::Borrowed(id)) => !seen.contains(id) && borrowed.insert(id),
            Some(Cow::Owned(id)) => !borrowed.contains(id.as_str()) && seen.insert(id),
        };
        winners.push(won);
    }
    drop((seen, borrowed));
    let count = winners.iter().filter(|&&w| w).count();
    for (state, won) in files.values_mut().zip(winners) {
        state.winner = won;
    }
    count
}
