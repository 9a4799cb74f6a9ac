//! Where Continue keeps its sessions (agent-logs-files-3.md "Continue"):
//! `<global>/sessions/<sessionId>.json` and the list
//! `<global>/sessions/sessions.json` beside them.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::formats::text;
use crate::formats::toolkit::side_index::SideIndex;
use crate::model::MAX_SAFE_INTEGER;

/// The folder of the sessions.
pub const SESSIONS: &str = "sessions";
/// The list of every session, in that folder; no session itself.
pub const LIST: &str = "sessions.json";

/// Whether `path` (`/`-separated, relative or absolute) names a session:
/// a `<name>.json` other than the list, directly in a folder `sessions`.
pub fn is_session_file(path: &[u8]) -> bool {
    let mut parts = path.rsplit(|&b| b == b'/');
    let name = parts.next().unwrap_or_default();
    name.len() > b".json".len()
        && name.ends_with(b".json")
        && name != LIST.as_bytes()
        && parts.next() == Some(SESSIONS.as_bytes())
}

/// The store folder whose sessions a change to the file at `rel` may
/// concern, when it is the list: its own folder (the store's root when
/// the store is the `sessions` folder itself).
pub fn scope_of(rel: &[u8]) -> Option<Vec<u8>> {
    if rel == LIST.as_bytes() {
        return Some(Vec::new());
    }
    let dir = rel.strip_suffix(LIST.as_bytes())?;
    let inner = dir.strip_suffix(b"/")?;
    let last = memchr::memrchr(b'/', inner).map_or(inner, |at| &inner[at + 1..]);
    (last == SESSIONS.as_bytes()).then(|| dir.to_vec())
}

/// Each listed session's `dateCreated` by `sessionId`.
pub type Created = HashMap<String, u64>;

static LISTS: SideIndex<Created> = SideIndex::new();

/// The list beside the session file at `path`, when it parses as an array.
pub fn list_beside(path: &Path) -> Option<Arc<Created>> {
    let list = path.parent()?.join(LIST);
    LISTS.get(&list, |bytes| {
        let Value::Array(entries) = serde_json::from_slice(bytes).ok()? else {
            return None;
        };
        let mut out = Created::with_capacity(entries.len());
        for entry in entries {
            let id = entry.get("sessionId").and_then(Value::as_str);
            let created = entry.get("dateCreated").and_then(date_created);
            if let (Some(id), Some(created)) = (id, created) {
                out.entry(id.to_string()).or_insert(created);
            }
        }
        Some(out)
    })
}

/// A `dateCreated`: a string of decimal digits (milliseconds, Continue's
/// `String(Date.now())`), else an RFC 3339 string; a JSON integer too.
fn date_created(value: &Value) -> Option<u64> {
    let millis = match value {
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().ok()
        }
        Value::String(s) => text::parse_timestamp(s),
        Value::Number(n) => n.as_u64(),
        _ => None,
    };
    millis.filter(|&m| m <= MAX_SAFE_INTEGER)
}

/// A fingerprint of what the list says of the session file at `path`,
/// looked up by the file's stem (Continue names each file after its
/// `sessionId`).
pub fn fingerprint(path: &Path) -> Option<u64> {
    let stem = path.file_stem()?.to_str()?;
    let mut hasher = rustc_hash::FxHasher::default();
    list_beside(path)
        .and_then(|list| list.get(stem).copied())
        .hash(&mut hasher);
    Some(hasher.finish() | 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_files_and_the_list() {
        assert!(is_session_file(b"sessions/4f1c.json"));
        assert!(is_session_file(b"/h/.continue/sessions/4f1c.json"));
        assert!(!is_session_file(b"sessions/sessions.json"));
        assert!(!is_session_file(b"sessions/.json"));
        assert!(!is_session_file(b"4f1c.json"));
        assert!(!is_session_file(b"sessions/a/4f1c.json"));
        assert!(!is_session_file(b"sessions/4f1c.jsonl"));
        assert_eq!(scope_of(b"sessions.json").as_deref(), Some(&b""[..]));
        assert_eq!(
            scope_of(b"x/sessions/sessions.json").as_deref(),
            Some(&b"x/sessions/"[..])
        );
        assert_eq!(scope_of(b"x/sessions.json"), None);
        assert_eq!(scope_of(b"sessions/a.json"), None);
    }

    #[test]
    fn date_created_is_digits_or_rfc_3339() {
        assert_eq!(
            date_created(&"1796700000000".into()),
            Some(1_796_700_000_000)
        );
        assert_eq!(date_created(&"1970-01-01T00:00:01Z".into()), Some(1000));
        assert_eq!(date_created(&serde_json::json!(5)), Some(5));
        assert_eq!(date_created(&"9007199254740992".into()), None);
        assert_eq!(date_created(&"".into()), None);
        assert_eq!(date_created(&"12a".into()), None);
    }
}
