//! Zed's `threads.db` as a database format (agent-logs-db-3.md "Zed"): the
//! queries; the rules (and the zstd `data`) are `formats::zed`.

use rusqlite::types::ValueRef;

use super::format::{require_tables, DbContext, DbFormat, DbRead, DbSession, OpenError};
use super::open::{text, Columns, DbError, ReadOnlyDb};
use crate::formats::zed::{self, ThreadRow};

#[derive(Debug)]
pub struct Zed;

impl DbFormat for Zed {
    fn name(&self) -> &'static str {
        zed::NAME
    }

    fn is_candidate_name(&self, name: &str) -> bool {
        name == zed::DATABASE
    }

    /// A `threads.db` is Zed's when its `threads` table has a `data_type`
    /// column (the `auto` rule).
    fn open(&self, mut db: ReadOnlyDb) -> Result<Box<dyn DbRead>, OpenError> {
        let [threads] =
            require_tables(&mut db, "Zed", [("threads", &["id", "data_type", "data"])])?;
        Ok(Box::new(Open { db, threads }))
    }
}

struct Open {
    db: ReadOnlyDb,
    threads: Columns,
}

impl Open {
    fn sql(&self, filter: &str) -> String {
        let t = &self.threads;
        let optional = [
            "parent_id",
            "folder_paths",
            "folder_paths_order",
            "created_at",
        ];
        format!(
            "SELECT t.id, {}, t.data_type, t.data, {} FROM threads t {filter}",
            t.or_nulls("t", &["summary", "updated_at"]),
            t.or_nulls("t", &optional),
        )
    }
}

fn thread_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ThreadRow> {
    // `data` may be TEXT or BLOB: its bytes either way.
    let data = match row.get_ref(4)? {
        ValueRef::Blob(b) | ValueRef::Text(b) => Some(b.to_vec()),
        _ => None,
    };
    Ok(ThreadRow {
        id: row.get(0)?,
        summary: text(row, 1)?,
        updated_at: text(row, 2)?,
        data_type: text(row, 3)?,
        data,
        parent_id: text(row, 5)?,
        folder_paths: text(row, 6)?,
        folder_paths_order: text(row, 7)?,
        created_at: text(row, 8)?,
    })
}

fn one(row: &ThreadRow, context: &DbContext, limit: Option<u64>) -> DbSession {
    let p = zed::project(row, limit, context.modified_ms);
    let unreadable = p.skipped > 0 && p.rows == 0;
    let mut out = DbSession::projected(p.header, p.title, None, p.skipped, p.entries, p.rows);
    if out.not_a_session.is_some() && unreadable {
        out.not_a_session =
            Some("its data cannot be read (neither zstd nor json, or not a JSON object)".into());
    }
    out
}

impl DbRead for Open {
    fn stamp(&mut self) -> Result<String, DbError> {
        let updated = self.threads.or_null("t", "updated_at");
        let sql = format!("SELECT max({updated}), count(*) FROM threads t");
        self.db.read(|tx| {
            Ok(tx.query_row(&sql, [], |row| {
                Ok(format!("{:?}/{:?}", row.get_ref(0)?, row.get_ref(1)?))
            })?)
        })
    }

    fn list(&mut self, context: &DbContext) -> Result<Vec<DbSession>, DbError> {
        let sql = self.sql("ORDER BY t.id");
        self.db.read(|tx| {
            let mut statement = tx.prepare(&sql)?;
            let mut rows = statement.query([])?;
            let mut out = Vec::new();
            // One row decoded at a time: a thread's data can be large.
            while let Some(row) = rows.next()? {
                out.push(one(&thread_row(row)?, context, None));
            }
            Ok(out)
        })
    }

    fn read(
        &mut self,
        context: &DbContext,
        id: &str,
        limit: Option<u64>,
    ) -> Result<Option<DbSession>, DbError> {
        let sql = self.sql("WHERE t.id = ?1");
        self.db.read(|tx| {
            let mut statement = tx.prepare(&sql)?;
            let mut rows = statement.query([id])?;
            match rows.next()? {
                Some(row) => Ok(Some(one(&thread_row(row)?, context, limit))),
                None => Ok(None),
            }
        })
    }
}
