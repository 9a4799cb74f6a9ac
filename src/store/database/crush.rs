//! Crush's `crush.db` as a database format (agent-logs-db-3.md "Crush"):
//! the queries; the rules are `formats::crush`.

use super::bounded;
use super::format::{DbContext, DbSession};
use super::open::{integer, text, Columns};
use super::session_tables::SessionTables;
use crate::formats::crush::{self, is_title_session, MessageRow, SessionRow};

#[derive(Debug)]
pub struct Crush;

impl SessionTables for Crush {
    const NAME: &'static str = crush::NAME;
    const DATABASE: &'static str = crush::DATABASE;
    const DISPLAY: &'static str = "Crush";
    const MESSAGE_COLUMNS: &'static [&'static str] = &["id", "session_id"];

    type Session = SessionRow;
    type Message = MessageRow;

    const SESSION_COLUMNS: &'static [&'static str] = &[
        "parent_session_id",
        "title",
        "created_at",
        "summary_message_id",
    ];

    fn message_number(_: &Columns) -> &'static str {
        "rowid"
    }

    fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
        session_row(row)
    }

    fn message_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<MessageRow> {
        message_row(row)
    }

    fn hidden(session: &SessionRow) -> bool {
        is_title_session(session)
    }

    fn one(
        session: &SessionRow,
        messages: &[MessageRow],
        context: &DbContext,
        limit: Option<u64>,
    ) -> DbSession {
        one(session, messages, context, limit)
    }

    const BODIES: &'static [&'static str] = &["parts"];

    fn set_body(message: &mut MessageRow, _: usize, body: Option<String>) {
        message.parts = body;
    }

    fn message_sql(m: &Columns, placed: bool) -> String {
        let parts = match placed {
            true => "NULL".to_string(),
            false => m.or_null("m", "parts"),
        };
        let place = match (placed, m.has("parts")) {
            (true, true) => format!(", {}", bounded::select_list("m", Self::BODIES)),
            (true, false) => format!(", {}", bounded::select_list("m", &["rowid"])),
            (false, _) => String::new(),
        };
        format!(
            "SELECT m.id, {}, {parts}, {}{place} FROM messages m WHERE m.session_id = ?1 ORDER BY {}",
            m.or_null("m", "role"),
            m.or_nulls("m", &["created_at", "is_summary_message"]),
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

fn message_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<MessageRow> {
    Ok(MessageRow {
        id: row.get(0)?,
        role: text(row, 1)?,
        parts: text(row, 2)?,
        created_at: integer(row, 3)?,
        is_summary_message: integer(row, 4)?,
    })
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
