//! Zed's `threads.db` as a database format (agent-logs-db-3.md "Zed"): the
//! queries; the rules (and the zstd `data`) are `formats::zed`.

use rusqlite::types::ValueRef;

use super::format::{DbContext, DbFormat, DbRead, DbSession, OpenError};
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
        let threads = db.columns("threads")?;
        threads
            .require("threads", &["id", "data_type", "data"])
            .map_err(|why| OpenError::NotOfFormat(format!("not a Zed database: {why}")))?;
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
        format!(
            "SELECT t.id, {}, {}, t.data_type, t.data, {}, {}, {}, {} FROM threads t {filter}",
            t.or_null("t", "summary"),
            t.or_null("t", "updated_at"),
            t.or_null("t", "parent_id"),
            t.or_null("t", "folder_paths"),
            t.or_null("t", "folder_paths_order"),
            t.or_null("t", "created_at"),
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
    let mut out = DbSession {
        header: p.header,
        title: p.title,
        capacity: None,
        skipped: p.skipped,
        entries: p.entries,
        rows: p.rows,
        not_a_session: None,
    };
    if !out.has_messages() {
        out.not_a_session = Some(if p.skipped > 0 && p.rows == 0 {
            "its data cannot be read (neither zstd nor json, or not a JSON object)".into()
        } else {
            "no user or assistant message".into()
        });
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
