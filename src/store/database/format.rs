//! What a database format tells the generic store ([`super::DatabaseStore`]):
//! which files are its candidates, whether an open one is of the format,
//! what tells that it changed, and its sessions — listed, or one read.
//! Each agent's rules are its own module (`super::{opencode, goose,
//! crush, zed}`) over the pure projections in `formats::<agent>`.

use std::path::PathBuf;

use super::open::{Columns, DbError, ReadOnlyDb};
use crate::model::{Entry, SessionHeader};

/// What a format knows of a database besides its rows: facts of where it
/// was found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DbContext {
    /// The file's modification time, Unix epoch ms: `createdAt` when a
    /// format's own chain finds none.
    pub modified_ms: u64,
    /// The project folder an index named for this database (Crush's
    /// `projects.json`), when absolute.
    pub project: Option<String>,
}

/// One session of a database, projected.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DbSession {
    pub header: SessionHeader,
    pub title: Option<String>,
    pub capacity: Option<u64>,
    /// Rows or entries skipped and counted.
    pub skipped: u64,
    /// In `seq` order.
    pub entries: Vec<Entry<'static>>,
    /// Message rows read (`capturedThroughSeq`).
    pub rows: u64,
    /// Set when the row is not a session after all (no user or assistant
    /// message): listed as a note, never as a session.
    pub not_a_session: Option<String>,
}

impl DbSession {
    /// A session as its format projected it; one with no user or
    /// assistant message is not a session after all (listed as a note).
    pub fn projected(
        header: SessionHeader,
        title: Option<String>,
        capacity: Option<u64>,
        skipped: u64,
        entries: Vec<Entry<'static>>,
        rows: u64,
    ) -> DbSession {
        let mut one = DbSession {
            header,
            title,
            capacity,
            skipped,
            entries,
            rows,
            not_a_session: None,
        };
        if !one.has_messages() {
            one.not_a_session = Some("no user or assistant message".into());
        }
        one
    }

    /// Whether any user or assistant message projects.
    pub fn has_messages(&self) -> bool {
        self.entries
            .iter()
            .any(|e| matches!(e.event, crate::model::Event::Message { .. }))
    }
}

/// Why a database could not be taken as one of a format's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// It is not of the format (no main table, no column `auto` tells the
    /// formats apart by): reported as not a session, never fatal.
    NotOfFormat(String),
    /// It could not be read now (locked, corrupt, too slow): tried again
    /// on the next read.
    Failed(DbError),
}

impl From<DbError> for OpenError {
    fn from(e: DbError) -> Self {
        OpenError::Failed(e)
    }
}

/// One database format (kilo, goose, crush, zed, and OpenCode's databases
/// in an `auto` store).
pub trait DbFormat: Send + Sync + std::fmt::Debug {
    /// Its name in settings and status (and the sessions' locators).
    fn name(&self) -> &'static str;

    /// Whether a file called `name` (its last component) may be one of
    /// this format's databases.
    fn is_candidate_name(&self, name: &str) -> bool;

    /// Takes the open database as one of this format's (its tables
    /// checked, its columns read by name).
    fn open(&self, db: ReadOnlyDb) -> Result<Box<dyn DbRead>, OpenError>;
}

/// One open database of a format.
pub trait DbRead {
    /// What changes whenever a session of the database does (the
    /// contract's incremental keys and the rows counted): one short read.
    fn stamp(&mut self) -> Result<String, DbError>;

    /// Every session of the database, projected, in one transaction.
    fn list(&mut self, context: &DbContext) -> Result<Vec<DbSession>, DbError>;

    /// The session `id`, reading at most its first `limit` message rows;
    /// `None` when the database no longer holds it.
    fn read(
        &mut self,
        context: &DbContext,
        id: &str,
        limit: Option<u64>,
    ) -> Result<Option<DbSession>, DbError>;
}

/// One database a store reads.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    /// The sessions' locator name: the path relative to the root, or
    /// absolute when outside it.
    pub name: String,
    pub format: &'static dyn DbFormat,
    pub context: DbContext,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && self.name == other.name
            && self.format.name() == other.format.name()
            && self.context == other.context
    }
}

/// The columns of each of `tables` (name, the columns it must have: what
/// `auto` tells the formats apart by), all read before any is judged; or
/// why the database is not `display`'s.
pub fn require_tables<const N: usize>(
    db: &mut ReadOnlyDb,
    display: &str,
    tables: [(&str, &[&str]); N],
) -> Result<[Columns; N], OpenError> {
    let mut columns = Vec::with_capacity(N);
    for (table, _) in &tables {
        columns.push(db.columns(table)?);
    }
    for ((table, want), have) in tables.iter().zip(&columns) {
        have.require(table, want)
            .map_err(|why| OpenError::NotOfFormat(format!("not a {display} database: {why}")))?;
    }
    columns
        .try_into()
        .map_err(|_| OpenError::NotOfFormat(format!("not a {display} database")))
}
