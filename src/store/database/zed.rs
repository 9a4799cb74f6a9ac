//! Zed's `threads.db` as a database format (agent-logs-db-3.md "Zed"): the
//! queries; the rules (and the zstd `data`) are `formats::zed`.

use std::io::Read;

use rusqlite::types::ValueRef;

use super::bounded::{self, Place};
use super::format::{require_tables, DbContext, DbFormat, DbRead, DbSession, OpenError};
use super::open::{text, Columns, DbError, ReadOnlyDb};
use super::shrink;
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
    /// The threads' query; a `listing` selects `data` as `NULL` with the
    /// row's place instead, `data` read as a stream ([`listed_data`]).
    fn sql(&self, filter: &str, listing: bool) -> String {
        let t = &self.threads;
        let (data, place) = match listing {
            true => (
                "NULL",
                format!(", {}", bounded::select_list("t", &["data"])),
            ),
            false => ("t.data", String::new()),
        };
        let optional = [
            "parent_id",
            "folder_paths",
            "folder_paths_order",
            "created_at",
        ];
        format!(
            "SELECT t.id, {}, t.data_type, {data}, {}{place} FROM threads t {filter}",
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

/// A thread's `data` as a listing reads it (issue 27 item 14): streamed
/// from the database, decompressed as it is read (zstd's streaming
/// decoder), each string cut ([`shrink`]): the JSON a listing projects,
/// never the whole thread. `None` when it cannot be read (neither zstd
/// nor JSON, past Zed's bound), as [`zed::decode`] would say.
fn listed_data(
    conn: &rusqlite::Connection,
    place: &Place,
    data_type: Option<&str>,
) -> Result<Option<Vec<u8>>, DbError> {
    if !matches!(place.types[0].as_str(), "text" | "blob") {
        return Ok(None);
    }
    let blob = bounded::open(conn, "threads", "data", place.rowid)?;
    let shrunk = match data_type {
        Some("json") => shrink::shrink(blob, shrink::STRING_CAP, THREAD_BUDGET),
        Some("zstd") => match zstd::stream::read::Decoder::new(blob) {
            Ok(decoder) => shrink::shrink(
                decoder.take(zed::MAX_DATA + 1),
                shrink::STRING_CAP,
                THREAD_BUDGET,
            ),
            Err(e) => Err(e),
        },
        _ => return Ok(None),
    };
    // A frame that does not decode is a thread that cannot be read, not
    // a database that cannot.
    Ok(shrunk
        .ok()
        .filter(|s| s.read <= zed::MAX_DATA)
        .and_then(|s| s.text)
        .map(String::into_bytes))
}

/// The most a listed thread's shrunk JSON may take: Zed's own bound on a
/// thread, so a thread a read decodes is never one a listing cannot
/// (its strings cut, the copy is far smaller in practice).
const THREAD_BUDGET: usize = zed::MAX_DATA as usize;

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
        let streamed = bounded::streamable(self.db.connection(), "threads");
        let sql = self.sql("ORDER BY t.id", streamed);
        self.db.read(|tx| {
            let mut statement = tx.prepare(&sql)?;
            let mut rows = statement.query([])?;
            let mut out = Vec::new();
            // One row decoded at a time: a thread's data can be large.
            while let Some(row) = rows.next()? {
                let mut thread = thread_row(row)?;
                if streamed {
                    let place = Place::of(row, 1)?;
                    thread.data = listed_data(tx, &place, thread.data_type.as_deref())?;
                    thread.data_type = Some("json".into());
                }
                out.push(one(&thread, context, None));
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
        let sql = self.sql("WHERE t.id = ?1", false);
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
