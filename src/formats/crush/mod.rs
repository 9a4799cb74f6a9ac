//! Crush's sessions (agent-logs-db-3.md "Crush"): rows of a project's
//! `crush.db`, projected. Pure: the rows come from `store::database`.
//!
//! Verified on the Crush source at `37f36e93` and on a real database of
//! 2025-08 (`shared/real-logs/crush`); the [U] rules are in
//! [`unverified`], once.

use std::borrow::Cow;

use serde_json::Value;

use crate::formats::text;
use crate::model::{Entry, Event, Role, SessionHeader, MAX_SAFE_INTEGER};

pub mod defaults;

/// The format's name in settings and status.
pub const NAME: &str = "crush";

/// The agent's name for people (hover, completion details).
pub const DISPLAY_NAME: &str = "Crush";

/// The database each project keeps.
pub const DATABASE: &str = "crush.db";

/// The titles Crush gives before one is generated [V]: a new session in
/// the TUI, `DefaultSessionName` (also its fallback), a sub-agent's.
const PLACEHOLDERS: [&str; 3] = ["New Session", "Untitled Session", "New Agent Session"];

/// What a compaction whose summary message has no text says.
const NO_SUMMARY: &str = "[earlier conversation compacted; no summary recorded]";

/// The rules chosen here, not read in Crush's source or files.
pub mod unverified {
    /// A time from 10^11 to 2^53 − 1 is milliseconds (no writer of those
    /// was seen: every insert writes seconds).
    pub const MILLIS_FROM: i64 = 100_000_000_000;

    /// Messages of one second keep their insertion order: the query's
    /// tie-break is `rowid` (`ListMessagesBySession` orders by
    /// `created_at` alone).
    pub const ORDER_BY: &str = "created_at, rowid";

    /// A database reached other than through `projects.json` has no cwd
    /// (the folder above `.crush` is likely the project, but
    /// `options.data_directory` can put the database anywhere).
    pub const CWD_WITHOUT_INDEX: Option<String> = None;
}

/// One `sessions` row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub parent_session_id: Option<String>,
    pub title: Option<String>,
    pub created_at: Option<i64>,
    pub summary_message_id: Option<String>,
}

/// One `messages` row, in the session's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageRow {
    pub id: String,
    pub role: Option<String>,
    pub parts: Option<String>,
    pub created_at: Option<i64>,
    pub is_summary_message: Option<i64>,
}

/// Whether a row is one of Crush's title-generation sessions (never one).
pub fn is_title_session(row: &SessionRow) -> bool {
    row.id.starts_with("title-") && non_empty(&row.parent_session_id).is_some()
}

/// A Crush time as Unix epoch ms: seconds from 0 to 10^11, milliseconds
/// from there to 2^53 − 1, anything else ignored.
pub fn millis(value: Option<i64>) -> Option<u64> {
    let v = value?;
    let v = u64::try_from(v).ok()?;
    let from = u64::try_from(unverified::MILLIS_FROM).ok()?;
    if v < from {
        Some(v * 1000)
    } else {
        (v <= MAX_SAFE_INTEGER).then_some(v)
    }
}

fn non_empty(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|v| !v.is_empty())
}

/// A title Crush's model or the person gave: trimmed, unless empty or a
/// placeholder.
fn given(title: Option<&str>) -> Option<String> {
    let title = title?.trim();
    (!title.is_empty() && !PLACEHOLDERS.contains(&title)).then(|| title.to_string())
}

/// One message's text: the `data.text` of its first `text` part (what
/// Crush shows); `Err` when `parts` is not a JSON array.
fn message_text(parts: Option<&str>) -> Result<String, ()> {
    let parts: Value = serde_json::from_str(parts.unwrap_or("[]")).map_err(|_| ())?;
    let Value::Array(parts) = parts else {
        return Err(());
    };
    // Moved out of the part, never copied (a 100 MB text is held once).
    let text = parts
        .into_iter()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|mut p| match p.get_mut("data")?.get_mut("text")?.take() {
            Value::String(text) => Some(text),
            _ => None,
        });
    Ok(text.unwrap_or_default())
}

/// What one session projects to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Projected {
    pub header: SessionHeader,
    pub title: Option<String>,
    pub entries: Vec<Entry<'static>>,
    pub rows: u64,
    pub skipped: u64,
}

/// Projects one session: `messages` in [`unverified::ORDER_BY`] order,
/// at most the first `limit` read; `cwd` the project the database was
/// reached through; `modified_ms` the database file's.
pub fn project(
    row: &SessionRow,
    messages: &[MessageRow],
    limit: Option<u64>,
    cwd: Option<&str>,
    modified_ms: u64,
) -> Projected {
    let take = limit.map_or(messages.len(), |n| usize::try_from(n).unwrap_or(usize::MAX));
    let messages = &messages[..take.min(messages.len())];
    let mut out = Projected::default();
    let mut first_user: Option<String> = None;
    // The summary that compaction sends on, by its place.
    let summary = row
        .summary_message_id
        .as_deref()
        .and_then(|id| messages.iter().position(|m| m.id == id));
    for (i, message) in messages.iter().enumerate() {
        let seq = i as u64 + 1;
        out.rows = seq;
        let Ok(text) = message_text(message.parts.as_deref()) else {
            out.skipped += 1;
            continue;
        };
        let role = match message.role.as_deref() {
            Some("user") => Some(Role::User),
            Some("assistant") => Some(Role::Assistant),
            _ => None,
        };
        if role == Some(Role::User) && first_user.is_none() && !text.trim().is_empty() {
            // Only what a title (or a label's first line) is taken from.
            first_user = Some(text::title_source(&text));
        }
        if Some(i) == summary {
            let text = if text.trim().is_empty() {
                NO_SUMMARY.to_string()
            } else {
                text
            };
            out.entries.push(Entry {
                seq,
                event: Event::Checkpoint {
                    through_seq: seq - 1,
                    text: Cow::Owned(text),
                },
            });
            continue;
        }
        let summary_flag = message.is_summary_message.unwrap_or(0) != 0;
        let Some(role) = role.filter(|_| !summary_flag && !text.trim().is_empty()) else {
            continue;
        };
        out.entries.push(Entry::message(seq, role, text));
    }
    let created_at = millis(row.created_at)
        .or_else(|| messages.iter().filter_map(|m| millis(m.created_at)).min())
        .unwrap_or(modified_ms);
    let label = non_empty(&row.parent_session_id).map(|_| {
        given(row.title.as_deref()).or_else(|| {
            first_user
                .as_deref()?
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_string)
        })
    });
    out.header = SessionHeader {
        version: 0,
        id: row.id.clone(),
        created_at,
        cwd: cwd.map(str::to_string),
        label: label.flatten(),
    };
    out.title =
        given(row.title.as_deref()).or_else(|| first_user.as_deref().and_then(text::prompt_title));
    out
}

#[cfg(test)]
mod tests;
