//! Goose's sessions (agent-logs-db-3.md "Goose"): rows of its
//! `sessions.db`, projected. Pure: the rows come from `store::database`.
//!
//! Verified on Goose's source (schema v13–v16) and on a real database of
//! schema v5 (`shared/real-logs/goose`); the [U] rules are in
//! [`unverified`], once.

use std::borrow::Cow;

use serde_json::Value;

use crate::formats::text;
use crate::model::{Entry, Event, Role, SessionHeader, MAX_SAFE_INTEGER};

pub mod defaults;

/// The format's name in settings and status.
pub const NAME: &str = "goose";

/// The agent's name for people (hover, completion details).
pub const DISPLAY_NAME: &str = "Goose";

/// The database Goose keeps in its sessions folder [V `DB_NAME`].
pub const DATABASE: &str = "sessions.db";

/// Goose's `MILLISECOND_TIMESTAMP_THRESHOLD` [V]: a message time above it
/// is already milliseconds.
const MILLISECOND_THRESHOLD: i64 = 10_000_000_000;

/// The rules chosen here, not read in Goose's source or files.
pub mod unverified {
    /// Names Goose gives at creation, which are no title: `CLI Session`
    /// [V the CLI, a real database], `ACP Session` [V migration 9], `New
    /// Chat` [V `threads.name`] — the list is [U].
    pub const GENERATED_NAMES: [&str; 3] = ["CLI Session", "ACP Session", "New Chat"];

    /// Session types listed besides Goose's own `user` and `scheduled`:
    /// every type but `hidden` (`acp`, `terminal`, `gateway`, …).
    pub const UNLISTED_TYPE: &str = "hidden";

    /// An agent-only user message with text is taken for a compaction
    /// summary (one Goose wrote for another purpose would be too).
    pub const AGENT_ONLY_USER_IS_SUMMARY: bool = true;

    /// `model_config_json.context_limit` is the limit the session ran with.
    pub const CAPACITY_FIELD: &str = "context_limit";
}

/// One `sessions` row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub user_set_name: Option<i64>,
    pub session_type: Option<String>,
    pub working_dir: Option<String>,
    /// TEXT or INTEGER as stored.
    pub created_at: Option<Value>,
    pub model_config_json: Option<String>,
    pub parent_session_id: Option<String>,
}

/// One `messages` row, in Goose's order (`created_timestamp`, `id`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageRow {
    pub id: i64,
    pub role: Option<String>,
    pub content_json: Option<String>,
    pub created_timestamp: Option<i64>,
    pub metadata_json: Option<String>,
}

/// Whether a row is a session Goose never lists (internal one-offs).
pub fn is_hidden(row: &SessionRow) -> bool {
    row.session_type.as_deref() == Some(unverified::UNLISTED_TYPE)
}

/// A message time: seconds, or milliseconds above Goose's threshold.
pub fn message_millis(value: i64) -> Option<u64> {
    let ms = if value > MILLISECOND_THRESHOLD {
        value
    } else {
        value.checked_mul(1000)?
    };
    u64::try_from(ms).ok().filter(|&v| v <= MAX_SAFE_INTEGER)
}

/// `YYYY-MM-DD[ T]HH:MM:SS[.f{1,9}][Z|±HH:MM]` (no zone: UTC) as ms.
pub fn created_text(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let shape = b"dddd-dd-dd?dd:dd:dd";
    if b.len() < shape.len() {
        return None;
    }
    for (i, want) in shape.iter().enumerate() {
        let ok = match want {
            b'd' => b[i].is_ascii_digit(),
            b'?' => b[i] == b' ' || b[i] == b'T',
            w => b[i] == *w,
        };
        if !ok {
            return None;
        }
    }
    let mut rest = &text[19..];
    if let Some(f) = rest.strip_prefix('.') {
        let digits = f.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        rest = &f[digits..];
    }
    let zone_ok = rest.is_empty()
        || rest == "Z"
        || (rest.len() == 6
            && (rest.starts_with('+') || rest.starts_with('-'))
            && rest.as_bytes()[3] == b':'
            && rest
                .bytes()
                .enumerate()
                .all(|(i, c)| matches!(i, 0 | 3) || c.is_ascii_digit()));
    if !zone_ok {
        return None;
    }
    // The shared RFC 3339 reader, a zone added when there is none.
    let mut normal = text.replacen(' ', "T", 1);
    if rest.is_empty() {
        normal.push('Z');
    }
    text::parse_timestamp(&normal)
}

/// What one message carries.
struct Parsed {
    role: Option<Role>,
    /// The text items for the user's audience, joined with `\n`.
    text: String,
    /// Every text item, audience ignored (a summary's).
    all_text: String,
    user_visible: bool,
    agent_only: bool,
}

