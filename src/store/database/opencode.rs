//! OpenCode's schema as a database format of the generic store: Kilo
//! Code's `kilo.db` (format `kilo`), and OpenCode's own databases found
//! by an `auto` store (its named store, with the older `storage/` tree,
//! is `store::opencode`). Rows, titles, compaction and revert are
//! OpenCode's rules (`store::opencode::session`, `formats::opencode`).

use super::format::{DbContext, DbFormat, DbRead, DbSession, OpenError};
use super::open::{DbError, ReadOnlyDb};
use crate::formats::{kilo, opencode};
use crate::store::opencode::db::{OpencodeDb, SessionRow};
use crate::store::opencode::{session, sources};

/// OpenCode's schema under one name.
#[derive(Debug)]
pub struct Schema {
    name: &'static str,
    is_candidate: fn(&str) -> bool,
}

/// OpenCode's databases (`opencode.db`, `opencode-<channel>.db`).
pub static OPENCODE: Schema = Schema {
    name: opencode::NAME,
    is_candidate: sources::is_database_name,
};

/// Kilo Code's one database.
pub static KILO: Schema = Schema {
    name: kilo::NAME,
    is_candidate: |name| name == kilo::DATABASE,
};

impl DbFormat for Schema {
    fn name(&self) -> &'static str {
        self.name
    }

    fn is_candidate_name(&self, name: &str) -> bool {
        (self.is_candidate)(name)
    }

    fn open(&self, db: ReadOnlyDb) -> Result<Box<dyn DbRead>, OpenError> {
        match OpencodeDb::over(db) {
            Ok(db) => Ok(Box::new(Open { db })),
            Err(e) if e.0.starts_with("not an OpenCode database") => {
                Err(OpenError::NotOfFormat(e.0))
            }
            Err(e) => Err(OpenError::Failed(e)),
        }
    }
}

struct Open {
    db: OpencodeDb,
}

impl Open {
    fn project(
        &mut self,
        row: &SessionRow,
        context: &DbContext,
        limit: Option<u64>,
        listing: bool,
    ) -> Result<DbSession, DbError> {
        // A listing reads each row shrunk (issue 27 item 14).
        let rows = match listing {
            true => self.db.session_rows_listed(&row.id)?,
            false => self.db.session_rows(&row.id)?,
        };
        let projected = session::project_rows(row, &rows, limit);
        drop(rows);
        Ok(DbSession::projected(
            session::header(row, context.modified_ms),
            session::session_title(row, Some(&projected)),
            None,
            projected.skipped,
            projected.entries,
            projected.rows,
        ))
    }
}

impl DbRead for Open {
    fn stamp(&mut self) -> Result<String, DbError> {
        Ok(format!("{:?}", self.db.stamp()?))
    }

    fn list(&mut self, context: &DbContext) -> Result<Vec<DbSession>, DbError> {
        let (rows, _) = self.db.sessions()?;
        rows.iter()
            .map(|row| self.project(row, context, None, true))
            .collect()
    }

    fn read(
        &mut self,
        context: &DbContext,
        id: &str,
        limit: Option<u64>,
    ) -> Result<Option<DbSession>, DbError> {
        let Some((row, _)) = self.db.session(id)? else {
            return Ok(None);
        };
        self.project(&row, context, limit, false).map(Some)
    }
}
