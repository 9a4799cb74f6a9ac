//! Goose's `sessions.db` as a database format (agent-logs-db-3.md
//! "Goose"): the queries; the rules are `formats::goose`.

use rusqlite::types::ValueRef;
use serde_json::Value;

use super::bounded;
use super::format::{DbContext, DbSession};
use super::open::{integer, text, Columns};
use super::session_tables::SessionTables;
use crate::formats::goose::{self, is_hidden, MessageRow, SessionRow};

#[derive(Debug)]
pub struct Goose;

impl SessionTables for Goose {
    const NAME: &'static str = goose::NAME;
    const DATABASE: &'static str = goose::DATABASE;
    const DISPLAY: &'static str = "Goose";
    /// A `sessions.db` is Goose's when its `messages` table has a
    /// `content_json` column (the `auto` rule).
    const MESSAGE_COLUMNS: &'static [&'static str] = &["session_id", "content_json"];

    type Session = SessionRow;
    type Message = MessageRow;

    const SESSION_COLUMNS: &'static [&'static str] = &[
        "name",
        "description",
        "user_set_name",
        "session_type",
        "working_dir",
        "created_at",
        "model_config_json",
        "parent_session_id",
    ];

    fn message_number(messages: &Columns) -> &'static str {
        if messages.has("id") {
            "id"
        } else {
            "rowid"
        }
    }

    fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
        session_row(row)
    }

    fn message_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<MessageRow> {
        message_row(row)
    }

    fn hidden(session: &SessionRow) -> bool {
        is_hidden(session)
    }

    fn one(
        session: &SessionRow,
        messages: &[MessageRow],
        context: &DbContext,
        limit: Option<u64>,
    ) -> DbSession {
        one(session, messages, context, limit)
    }

    const BODIES: &'static [&'static str] = &["content_json", "metadata_json"];

    fn set_body(message: &mut MessageRow, i: usize, body: Option<String>) {
        match i {
            0 => message.content_json = body,
            _ => message.metadata_json = body,
        }
    }

    fn message_sql(m: &Columns, placed: bool) -> String {
        let id = if m.has("id") { "m.id" } else { "m.rowid" };
        let created = m.or_null("m", "created_timestamp");
        let (content, metadata, place): (String, String, String) = if placed {
            let bodies: Vec<&str> = Self::BODIES
                .iter()
                .map(|c| if m.has(c) { *c } else { "rowid" })
                .collect();
            (
                "NULL".into(),
                "NULL".into(),
                format!(", {}", bounded::select_list("m", &bodies)),
            )
        } else {
            (
                "m.content_json".into(),
                m.or_null("m", "metadata_json"),
                String::new(),
            )
        };
        format!(
            "SELECT {id}, {}, {content}, {created}, {metadata}{place} FROM messages m \
             WHERE m.session_id = ?1 ORDER BY {created}, {id}",
            m.or_null("m", "role"),
        )
    }
}

fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    let created_at = match row.get_ref(6)? {
        ValueRef::Text(t) => Some(Value::String(String::from_utf8_lossy(t).into_owned())),
        ValueRef::Integer(n) => Some(Value::from(n)),
        _ => None,
    };
    let user_set_name = match row.get_ref(3)? {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Text(t) if t.eq_ignore_ascii_case(b"true") => Some(1),
        _ => None,
    };
    Ok(SessionRow {
        id: row.get(0)?,
        name: text(row, 1)?,
        description: text(row, 2)?,
        user_set_name,
        session_type: text(row, 4)?,
        working_dir: text(row, 5)?,
        created_at,
        model_config_json: text(row, 7)?,
        parent_session_id: text(row, 8)?,
    })
}

fn message_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<MessageRow> {
    Ok(MessageRow {
        id: integer(row, 0)?.unwrap_or_default(),
        role: text(row, 1)?,
        content_json: text(row, 2)?,
        created_timestamp: integer(row, 3)?,
        metadata_json: text(row, 4)?,
    })
}

fn one(
    row: &SessionRow,
    messages: &[MessageRow],
    context: &DbContext,
    limit: Option<u64>,
) -> DbSession {
    let p = goose::project(row, messages, limit, context.modified_ms);
    DbSession::projected(p.header, p.title, p.capacity, p.skipped, p.entries, p.rows)
}
