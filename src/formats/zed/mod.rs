//! Zed's native agent threads (agent-logs-db-3.md "Zed"): rows of its
//! `threads.db`, whose `data` is zstd-compressed (or plain) JSON,
//! projected. Pure: the rows come from `store::database`.
//!
//! Verified on Zed's source (`crates/agent/src/db.rs`, `thread.rs`,
//! `util/src/path_list.rs`); no real database: fixtures are built with
//! its DDL. The [U] rules are in [`unverified`], once.

use std::borrow::Cow;
use std::io::Read;

use serde_json::Value;

use crate::formats::text;
use crate::model::{Entry, Role, SessionHeader};

pub mod defaults;

/// The format's name in settings and status.
pub const NAME: &str = "zed";

/// The agent's name for people (hover, completion details).
pub const DISPLAY_NAME: &str = "Zed";

/// The database of Zed's threads folder.
pub const DATABASE: &str = "threads.db";

/// Zed's title until the model gives one [S `DEFAULT_THREAD_TITLE`].
const PLACEHOLDER: &str = "New Thread";

/// The version of the second agent's threads; any other is the first's.
const CURRENT_VERSION: &str = "0.3.0";

/// The most a thread's `data` is decompressed to: a bomb is a skipped row.
pub const MAX_DATA: u64 = 256 << 20;

/// The rules chosen here, not read in Zed's source or files.
pub mod unverified {
    /// A `Mention` and an `Image` add nothing to a user message's text.
    pub const MENTIONS_ADD_TEXT: bool = false;

    /// For a multi-folder project the cwd is its first folder as opened.
    pub const CWD_IS_FIRST_FOLDER: bool = true;

    /// Legacy segment types other than `text` and `thinking` were not
    /// read; a message with a string `text` and no `segments` (the oldest
    /// layout) is one text segment.
    pub const LEGACY_TEXT_FIELD: &str = "text";
}

/// One `threads` row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadRow {
    pub id: String,
    pub summary: Option<String>,
    pub updated_at: Option<String>,
    pub data_type: Option<String>,
    pub data: Option<Vec<u8>>,
    pub parent_id: Option<String>,
    pub folder_paths: Option<String>,
    pub folder_paths_order: Option<String>,
    pub created_at: Option<String>,
}

/// The thread's JSON, when `data` decodes to an object.
pub fn decode(row: &ThreadRow) -> Option<serde_json::Map<String, Value>> {
    let data = row.data.as_deref()?;
    let bytes: Cow<'_, [u8]> = match row.data_type.as_deref()? {
        "json" => Cow::Borrowed(data),
        "zstd" => {
            let decoder = zstd::stream::read::Decoder::new(data).ok()?;
            let mut out = Vec::new();
            decoder.take(MAX_DATA + 1).read_to_end(&mut out).ok()?;
            if out.len() as u64 > MAX_DATA {
                return None;
            }
            Cow::Owned(out)
        }
        _ => return None,
    };
    let text = std::str::from_utf8(&bytes).ok()?;
    match serde_json::from_str(text).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// A title Zed or the model gave: trimmed, unless empty or Zed's
/// placeholder.
fn given(title: Option<&str>) -> Option<String> {
    let title = title?.trim();
    (!title.is_empty() && title != PLACEHOLDER).then(|| title.to_string())
}

/// The cwd: the folder of `folder_paths` whose order index is smallest,
/// when absolute (Zed's `PathList`: paths sorted, an order beside them).
pub fn cwd(paths: Option<&str>, order: Option<&str>) -> Option<String> {
    let paths: Vec<&str> = paths?.split('\n').collect();
    if paths.iter().all(|p| p.is_empty()) {
        return None;
    }
    let sorted = paths.windows(2).all(|w| w[0] <= w[1]);
    let order: Option<Vec<usize>> = order
        .filter(|o| !o.is_empty())
        .and_then(|o| o.split(',').map(|i| i.trim().parse().ok()).collect());
    let order = match order {
        Some(order) if sorted && order.len() == paths.len() => order,
        _ => (0..paths.len()).collect(),
    };
    let first = if unverified::CWD_IS_FIRST_FOLDER {
        order
            .iter()
            .enumerate()
            .min_by_key(|(_, rank)| **rank)
            .map(|(at, _)| at)?
    } else {
        0
    };
    let path = paths.get(first)?;
    (path.starts_with('/') || path.get(1..3) == Some(":\\")).then(|| path.to_string())
}

