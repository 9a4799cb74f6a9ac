//! Reading a large column of one row as a stream (issue 27 item 14):
//! SQLite's incremental blob I/O reads a value's pages as they are asked
//! for, where a `SELECT` of the column would hold the whole value (and
//! rusqlite a copy of it). A listing reads each message body this way,
//! shrunk to what it needs (`shrink`): one 100 MB message lists in the
//! memory of its first few kilobytes.
//!
//! Blob I/O needs a real rowid table of a UTF-8 database; any other (a
//! view, `WITHOUT ROWID`, a UTF-16 file) is read whole, as before.

use std::io::Read;

use rusqlite::blob::Blob;
use rusqlite::{Connection, Row};

use super::open::DbError;
use super::shrink::{self, Shrunk};

/// The alias of the row's `rowid` in a listing's query.
pub const ROWID: &str = "hydra_rowid";

/// The alias of the type of body `i` in a listing's query.
pub fn type_alias(i: usize) -> String {
    format!("hydra_type_{i}")
}

/// Whether `table`'s values can be read as streams.
pub fn streamable(conn: &Connection, table: &str) -> bool {
    let utf8 = conn
        .query_row("PRAGMA encoding", [], |row| row.get::<_, String>(0))
        .is_ok_and(|e| e == "UTF-8");
    let sql: Option<String> = conn
        .query_row(
            "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            [table],
            |row| row.get(0),
        )
        .ok();
    utf8 && sql.is_some_and(|sql| {
        let sql = sql.to_ascii_uppercase();
        sql.starts_with("CREATE TABLE") && !sql.contains("WITHOUT ROWID")
    })
}

/// The select list a listing adds for a streamed read of `columns` of
/// `alias`: the rowid and each column's type (neither reads a value).
pub fn select_list(alias: &str, columns: &[&str]) -> String {
    let mut list = format!("{alias}.rowid AS {ROWID}");
    for (i, column) in columns.iter().enumerate() {
        list.push_str(&format!(", typeof({alias}.{column}) AS {}", type_alias(i)));
    }
    list
}

/// Where one row's bodies are: its rowid and which of them are text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub rowid: i64,
    /// Per body: its SQLite type (`text`, `blob`, `null`, …).
    pub types: Vec<String>,
}

impl Place {
    /// The place a listing's query gave for `bodies` columns.
    pub fn of(row: &Row<'_>, bodies: usize) -> rusqlite::Result<Place> {
        let rowid = row.get(ROWID)?;
        let types = (0..bodies)
            .map(|i| row.get::<_, String>(type_alias(i).as_str()))
            .collect::<rusqlite::Result<_>>()?;
        Ok(Place { rowid, types })
    }
}

/// The value of `table.column` at `rowid` as a reader of its bytes.
pub fn open<'c>(
    conn: &'c Connection,
    table: &str,
    column: &str,
    rowid: i64,
) -> Result<Blob<'c>, DbError> {
    Ok(conn.blob_open("main", table, column, rowid, true)?)
}

/// Body `body` of the row at `place` (`table.column` at its rowid), as
/// [`super::open::text`] reads a column: `None` unless it is text; else
/// shrunk for a `listing`, whole for a read.
pub fn body_text(
    conn: &Connection,
    place: &Place,
    body: usize,
    table: &str,
    column: &str,
    listing: bool,
) -> Result<Option<String>, DbError> {
    if place.types.get(body).map(String::as_str) != Some("text") {
        return Ok(None);
    }
    let blob = open(conn, table, column, place.rowid)?;
    match listing {
        true => json_text(blob),
        false => whole_text(blob),
    }
    .map(Some)
}

/// A body's JSON text shrunk for a listing: an empty text (which parses
/// as no JSON) when it passes the budget.
fn json_text(blob: Blob<'_>) -> Result<String, DbError> {
    let shrunk = shrink_read(blob, shrink::STRING_CAP, shrink::ROW_BUDGET)?;
    Ok(shrunk.text.unwrap_or_default())
}

/// A body's text read whole into one buffer of its size: never sorted
/// with its row, never copied from SQLite's own (issue 27 item 14: a
/// 100 MB body is held once).
fn whole_text(mut blob: Blob<'_>) -> Result<String, DbError> {
    let mut bytes = Vec::with_capacity(blob.len());
    blob.read_to_end(&mut bytes)
        .map_err(|e| DbError(format!("cannot read the database: {e}")))?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// [`shrink::shrink`] of `input`, its read error a database read's.
pub fn shrink_read(input: impl Read, cap: usize, budget: usize) -> Result<Shrunk, DbError> {
    shrink::shrink(input, cap, budget)
        .map_err(|e| DbError(format!("cannot read the database: {e}")))
}
