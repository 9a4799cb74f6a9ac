//! Where `prepare`, hover and diagnostics read sessions from, and the
//! budget settled from the target's capacity (reference.md §4a).

use super::budget::{self, Budget, BudgetBasis, BudgetSetting, TargetCapacity, DEFAULT_BUDGET};
use super::error::ReferenceError;
use super::json;
use super::snapshot::{read_snapshot, Snapshot};
pub use crate::model::Cancelled;
use crate::model::{Entry, ReadError, ReadSummary, SessionStore, StoreNote};

/// Where `prepare` reads sessions from.
pub trait SnapshotSource: Sync {
    /// Reads the session `session_id` now. `budget` allows the reader to
    /// forget text retention can never keep.
    fn snapshot(
        &self,
        session_id: &str,
        label: &str,
        budget: Option<usize>,
        cancelled: Cancelled<'_>,
    ) -> Result<Snapshot, ReferenceError>;

    /// What the store knows of `session_id`'s model capacity (reference.md
    /// §4a); fails when its log cannot be read.
    fn capacity(
        &self,
        session_id: &str,
        cancelled: Cancelled<'_>,
    ) -> Result<TargetCapacity, ReferenceError>;

    /// Reads `session_id`'s events again over the first `bytes` bytes of its
    /// log (a [`Snapshot::bytes`]): a second pass over the same capture.
    fn reread(
        &self,
        session_id: &str,
        bytes: u64,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReferenceError>;
}

/// Any store is a source: each read goes to the log.
impl<S: SessionStore> SnapshotSource for S {
    fn snapshot(
        &self,
        session_id: &str,
        label: &str,
        budget: Option<usize>,
        cancelled: Cancelled<'_>,
    ) -> Result<Snapshot, ReferenceError> {
        let session = self
            .get(session_id)
            .ok_or_else(|| missing_session(self, session_id))?;
        read_snapshot(&*self.reader(), &session, label, budget, cancelled).map_err(read_error)
    }

    /// Reads the target's log: a store indexed without every line (the
    /// CLI's) does not know capacities.
    fn capacity(
        &self,
        session_id: &str,
        cancelled: Cancelled<'_>,
    ) -> Result<TargetCapacity, ReferenceError> {
        let Some(session) = self.get(session_id) else {
            return Ok(TargetCapacity::NotInStore);
        };
        let summary = self
            .reader()
            .read(&session, cancelled, &mut |_| {})
            .map_err(read_error)?;
        Ok(TargetCapacity::Known(summary.capacity))
    }

    fn reread(
        &self,
        session_id: &str,
        bytes: u64,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReferenceError> {
        let session = self
            .get(session_id)
            .ok_or_else(|| unknown_session(session_id))?;
        self.reader()
            .read_range(&session, Some(bytes), cancelled, sink)
            .map_err(read_error)
    }
}

/// The budget of a message for `target` (reference.md §4a). A target
/// whose log cannot be read fails (`READ_FAILED`): a lookup that fails is
/// not a missing capacity.
pub fn settle_budget(
    setting: BudgetSetting,
    max_references: usize,
    target: Option<&str>,
    source: &dyn SnapshotSource,
    cancelled: Cancelled<'_>,
) -> Result<Budget, ReferenceError> {
    let BudgetSetting::Fixed(bytes) = setting else {
        let Some(target) = target else {
            return Ok(Budget {
                bytes: DEFAULT_BUDGET,
                basis: BudgetBasis::NoTarget,
            });
        };
        return Ok(budget::from_capacity(
            source.capacity(target, cancelled)?,
            max_references,
        ));
    };
    Ok(Budget::fixed(bytes))
}

/// The error for an id `store` does not list: "not found", unless a
/// store of the list could not be read (a corrupt or locked database,
/// issue 27 item 12): then the session may be there, and the read failed.
pub fn missing_session(store: &dyn SessionStore, session_id: &str) -> ReferenceError {
    missing_among(&store.notes(), session_id)
}

/// [`missing_session`] for a store whose notes are `notes` (a live view
/// keeps them beside its sessions).
pub fn missing_among(notes: &[StoreNote], session_id: &str) -> ReferenceError {
    let unreadable = notes.iter().find(|n| {
        matches!(
            n,
            StoreNote::Unreadable { .. } | StoreNote::FolderUnreadable { .. }
        )
    });
    match unreadable {
        Some(note) => ReferenceError::read_failed(format!(
            "session {} cannot be read: {}",
            json::stringify(session_id),
            crate::reference::one_line::one_line(&note.to_string())
        )),
        None => unknown_session(session_id),
    }
}

/// The error for an id the store does not hold.
pub fn unknown_session(session_id: &str) -> ReferenceError {
    ReferenceError::read_failed(format!("session {} not found", json::stringify(session_id)))
}

/// The session-reference error for a failed read.
pub fn read_error(error: ReadError) -> ReferenceError {
    match error {
        ReadError::Cancelled => ReferenceError::cancelled(),
        ReadError::Log(e) => ReferenceError::read_failed(e),
    }
}
