//! One OpenCode session as the model lists it (agent-logs-more.md
//! "OpenCode", "The session"): its header, its title and its display
//! title, from its row (or session file) and its projected messages —
//! the same rules for the database and the `storage/` tree.

use std::sync::Arc;

use super::db::{SessionRow, SessionRows};
use crate::formats::opencode::project::{project, MessageRow, PartRow, Projected};
use crate::formats::opencode::{title, NAME};
use crate::formats::text;
use crate::model::{Locator, Session, SessionHeader, MAX_SAFE_INTEGER};

/// `session.revert.messageID`, when the revert JSON names one.
pub fn revert_message(row: &SessionRow) -> Option<String> {
    let revert: serde_json::Value = serde_json::from_str(row.revert.as_deref()?).ok()?;
    revert.get("messageID")?.as_str().map(str::to_string)
}

/// Projects one session's rows, reading at most its first `limit`
/// message rows (ids ascend: the first rows are the oldest).
pub fn project_rows(row: &SessionRow, rows: &SessionRows, limit: Option<u64>) -> Projected {
    let take = limit.map_or(rows.messages.len(), |n| {
        usize::try_from(n).unwrap_or(usize::MAX)
    });
    let messages: Vec<MessageRow<'_>> = rows
        .messages
        .iter()
        .take(take)
        .map(|(id, data)| MessageRow { id, data })
        .collect();
    let parts: Vec<PartRow<'_>> = rows
        .parts
        .iter()
        .map(|(message_id, id, data)| PartRow {
            message_id,
            id,
            data,
        })
        .collect();
    project(&messages, &parts, revert_message(row).as_deref())
}

/// A time OpenCode wrote: milliseconds, read only from 0 to 2^53 − 1.
fn millis(value: Option<i64>) -> Option<u64> {
    value
        .and_then(|v| u64::try_from(v).ok())
        .filter(|&v| v <= MAX_SAFE_INTEGER)
}

/// The header: `createdAt` from `time_created`, else `modified_ms` (the
/// database's or session file's); cwd `directory`, else the project's
/// worktree unless `/`; a sub-agent's display title its given title.
pub fn header(row: &SessionRow, modified_ms: u64) -> SessionHeader {
    let non_empty = |s: &Option<String>| s.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
    let cwd = non_empty(&row.directory).or_else(|| non_empty(&row.worktree).filter(|w| w != "/"));
    let label = row
        .parent_id
        .as_deref()
        .filter(|p| !p.is_empty())
        .and_then(|_| title::given(row.title.as_deref()));
    SessionHeader {
        version: 0,
        id: row.id.clone(),
        created_at: millis(row.time_created).unwrap_or(modified_ms),
        cwd,
        label,
    }
}

/// The title: the given one, else the first user message cut to 80
/// (reverted and shadowed ones count); `None` without a projection.
pub fn session_title(row: &SessionRow, projected: Option<&Projected>) -> Option<String> {
    title::given(row.title.as_deref()).or_else(|| {
        projected?
            .first_user_text
            .as_deref()
            .and_then(text::prompt_title)
    })
}

/// The session a store lists: `name` is its database's or session file's
/// name in the store (its locator), `projected` its messages when the
/// store reads titles.
pub fn listed(
    row: &SessionRow,
    projected: Option<&Projected>,
    store: usize,
    name: &Arc<[u8]>,
    modified_ms: u64,
) -> Session {
    Session {
        header: header(row, modified_ms),
        locator: Locator {
            store,
            format: NAME,
            name: name.clone(),
        },
        title: session_title(row, projected),
        capacity: None,
        unreadable: None,
        skipped_lines: projected.map_or(0, |p| p.skipped),
        // The database's own check is per store: the reader is asked.
        stamp: 0,
    }
}
