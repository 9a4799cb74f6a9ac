//! Reading one OpenCode session: its row, messages and parts in short
//! transactions of a read-only open (`db`), projected as the store lists
//! it (`session`).

use std::path::{Path, PathBuf};

use super::db::{DbError, OpencodeDb};
use super::{session, sources, tree};
use crate::model::{
    Cancelled, Entry, LogError, ReadError, ReadSummary, Session, SessionReader, Version,
};
use crate::store::database::version_memo::VersionMemo;

/// Reads the sessions of one OpenCode data folder.
#[derive(Debug)]
pub struct OpencodeReader {
    root: PathBuf,
    /// A database session's version while the database is unchanged.
    memo: VersionMemo,
}

impl OpencodeReader {
    pub fn new(root: &Path) -> Self {
        OpencodeReader {
            root: root.to_path_buf(),
            memo: VersionMemo::default(),
        }
    }

    /// The database `session` was listed from; `None` for a name that is
    /// not one (nothing else below the root is ever opened).
    fn database(&self, session: &Session) -> Option<PathBuf> {
        let name = std::str::from_utf8(&session.locator.name).ok()?;
        sources::is_database_name(name).then(|| self.root.join(name))
    }
}

impl OpencodeReader {
    /// The row and rows of a session of the `storage/` tree.
    fn tree_rows(
        &self,
        session: &Session,
    ) -> Result<(super::db::SessionRow, super::db::SessionRows, u64), ReadError> {
        let gone = || failed(session, "the session is no longer in the store".into());
        let rel = std::str::from_utf8(&session.locator.name).map_err(|_| gone())?;
        let error = |e: std::io::Error| failed(session, e.to_string());
        let (row, modified) = tree::session(&self.root, rel)
            .map_err(error)?
            .ok_or_else(gone)?;
        let rows = tree::rows(&self.root, &row.id).map_err(error)?;
        Ok((row, rows, modified))
    }
}

/// The version of `session` in the database at `path`: its row, its
/// messages' and its parts' keys.
fn database_version(path: &Path, session: &Session) -> Option<Version> {
    let mut db = OpencodeDb::open(path).ok()?;
    let (row, messages) = db.session(session.id()).ok()??;
    let parts = db.part_key(session.id()).ok()?;
    let key = format!(
        "{}\u{0}{}\u{0}{row:?}\u{0}{messages:?}\u{0}{parts:?}",
        session.locator.store,
        session.locator.display()
    );
    Some(Version(key.into_bytes()))
}

fn failed(session: &Session, reason: String) -> ReadError {
    ReadError::Log(LogError {
        file: session.locator.display(),
        line: None,
        reason,
    })
}

impl SessionReader for OpencodeReader {
    /// `limit` counts message rows, as [`ReadSummary::bytes`] does here:
    /// a second pass limited to an earlier read's rows reads the same
    /// messages (ids ascend, so new rows come after them).
    fn read_range(
        &self,
        session: &Session,
        limit: Option<u64>,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError> {
        let (row, rows, modified) = match self.database(session) {
            Some(path) => {
                let error = |e: DbError| failed(session, e.0);
                let mut db = OpencodeDb::open(&path).map_err(error)?;
                let (row, _) = db.session(session.id()).map_err(error)?.ok_or_else(|| {
                    failed(session, "the session is no longer in the database".into())
                })?;
                let rows = db.session_rows(session.id()).map_err(error)?;
                (row, rows, sources::modified_ms(&path))
            }
            None => self.tree_rows(session)?,
        };
        if cancelled() {
            return Err(ReadError::Cancelled);
        }
        let mut projected = session::project_rows(&row, &rows, limit);
        drop(rows);
        // Handed on, never copied: one 100 MB message is held once.
        for entry in std::mem::take(&mut projected.entries) {
            sink(entry);
        }
        Ok(ReadSummary {
            header: session::header(&row, modified),
            captured_through_seq: (projected.rows > 0).then_some(projected.rows),
            title: session::session_title(&row, Some(&projected)),
            capacity: None,
            skipped_lines: projected.skipped,
            bytes: projected.rows,
        })
    }

    /// The session's row, its message key and its part key: what changes
    /// when OpenCode writes to the session (a part streamed into changes
    /// only the part key).
    fn version(&self, session: &Session) -> Option<Version> {
        let Some(path) = self.database(session) else {
            let rel = std::str::from_utf8(&session.locator.name).ok()?;
            let mut key = session.locator.store.to_le_bytes().to_vec();
            key.extend(tree::version_key(&self.root, rel)?);
            return Some(Version(key));
        };
        database_version(&path, session)
    }

    /// A database session's version is read again only when the database
    /// changed ([`VersionMemo`]): search checks every session on every
    /// change of the store.
    fn stamp(&self, session: &Session) -> Option<Version> {
        match self.database(session) {
            Some(path) => self
                .memo
                .stamp(&path, session.id(), || database_version(&path, session)),
            None => self.version(session),
        }
    }

    /// A tree's session file; a database is no log an editor opens.
    fn link_target(&self, session: &Session) -> Option<String> {
        let rel = std::str::from_utf8(&session.locator.name).ok()?;
        tree::parse_rel(rel)?;
        url::Url::from_file_path(self.root.join(rel))
            .ok()
            .map(String::from)
    }
}
