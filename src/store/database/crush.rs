//! Crush's `crush.db` as a database format (agent-logs-db-3.md "Crush"):
//! the queries; the rules are `formats::crush`.

use rusqlite::Transaction;

use super::format::{require_tables, DbContext, DbFormat, DbRead, DbSession, OpenError};
use super::open::{integer, text, Columns, DbError, ReadOnlyDb};
use crate::formats::crush::{self, is_title_session, MessageRow, SessionRow};

#[derive(Debug)]
pub struct Crush;

impl DbFormat for Crush {
    fn name(&self) -> &'static str {
        crush::NAME
    }

    fn is_candidate_name(&self, name: &str) -> bool {
        name == crush::DATABASE
    }

    fn open(&self, mut db: ReadOnlyDb) -> Result<Box<dyn DbRead>, OpenError> {
        let [sessions, messages] = require_tables(
            &mut db,
            "Crush",
            [("sessions", &["id"]), ("messages", &["id", "session_id"])],
        )?;
        Ok(Box::new(Open {
            db,
            sessions,
            messages,
        }))
    }
}

struct Open {
    db: ReadOnlyDb,
    sessions: Columns,
    messages: Columns,
}

impl Open {
    fn session_sql(&self, filter: &str) -> String {
        let s = &self.sessions;
        let optional = [
            "parent_session_id",
            "title",
            "created_at",
            "summary_message_id",
        ];
        format!(
            "SELECT s.id, {} FROM sessions s {filter}",
            s.or_nulls("s", &optional)
        )
    }

    fn message_sql(&self) -> String {
        let m = &self.messages;
        format!(
            "SELECT m.id, {} FROM messages m WHERE m.session_id = ?1 ORDER BY {}",
            m.or_nulls("m", &["role", "parts", "created_at", "is_summary_message"]),
            crush::unverified::ORDER_BY
                .split(", ")
                .map(|c| format!("m.{c}"))
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        id: row.get(0)?,
        parent_session_id: text(row, 1)?,
        title: text(row, 2)?,
        created_at: integer(row, 3)?,
        summary_message_id: text(row, 4)?,
    })
}

fn messages(tx: &Transaction<'_>, sql: &str, id: &str) -> Result<Vec<MessageRow>, DbError> {
    let mut statement = tx.prepare_cached(sql)?;
    let rows = statement.query_map([id], |row| {
        Ok(MessageRow {
            id: row.get(0)?,
            role: text(row, 1)?,
            parts: text(row, 2)?,
            created_at: integer(row, 3)?,
            is_summary_message: integer(row, 4)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn one(
    row: &SessionRow,
    messages: &[MessageRow],
    context: &DbContext,
    limit: Option<u64>,
) -> DbSession {
    let cwd = context
        .project
        .clone()
        .or(crush::unverified::CWD_WITHOUT_INDEX);
    let p = crush::project(row, messages, limit, cwd.as_deref(), context.modified_ms);
    DbSession::projected(p.header, p.title, None, p.skipped, p.entries, p.rows)
}

impl DbRead for Open {
    fn stamp(&mut self) -> Result<String, DbError> {
        let updated = self.sessions.or_null("s", "updated_at");
        let sql = format!(
            "SELECT (SELECT max({updated}) FROM sessions s), (SELECT max(rowid) FROM messages), \
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
        let message_sql = self.message_sql();
        self.db.read(|tx| {
            let rows = {
                let mut statement = tx.prepare(&sql)?;
                let rows = statement.query_map([], session_row)?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            let mut out = Vec::new();
            for row in rows.iter().filter(|r| !is_title_session(r)) {
                let messages = messages(tx, &message_sql, &row.id)?;
                out.push(one(row, &messages, context, None));
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
        let message_sql = self.message_sql();
        self.db.read(|tx| {
            let row = {
                let mut statement = tx.prepare(&sql)?;
                let mut rows = statement.query_map([id], session_row)?;
                rows.next().transpose()?
            };
            let Some(row) = row.filter(|r| !is_title_session(r)) else {
                return Ok(None);
            };
            let messages = messages(tx, &message_sql, id)?;
            Ok(Some(one(&row, &messages, context, limit)))
        })
    }
}
