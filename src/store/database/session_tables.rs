//! What the databases whose sessions are rows of `sessions` and whose
//! messages are rows of `messages` share (Crush's, Goose's): the format
//! itself (its name, its candidates, its tables checked), the stamp, the
//! list and the read of one session, in one transaction each, over a
//! format's own queries and rules ([`SessionTables`]).

use std::marker::PhantomData;

use rusqlite::{Row, Transaction};

use super::bounded::{self, Place};
use super::format::{require_tables, DbContext, DbFormat, DbRead, DbSession, OpenError};
use super::open::{Columns, DbError, ReadOnlyDb};

/// One format's queries and rules over its two tables; being one makes a
/// [`DbFormat`] (the impl below), so a format states only what is its own.
pub trait SessionTables: Send + Sync + std::fmt::Debug + 'static {
    /// Its name in settings and status ([`DbFormat::name`]).
    const NAME: &'static str;

    /// The one file name its databases have.
    const DATABASE: &'static str;

    /// Its name in "not a … database".
    const DISPLAY: &'static str;

    /// The `messages` columns a database of the format must have (the
    /// `auto` rule tells the formats apart by them); `sessions` needs `id`.
    const MESSAGE_COLUMNS: &'static [&'static str];

    type Session;
    type Message;

    /// The `messages` column that grows with each message (`id`, else
    /// `rowid`).
    fn message_number(messages: &Columns) -> &'static str;

    /// The `sessions` columns [`Self::session_row`] reads after `id` (its
    /// column 0), in order; each `NULL` where the table lacks it.
    const SESSION_COLUMNS: &'static [&'static str];

    /// The messages of the session `?1`, in order. With `placed`, each
    /// of [`Self::BODIES`] is selected as `NULL`, and the row's place
    /// ([`bounded::select_list`]) is added: each body is then read alone
    /// (issue 27 item 14), shrunk for a listing.
    fn message_sql(messages: &Columns, placed: bool) -> String;

    /// The `messages` columns that hold a message's body (JSON text).
    const BODIES: &'static [&'static str];

    /// Sets body `i` of a message its placed query read without it.
    fn set_body(message: &mut Self::Message, i: usize, body: Option<String>);

    fn session_row(row: &Row<'_>) -> rusqlite::Result<Self::Session>;

    fn message_row(row: &Row<'_>) -> rusqlite::Result<Self::Message>;

    /// Whether a row is listed as no session at all (Crush's title
    /// sessions, Goose's hidden ones).
    fn hidden(session: &Self::Session) -> bool;

    /// The session projected from its row and its first `limit` messages.
    fn one(
        session: &Self::Session,
        messages: &[Self::Message],
        context: &DbContext,
        limit: Option<u64>,
    ) -> DbSession;
}

impl<T: SessionTables> DbFormat for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn is_candidate_name(&self, name: &str) -> bool {
        name == T::DATABASE
    }

    fn open(&self, mut db: ReadOnlyDb) -> Result<Box<dyn DbRead>, OpenError> {
        let [sessions, messages] = require_tables(
            &mut db,
            T::DISPLAY,
            [("sessions", &["id"]), ("messages", T::MESSAGE_COLUMNS)],
        )?;
        Ok(Box::new(Tables::<T> {
            db,
            sessions,
            messages,
            format: PhantomData,
        }))
    }
}

/// A [`SessionTables`] format's open database.
struct Tables<T> {
    db: ReadOnlyDb,
    /// The `sessions` table's columns.
    sessions: Columns,
    messages: Columns,
    format: PhantomData<T>,
}

impl<T: SessionTables> Tables<T> {
    /// The sessions' query, `filter` its tail (`WHERE s.id = ?1`).
    fn session_sql(&self, filter: &str) -> String {
        format!(
            "SELECT s.id, {} FROM sessions s {filter}",
            self.sessions.or_nulls("s", T::SESSION_COLUMNS)
        )
    }
}

impl<T: SessionTables> DbRead for Tables<T> {
    fn stamp(&mut self) -> Result<String, DbError> {
        let updated = self.sessions.or_null("s", "updated_at");
        let number = T::message_number(&self.messages);
        let sql = format!(
            "SELECT (SELECT max({updated}) FROM sessions s), (SELECT max({number}) FROM messages), \
             (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages)"
        );
        self.db.read(|tx| {
            Ok(tx.query_row(&sql, [], |row| {
                Ok(format!(
                    "{:?}/{:?}/{:?}/{:?}",
                    row.get_ref(0)?,
                    row.get_ref(1)?,
                    row.get_ref(2)?,
                    row.get_ref(3)?
                ))
            })?)
        })
    }

    fn list(&mut self, context: &DbContext) -> Result<Vec<DbSession>, DbError> {
        let sql = self.session_sql("ORDER BY s.id");
        let streamed = bounded::streamable(self.db.connection(), "messages");
        let message_sql = T::message_sql(&self.messages, streamed);
        self.db.read(|tx| {
            let rows = {
                let mut statement = tx.prepare(&sql)?;
                // Each row with its id, which every session query selects
                // first.
                let rows = statement
                    .query_map([], |r| Ok((r.get::<_, String>(0)?, T::session_row(r)?)))?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            let mut out = Vec::new();
            for (id, row) in rows.iter().filter(|(_, r)| !T::hidden(r)) {
                let messages = if streamed {
                    placed_messages::<T>(tx, &message_sql, id, true)?
                } else {
                    messages::<T>(tx, &message_sql, id)?
                };
                out.push(T::one(row, &messages, context, None));
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
        let sql = self.session_sql("WHERE s.id = ?1");
        // Placed first, each body then read alone: SQLite's sort never
        // carries a body (a 100 MB one took 550 MB there).
        let streamed = bounded::streamable(self.db.connection(), "messages");
        let message_sql = T::message_sql(&self.messages, streamed);
        self.db.read(|tx| {
            let row = {
                let mut statement = tx.prepare(&sql)?;
                let mut rows = statement.query_map([id], T::session_row)?;
                rows.next().transpose()?
            };
            let Some(row) = row.filter(|r| !T::hidden(r)) else {
                return Ok(None);
            };
            let messages = if streamed {
                placed_messages::<T>(tx, &message_sql, id, false)?
            } else {
                messages::<T>(tx, &message_sql, id)?
            };
            Ok(Some(T::one(&row, &messages, context, limit)))
        })
    }
}

/// The session `id`'s messages (the statement cached: it runs once per
/// session of a list).
fn messages<T: SessionTables>(
    tx: &Transaction<'_>,
    sql: &str,
    id: &str,
) -> Result<Vec<T::Message>, DbError> {
    let mut statement = tx.prepare_cached(sql)?;
    let rows = statement.query_map([id], T::message_row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// The session `id`'s messages, placed by `sql` (a listing's query), each
/// body then read alone by its rowid: for a `listing` as a stream,
/// shrunk, never held whole; else whole, once.
fn placed_messages<T: SessionTables>(
    tx: &Transaction<'_>,
    sql: &str,
    id: &str,
    listing: bool,
) -> Result<Vec<T::Message>, DbError> {
    let placed = {
        let mut statement = tx.prepare_cached(sql)?;
        let rows = statement.query_map([id], |row| {
            Ok((T::message_row(row)?, Place::of(row, T::BODIES.len())?))
        })?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    let mut out = Vec::with_capacity(placed.len());
    for (mut message, place) in placed {
        for (i, column) in T::BODIES.iter().enumerate() {
            let body = bounded::body_text(tx, &place, i, "messages", column, listing)?;
            T::set_body(&mut message, i, body);
        }
        out.push(message);
    }
    Ok(out)
}
