//! What a catalog reports about its store besides its sessions: a missing
//! or unreadable root, unreadable folders, files that are no session, and
//! duplicate ids with the log that won them.

use std::collections::HashMap;

use super::catalog::Catalog;
use super::file_state::pending_reason;
use crate::formats::HeaderState;
use crate::model::StoreNote;

/// The notes a store's root gives before any of its files' (every kind
/// of store has a root that may be missing or unreadable): `store` names
/// it as the notes do.
pub(in crate::store) fn root_notes(
    store: &str,
    missing: bool,
    unreadable: Option<&str>,
) -> Vec<StoreNote> {
    let mut notes = Vec::new();
    if missing {
        notes.push(StoreNote::Missing {
            store: store.to_string(),
        });
    }
    if let Some(error) = unreadable {
        notes.push(StoreNote::Unreadable {
            store: store.to_string(),
            error: error.to_string(),
        });
    }
    notes
}

/// The note of a store's database `name` that cannot be read, named by
/// the store's own path: a store the person named that cannot be read is
/// warned about (issue 27 item 12).
pub(in crate::store) fn unreadable_database(store: &str, name: &str, error: &str) -> StoreNote {
    StoreNote::Unreadable {
        store: store.to_string(),
        error: format!("{name}: {error}"),
    }
}

/// A single store's status `errors`: its notes that say it (or one of its
/// databases) cannot be read.
pub(in crate::store) fn unreadable_errors(notes: &[StoreNote]) -> Vec<String> {
    notes
        .iter()
        .filter(|n| matches!(n, StoreNote::Unreadable { .. }))
        .map(ToString::to_string)
        .collect()
}

impl Catalog {
    /// The note of a store that holds files but lists no session although
    /// some were passed over by their name alone, which no other note
    /// tells (a log read and found no session has its own). A store list's
    /// status puts it before the files' notes, which it may cut.
    pub fn all_skipped(&self) -> Option<StoreNote> {
        (self.unread_files > 0 && self.is_empty()).then(|| StoreNote::AllSkipped {
            store: self.display_path().display().to_string(),
            unread: self.unread_files,
            noted: self.files.len(),
        })
    }

    /// What to report about the store: missing, skipped files, duplicates.
    pub fn notes(&self) -> Vec<StoreNote> {
        let store = self.display_path().display().to_string();
        let mut notes = root_notes(&store, self.missing, self.unreadable.as_deref());
        for error in &self.folder_errors {
            notes.push(StoreNote::FolderUnreadable {
                store: store.clone(),
                error: error.clone(),
            });
        }

        // The winner of each id that has losers.
        let mut winners: HashMap<String, &[u8]> = HashMap::new();
        for (rel, state) in &self.files {
            // A winner holds a session and needs no note (nor a decode).
            if state.winner {
                continue;
            }
            let rel_text = || String::from_utf8_lossy(rel).into_owned();
            match state.session_id() {
                Some(id) => {
                    winners.entry(id.to_string()).or_default();
                    notes.push(StoreNote::Duplicate {
                        rel: rel_text(),
                        id: id.into_owned(),
                        winner: String::new(),
                    });
                }
                None => match state.header() {
                    HeaderState::NotASession(why) => notes.push(StoreNote::NotASession {
                        rel: rel_text(),
                        why,
                    }),
                    HeaderState::Pending => notes.push(StoreNote::NotASession {
                        rel: rel_text(),
                        why: pending_reason(state.stamp.size, state.consumed).to_string(),
                    }),
                    HeaderState::Session(_) => {}
                },
            }
        }
        if !winners.is_empty() {
            for (rel, state) in &self.files {
                if let Some(id) = state.session_id().filter(|_| state.winner) {
                    if let Some(slot) = winners.get_mut(&*id) {
                        *slot = rel;
                    }
                }
            }
            for note in &mut notes {
                if let StoreNote::Duplicate { id, winner, .. } = note {
                    if let Some(rel) = winners.get(id) {
                        *winner = String::from_utf8_lossy(rel).into_owned();
                    }
                }
            }
        }
        notes.extend(self.aider_notes());
        notes
    }
}
