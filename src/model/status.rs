//! What a store list holds and what is worth knowing about it: the one
//! answer of `sessionReference/status` and of the CLI's `status`
//! (docs/lsp-extensions.md). Both faces build it with [`Status::new`].

use super::store::{StoreNote, StoreStatus};

/// The status of a store list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The first store's path.
    pub store: String,
    /// Sessions over every store (distinct ids).
    pub sessions: usize,
    /// Whether the first index is still being built.
    pub indexing: bool,
    pub stores: Vec<StoreStatus>,
    /// Things worth knowing that are no error: files skipped as not
    /// sessions, duplicate ids, stores that do not exist. At most
    /// [`MAX_NOTES`], in the store's order.
    pub notes: Vec<StatusNote>,
    /// How many notes there were beyond [`MAX_NOTES`]: a store of 20,000
    /// files that are not sessions must not make a 20,000-line answer.
    pub notes_omitted: usize,
}

/// The search index, as `status` reports it (docs/lsp-extensions.md; its
/// wire type is `proto::ext::SearchStatus`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchStatus {
    /// `false` when the setting or the flag turned it off, or a full disk
    /// did (then `note` says why).
    pub enabled: bool,
    /// The index's folder.
    pub path: Option<String>,
    /// The bytes of its files.
    pub bytes: u64,
    /// Sessions it holds.
    pub sessions: usize,
    /// Sessions of the stores it does not hold as they are now (new,
    /// changed, or removed from the store): how far behind it is.
    pub behind: usize,
    /// Why search is off or the index could not be read, when it is.
    pub note: Option<String>,
}

impl SearchStatus {
    /// Search that is off, and why.
    pub fn off(note: impl Into<String>) -> Self {
        SearchStatus {
            enabled: false,
            path: None,
            bytes: 0,
            sessions: 0,
            behind: 0,
            note: Some(note.into()),
        }
    }
}

/// Notes listed by a status at most.
pub const MAX_NOTES: usize = 100;

/// One note of [`Status::notes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusNote {
    pub kind: NoteKind,
    /// The note in words, naming the store or the file.
    pub message: String,
}

/// What a [`StatusNote`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A store directory that does not exist (it is empty).
    MissingStore,
    /// A store directory that cannot be read.
    UnreadableStore,
    /// A folder below a store's root that cannot be read.
    UnreadableFolder,
    /// A file skipped as not a session (Claude Code's compaction worker's
    /// transcripts, a log of no known format).
    NotASession,
    /// A store whose every file was skipped: it lists no session.
    AllSkipped,
    /// A session id held by two logs: the note names the one that wins.
    DuplicateId,
}

impl From<&StoreNote> for StatusNote {
    fn from(note: &StoreNote) -> Self {
        let kind = match note {
            StoreNote::Missing { .. } => NoteKind::MissingStore,
            StoreNote::Unreadable { .. } => NoteKind::UnreadableStore,
            StoreNote::FolderUnreadable { .. } => NoteKind::UnreadableFolder,
            StoreNote::NotASession { .. } => NoteKind::NotASession,
            StoreNote::AllSkipped { .. } => NoteKind::AllSkipped,
            StoreNote::Duplicate { .. } => NoteKind::DuplicateId,
        };
        StatusNote {
            kind,
            message: note.to_string(),
        }
    }
}

impl Status {
    /// The status of the stores `stores` (in list order), holding
    /// `sessions` sessions, with the store's `notes`.
    pub fn new(
        stores: Vec<StoreStatus>,
        sessions: usize,
        indexing: bool,
        notes: &[StoreNote],
    ) -> Self {
        Status {
            store: stores.first().map(|s| s.path.clone()).unwrap_or_default(),
            sessions,
            indexing,
            stores,
            notes: notes.iter().take(MAX_NOTES).map(StatusNote::from).collect(),
            notes_omitted: notes.len().saturating_sub(MAX_NOTES),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_store_names_the_list_and_notes_are_typed() {
        let store = |path: &str| StoreStatus {
            path: path.into(),
            format: "auto".into(),
            sessions: 1,
            skipped_lines: 0,
            errors: Vec::new(),
        };
        let status = Status::new(
            vec![store("/a"), store("/b")],
            2,
            false,
            &[
                StoreNote::Missing { store: "/c".into() },
                StoreNote::NotASession {
                    rel: "x/agent-acompact-1.jsonl".into(),
                    why: "no message".into(),
                },
            ],
        );
        assert_eq!(status.store, "/a");
        assert_eq!(status.sessions, 2);
        assert_eq!(status.stores[1].path, "/b");
        assert_eq!(status.notes[0].kind, NoteKind::MissingStore);
        assert_eq!(
            status.notes[0].message,
            "the session store /c does not exist; it is empty"
        );
        assert_eq!(status.notes[1].kind, NoteKind::NotASession);
        assert_eq!(Status::new(Vec::new(), 0, true, &[]).store, "");
    }
}