/// What one thread projects to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Projected {
    pub header: SessionHeader,
    pub title: Option<String>,
    pub entries: Vec<Entry<'static>>,
    pub rows: u64,
    pub skipped: u64,
}

/// One `messages` entry: `Some((role, text))`, `None` for what never
/// projects (`Resume`, a system message), `Err` for a malformed one.
type Message = Result<Option<(Role, String)>, ()>;

fn current_message(entry: &Value) -> Message {
    if entry.as_str() == Some("Resume") {
        return Ok(None);
    }
    let object = entry.as_object().filter(|o| o.len() == 1).ok_or(())?;
    let (tag, value) = object.iter().next().ok_or(())?;
    match (tag.as_str(), value) {
        ("Resume", Value::Null) => Ok(None),
        ("User" | "Agent", Value::Object(body)) => {
            let texts = body
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("Text")?.as_str());
            if tag == "User" {
                let _ = unverified::MENTIONS_ADD_TEXT;
                Ok(Some((Role::User, texts.collect::<String>())))
            } else {
                Ok(Some((
                    Role::Assistant,
                    texts.collect::<Vec<_>>().join("\n"),
                )))
            }
        }
        _ => Err(()),
    }
}

fn legacy_message(entry: &Value) -> Message {
    let object = entry.as_object().ok_or(())?;
    let role = match object.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("system") => return Ok(None),
        _ => return Err(()),
    };
    let segment_text = |kinds: &[&str]| -> String {
        match object.get("segments").and_then(Value::as_array) {
            Some(segments) => segments
                .iter()
                .filter(|s| {
                    s.get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| kinds.contains(&t))
                })
                .filter_map(|s| s.get("text")?.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            None => object
                .get(unverified::LEGACY_TEXT_FIELD)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        }
    };
    let text = match role {
        Role::User => {
            let content = segment_text(&["text", "thinking"]);
            if content.trim().is_empty() {
                object
                    .get("context")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            } else {
                content
            }
        }
        Role::Assistant => segment_text(&["text"]),
    };
    Ok(Some((role, text)))
}

/// Projects one thread, reading at most its first `limit` entries.
pub fn project(row: &ThreadRow, limit: Option<u64>, modified_ms: u64) -> Projected {
    let mut out = Projected::default();
    let data = decode(row);
    if data.is_none() {
        out.skipped = 1;
    }
    let legacy = data
        .as_ref()
        .is_some_and(|d| d.get("version").and_then(Value::as_str) != Some(CURRENT_VERSION));
    let messages = data
        .as_ref()
        .and_then(|d| d.get("messages"))
        .and_then(Value::as_array);
    let take = limit.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let mut first_user = None;
    for (i, entry) in messages.into_iter().flatten().take(take).enumerate() {
        let seq = i as u64 + 1;
        out.rows = seq;
        let message = if legacy {
            legacy_message(entry)
        } else {
            current_message(entry)
        };
        let Ok(message) = message else {
            out.skipped += 1;
            continue;
        };
        let Some((role, text)) = message else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        if role == Role::User && first_user.is_none() {
            // Only what a title is taken from.
            first_user = Some(text::title_source(&text));
        }
        out.entries.push(Entry::message(seq, role, text));
    }
    let created_at = row
        .created_at
        .as_deref()
        .and_then(text::parse_timestamp)
        .or_else(|| row.updated_at.as_deref().and_then(text::parse_timestamp))
        .unwrap_or(modified_ms);
    let parent = row.parent_id.clone().filter(|p| !p.is_empty()).or_else(|| {
        data.as_ref()?
            .get("subagent_context")?
            .get("parent_thread_id")?
            .as_str()
            .filter(|p| !p.is_empty())
            .map(str::to_string)
    });
    out.header = SessionHeader {
        version: 0,
        id: row.id.clone(),
        created_at,
        cwd: cwd(
            row.folder_paths.as_deref(),
            row.folder_paths_order.as_deref(),
        ),
        label: parent.and_then(|_| given(row.summary.as_deref())),
    };
    let data_title = data.as_ref().and_then(|d| {
        let key = if legacy { "summary" } else { "title" };
        given(d.get(key)?.as_str())
    });
    out.title = given(row.summary.as_deref())
        .or(data_title)
        .or_else(|| first_user.as_deref().and_then(text::prompt_title));
    out
}

#[cfg(test)]
mod tests;
