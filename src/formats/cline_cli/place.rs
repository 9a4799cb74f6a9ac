//! Where a Cline CLI session is: `sessions/<id>/<id>.messages.json`, and
//! the session's metadata `<id>.json` beside it, which holds its title,
//! cwd and start.

use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::formats::text;
use crate::fsio::{self, Links};

/// The folder of the session folders.
pub const SESSIONS: &str = "sessions";
/// How a session's conversation file ends, after its id.
const MESSAGES: &str = ".messages.json";
/// How its metadata file ends, after its id.
const METADATA: &str = ".json";
/// The longest metadata file read: one object of a few fields, not a
/// conversation.
const METADATA_MAX: u64 = 1 << 20;

/// `path`'s last two components (`/`-separated), the folder's name first.
fn last_two(path: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let mut parts = path.rsplit(|&b| b == b'/');
    let name = parts.next()?;
    let folder = parts.next()?;
    Some((parts.next().unwrap_or_default(), folder, name))
}

/// The session id of the conversation file at `path` (`/`-separated,
/// relative or absolute): its folder's name, when the file is named
/// `<that name>.messages.json`.
pub fn session_id_of(path: &[u8]) -> Option<&[u8]> {
    let (_, folder, name) = last_two(path)?;
    (!folder.is_empty() && name.strip_suffix(MESSAGES.as_bytes()) == Some(folder)).then_some(folder)
}

/// Whether `path` names a conversation file whose folder is directly in
/// `sessions` (what `auto` claims).
pub fn is_in_sessions(path: &[u8]) -> bool {
    session_id_of(path).is_some()
        && last_two(path).is_some_and(|(above, _, _)| above == SESSIONS.as_bytes())
}

/// The session folder (`…/<id>/`) whose conversation a change to the file
/// at `rel` may concern, when it is that session's metadata `<id>.json`.
pub fn scope_of(rel: &[u8]) -> Option<Vec<u8>> {
    let (_, folder, name) = last_two(rel)?;
    if folder.is_empty() || name.strip_suffix(METADATA.as_bytes()) != Some(folder) {
        return None;
    }
    let end = rel.len() - name.len();
    Some(rel[..end].to_vec())
}

/// What a session takes from its `<id>.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Metadata {
    /// `metadata.title`, trimmed, when not empty.
    pub title: Option<String>,
    /// `cwd`, else `workspace_root`.
    pub cwd: Option<String>,
    /// `started_at` (RFC 3339), Unix epoch milliseconds.
    pub started_at: Option<u64>,
}

impl Metadata {
    /// The facts of one metadata object.
    pub fn of(object: &Map<String, Value>) -> Metadata {
        let text = |key: &str| {
            object
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        };
        Metadata {
            title: object
                .get("metadata")
                .and_then(|m| m.get("title"))
                .and_then(Value::as_str)
                .and_then(text::given_title),
            cwd: text("cwd")
                .or_else(|| text("workspace_root"))
                .map(str::to_string),
            started_at: text("started_at").and_then(text::parse_timestamp),
        }
    }
}

/// The metadata of the session `id` whose folder is `dir`: `<id>.json`
/// there, when it is an object; else none.
pub fn metadata(dir: &Path, id: &str) -> Option<Metadata> {
    let path = dir.join(format!("{id}{METADATA}"));
    let file = fsio::open_regular(&path, Links::NoFollow).ok()?;
    let mut bytes = Vec::new();
    file.take(METADATA_MAX).read_to_end(&mut bytes).ok()?;
    let object: Map<String, Value> = serde_json::from_slice(&bytes).ok()?;
    Some(Metadata::of(&object))
}

/// A session's id and folder from its conversation file's path.
pub fn of(path: &Path) -> Option<(String, &Path)> {
    let dir = path.parent()?;
    let id = session_id_of(path.to_str()?.as_bytes())?;
    Some((String::from_utf8_lossy(id).into_owned(), dir))
}

/// A fingerprint of what the metadata beside the conversation file at
/// `path` says (see [`crate::formats::LogFormat::side_facts`]).
pub fn fingerprint(path: &Path) -> Option<u64> {
    let (id, dir) = of(path)?;
    let mut hasher = rustc_hash::FxHasher::default();
    metadata(dir, &id).hash(&mut hasher);
    // Never 0, which a stamp reads as "no side facts".
    Some(hasher.finish() | 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversation_files_and_their_metadata() {
        assert_eq!(
            session_id_of(b"1796_ab12c/1796_ab12c.messages.json"),
            Some(&b"1796_ab12c"[..])
        );
        assert!(is_in_sessions(
            b"/h/.cline/data/sessions/7_x/7_x.messages.json"
        ));
        assert!(is_in_sessions(b"sessions/7_x/7_x.messages.json"));
        assert!(!is_in_sessions(b"7_x/7_x.messages.json"));
        assert!(!is_in_sessions(b"sessions/7_x/8_y.messages.json"));
        assert_eq!(session_id_of(b"7_x/7_x.json"), None);
        assert_eq!(session_id_of(b"7_x.messages.json"), None);
        assert_eq!(session_id_of(b"/.messages.json"), None);
        assert_eq!(scope_of(b"7_x/7_x.json").as_deref(), Some(&b"7_x/"[..]));
        assert_eq!(
            scope_of(b"a/sessions/7_x/7_x.json").as_deref(),
            Some(&b"a/sessions/7_x/"[..])
        );
        assert_eq!(scope_of(b"7_x/7_x.messages.json"), None);
        assert_eq!(scope_of(b"7_x/other.json"), None);
        assert_eq!(scope_of(b"7_x.json"), None);
    }

    #[test]
    fn metadata_fields() {
        let Value::Object(o) = serde_json::json!({
            "started_at": "1970-01-01T00:00:01.5Z",
            "workspace_root": "/w",
            "cwd": " ",
            "metadata": {"title": "  Fix it \n"},
        }) else {
            unreachable!()
        };
        assert_eq!(
            Metadata::of(&o),
            Metadata {
                title: Some("Fix it".into()),
                cwd: Some("/w".into()),
                started_at: Some(1500),
            }
        );
        assert_eq!(Metadata::of(&Map::new()), Metadata::default());
    }
}