/// `Err` when `content_json` is not an array or `metadata_json` is
/// present but not an object (skipped and counted).
fn parse(message: &MessageRow) -> Result<Parsed, ()> {
    let content: Value =
        serde_json::from_str(message.content_json.as_deref().unwrap_or("")).map_err(|_| ())?;
    let Value::Array(items) = content else {
        return Err(());
    };
    let metadata = match message.metadata_json.as_deref() {
        None => Value::Object(serde_json::Map::new()),
        Some(m) => {
            let v: Value = serde_json::from_str(m).map_err(|_| ())?;
            if !v.is_object() {
                return Err(());
            }
            v
        }
    };
    let flag = |name: &str| metadata.get(name);
    // `COALESCE(json_extract(m, '$.userVisible'), 1) != 0` [V].
    let user_visible = !matches!(flag("userVisible"), Some(Value::Bool(false)))
        && !flag("userVisible").is_some_and(|v| v.as_f64() == Some(0.0));
    let agent_only = flag("userVisible") == Some(&Value::Bool(false))
        && flag("agentVisible") == Some(&Value::Bool(true));
    // Each text moved out of its item, never copied (a 100 MB text is
    // held once); every text, audience ignored, only for a summary.
    let mut texts = Vec::new();
    for item in items {
        let Value::Object(mut item) = item else {
            continue;
        };
        if item.get("type").and_then(Value::as_str) != Some("text") {
            continue;
        }
        let Some(Value::String(text)) = item.remove("text") else {
            continue;
        };
        let audience = item.get("annotations").and_then(|a| a.get("audience"));
        let for_user = match audience {
            None | Some(Value::Null) => true,
            Some(Value::Array(who)) => who.iter().any(|w| w.as_str() == Some("user")),
            Some(_) => false,
        };
        texts.push((text, for_user));
    }
    let all_text = match agent_only {
        true => texts
            .iter()
            .map(|(t, _)| t.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        false => String::new(),
    };
    let mut shown: Vec<String> = texts
        .into_iter()
        .filter_map(|(t, for_user)| for_user.then_some(t))
        .collect();
    let text = match shown.len() {
        1 => shown.pop().unwrap_or_default(),
        _ => shown.join("\n"),
    };
    let role = match message.role.as_deref() {
        Some("user") => Some(Role::User),
        Some("assistant") => Some(Role::Assistant),
        _ => None,
    };
    Ok(Parsed {
        role,
        text,
        all_text,
        user_visible,
        agent_only,
    })
}

/// A name as a title: as written when the person set it, else cut to 80
/// and only when it is not one Goose generates.
fn name_title(name: Option<&str>, user_set: bool) -> Option<String> {
    let name = name?.trim();
    if name.is_empty() {
        return None;
    }
    if user_set {
        return Some(name.to_string());
    }
    if unverified::GENERATED_NAMES.contains(&name) {
        return None;
    }
    text::cut_title(name)
}

/// What one session projects to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Projected {
    pub header: SessionHeader,
    pub title: Option<String>,
    pub capacity: Option<u64>,
    pub entries: Vec<Entry<'static>>,
    pub rows: u64,
    pub skipped: u64,
}

/// Projects one session, reading at most its first `limit` messages.
pub fn project(
    row: &SessionRow,
    messages: &[MessageRow],
    limit: Option<u64>,
    modified_ms: u64,
) -> Projected {
    let take = limit.map_or(messages.len(), |n| usize::try_from(n).unwrap_or(usize::MAX));
    let messages = &messages[..take.min(messages.len())];
    let mut out = Projected::default();
    let mut parsed = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        out.rows = i as u64 + 1;
        match parse(message) {
            Ok(p) => parsed.push((i as u64 + 1, p)),
            Err(()) => out.skipped += 1,
        }
    }
    // The last agent-only user summary shadows everything before it.
    let checkpoint = parsed.iter().rposition(|(_, p)| {
        unverified::AGENT_ONLY_USER_IS_SUMMARY
            && p.role == Some(Role::User)
            && p.agent_only
            && !p.all_text.trim().is_empty()
    });
    let mut first_user = None;
    for (at, (seq, p)) in parsed.into_iter().enumerate() {
        if first_user.is_none()
            && p.role == Some(Role::User)
            && p.user_visible
            && !p.text.trim().is_empty()
        {
            // Only what a title is taken from.
            first_user = Some(text::title_source(&p.text));
        }
        if Some(at) == checkpoint {
            out.entries.push(Entry {
                seq,
                event: Event::Checkpoint {
                    through_seq: seq - 1,
                    text: Cow::Owned(p.all_text),
                },
            });
            continue;
        }
        let Some(role) = p.role else { continue };
        if !p.user_visible || p.text.trim().is_empty() {
            continue;
        }
        out.entries.push(Entry::message(seq, role, p.text));
    }
    let created_at = match &row.created_at {
        Some(Value::String(t)) => created_text(t),
        Some(Value::Number(n)) => n.as_i64().and_then(message_millis),
        _ => None,
    }
    .or_else(|| {
        messages
            .iter()
            .filter_map(|m| m.created_timestamp.and_then(message_millis))
            .min()
    })
    .unwrap_or(modified_ms);
    let sub_agent = row.session_type.as_deref() == Some("sub_agent")
        || row
            .parent_session_id
            .as_deref()
            .is_some_and(|p| !p.is_empty());
    let label = sub_agent
        .then(|| text::given_title(row.name.as_deref().unwrap_or_default()))
        .flatten();
    out.header = SessionHeader {
        version: 0,
        id: row.id.clone(),
        created_at,
        cwd: row.working_dir.clone().filter(|d| !d.is_empty()),
        label,
    };
    let user_set = row.user_set_name.unwrap_or(0) != 0;
    out.title = name_title(row.name.as_deref(), user_set)
        .or_else(|| name_title(row.description.as_deref(), user_set))
        .or_else(|| first_user.as_deref().and_then(text::prompt_title));
    out.capacity = row
        .model_config_json
        .as_deref()
        .and_then(|c| serde_json::from_str::<Value>(c).ok())
        .and_then(|c| c.get(unverified::CAPACITY_FIELD)?.as_u64())
        .filter(|&n| n >= 1);
    out
}

#[cfg(test)]
mod tests;
