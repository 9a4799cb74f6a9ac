//! What the databases whose sessions are rows of `sessions` and whose
//! messages are rows of `messages` share (Crush's, Goose's): the stamp,
//! the list and the read of one session, in one transaction each, over a
//! format's own queries and rules ([`SessionTables`]).

use rusqlite::{Row, Transaction};

use super::bounded::{self, Place};
use super::format::{DbContext, DbRead, DbSession};
use super::open::{Columns, DbError, ReadOnlyDb};

/// One format's queries and rules over its two tables.
pub trait SessionTables {
    type Session;
    type Message;

    fn db(&mut self) -> &mut ReadOnlyDb;

    /// The `sessions` table's columns.
    fn sessions(&self) -> &Columns;

    /// The `messages` column that grows with each message (`id`, else
    /// `rowid`).
    fn message_number(&self) -> &'static str;

    /// The sessions' query, `filter` its tail (`WHERE s.id = ?1`).
    fn session_sql(&self, filter: &str) -> String;

    /// The messages of the session `?1`, in order. With `placed`, each
    /// of [`Self::BODIES`] is selected as `NULL`, and the row's place
    /// ([`bounded::select_list`]) is added: each body is then read alone
    /// (issue 27 item 14), shrunk for a listing.
    fn message_sql(&self, placed: bool) -> String;

    /// The `messages` columns that hold a message's body (JSON text).
    const BODIES: &'static [&'static str];

    /// Sets body `i` of a message its placed query read without it.
    fn set_body(message: &mut Self::Message, i: usize, body: Option<String>);

    fn session_row(row: &Row<'_>) -> rusqlite::Result<Self::Session>;

    fn message_row(row: &Row<'_>) -> rusqlite::Result<Self::Message>;

    fn id(session: &Self::Session) -> &str;

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

/// A [`SessionTables`] format's open database.
pub struct Tables<T>(pub T);

impl<T: SessionTables> DbRead for Tables<T> {
    fn stamp(&mut self) -> Result<String, DbError> {
        let updated = self.0.sessions().or_null("s", "updated_at");
        let number = self.0.message_number();
        let sql = format!(
            "SELECT (SELECT max({updated}) FROM sessions s), (SELECT max({number}) FROM messages), \
             (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages)"
        );
        self.0.db().read(|tx| {
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
        let sql = self.0.session_sql("ORDER BY s.id");
        let streamed = bounded::streamable(self.0.db().connection(), "messages");
        let message_sql = self.0.message_sql(streamed);
        self.0.db().read(|tx| {
            let rows = {
                let mut statement = tx.prepare(&sql)?;
                let rows = statement.query_map([], T::session_row)?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            let mut out = Vec::new();
            for row in rows.iter().filter(|r| !T::hidden(r)) {
                let messages = if streamed {
                    placed_messages::<T>(tx, &message_sql, T::id(row), true)?
                } else {
                    messages::<T>(tx, &message_sql, T::id(row))?
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
        let sql = self.0.session_sql("WHERE s.id = ?1");
        // Placed first, each body then read alone: SQLite's sort never
        // carries a body (a 100 MB one took 550 MB there).
        let streamed = bounded::streamable(self.0.db().connection(), "messages");
        let message_sql = self.0.message_sql(streamed);
        self.0.db().read(|tx| {
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
