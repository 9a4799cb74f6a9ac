//! One line of a Pi session file (agent-logs-files-3.md "Pi"), read
//! leniently: the header on line 1, an entry on every later line. A field
//! of the wrong type reads as absent; what no rule reads is skipped
//! without being built.

use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer, IgnoredAny};

use super::unverified;
use crate::formats::claude_code::line::{Block, Content, TextContent};
use crate::formats::text;
use crate::formats::toolkit::lenient::{Loose, Object, Shape};
use crate::model::Role;

/// Whether a key is present, whatever its value (`null` included).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Present(pub bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d).map(|_| Present(true))
    }
}

/// The fields of line 1 that decide what a file is.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct RawHeader<'a> {
    #[serde(rename = "type", borrow)]
    kind: Loose<'a>,
    #[serde(borrow)]
    id: Loose<'a>,
    #[serde(borrow)]
    timestamp: Loose<'a>,
    #[serde(borrow)]
    cwd: Loose<'a>,
    version: Loose<'a>,
    #[serde(rename = "createdAt")]
    created_at: Present,
}

/// A Pi header: `{"type":"session","version"?,"id","timestamp","cwd",…}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub id: String,
    /// `timestamp`, when it parses.
    pub created_at: Option<u64>,
    /// `cwd`, when a non-empty string.
    pub cwd: Option<String>,
    /// Whether entries form a tree by `id`/`parentId` (version 2 and 3);
    /// version 1 (or none) chains each entry to the one before it.
    pub tree: bool,
}

/// What line 1 is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum First {
    /// An object with `type` `"session"` and a string `id` (Pi's own
    /// test), and whether it also has Pi's shape under `auto` (rule 1b:
    /// no key `createdAt`, a string `timestamp`).
    Session { header: Header, pi_shaped: bool },
    /// Anything else.
    Other,
}

/// Reads line 1.
pub fn first(line: &[u8]) -> First {
    let Ok(Object(raw)) = serde_json::from_slice::<Object<RawHeader<'_>>>(line) else {
        return First::Other;
    };
    let (Loose::Str(kind), Loose::Str(id)) = (&raw.kind, &raw.id) else {
        return First::Other;
    };
    if kind != "session" {
        return First::Other;
    }
    let pi_shaped = !raw.created_at.0 && matches!(raw.timestamp, Loose::Str(_));
    let created_at = match &raw.timestamp {
        Loose::Str(t) => text::parse_timestamp(t),
        _ => None,
    };
    let cwd = raw
        .cwd
        .into_str()
        .filter(|c| !c.is_empty())
        .map(Cow::into_owned);
    // Version 2 and later are trees; absent, 1 or anything else is v1
    // (Pi's `header.version ?? 1`, migrated when below 2).
    let tree = raw.version.whole().is_some_and(|v| v >= 2);
    First::Session {
        header: Header {
            id: id.to_string(),
            created_at,
            cwd,
            tree,
        },
        pi_shaped,
    }
}

/// Whether line 1 is a Pi header under `auto` (rule 1b).
pub fn is_pi_header(line: &[u8]) -> bool {
    matches!(
        first(line),
        First::Session {
            pi_shaped: true,
            ..
        }
    )
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct RawEntry<'a> {
    #[serde(rename = "type", borrow)]
    kind: Loose<'a>,
    #[serde(borrow)]
    id: Loose<'a>,
    #[serde(rename = "parentId", borrow)]
    parent_id: Loose<'a>,
    #[serde(borrow)]
    timestamp: Loose<'a>,
    #[serde(borrow)]
    message: Shape<RawMessage<'a>>,
    #[serde(borrow)]
    summary: Loose<'a>,
    #[serde(rename = "firstKeptEntryId", borrow)]
    first_kept_id: Loose<'a>,
    #[serde(rename = "firstKeptEntryIndex")]
    first_kept_index: Loose<'a>,
    #[serde(borrow)]
    name: Loose<'a>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct RawMessage<'a> {
    #[serde(borrow)]
    role: Loose<'a>,
    #[serde(borrow)]
    content: TextContent<'a>,
}

/// What an entry is, as far as the session's rules read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A `message` entry of the person or the model with text (the text
    /// when the caller asked for it, else empty).
    Message(Role, Cow<'a, str>),
    /// A `compaction` entry.
    Compaction {
        summary: Option<Cow<'a, str>>,
        first_kept_id: Option<Cow<'a, str>>,
        /// v1: the index of the first kept entry among the file's parsed
        /// lines (the header is 0).
        first_kept_index: Option<u64>,
    },
    /// A `session_info` entry with a non-empty name (trimmed).
    Name(String),
    /// Any other entry (and a message with nothing to show): it takes
    /// part in the tree and adds nothing.
    Silent,
}

/// One entry (a line after the header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    pub id: Option<Cow<'a, str>>,
    pub parent_id: Option<Cow<'a, str>>,
    pub timestamp: Option<u64>,
    pub kind: Kind<'a>,
}

/// What a line after the header is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    Entry(Entry<'a>),
    /// White space only: ignored, not counted as skipped.
    Blank,
    /// Valid JSON that is no entry (not an object, or no string `type`):
    /// skipped and counted, yet one of the parsed lines a v1
    /// `firstKeptEntryIndex` counts (Pi keeps every line that parses).
    NotAnEntry,
    /// Not JSON: skipped and counted, and not among the parsed lines.
    NotJson,
}

/// Reads a line after the header.
pub fn parse(line: &[u8]) -> Line<'_> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    let raw = match serde_json::from_slice::<Object<RawEntry<'_>>>(line) {
        Ok(Object(raw)) => raw,
        Err(_) if serde_json::from_slice::<IgnoredAny>(line).is_ok() => return Line::NotAnEntry,
        Err(_) => return Line::NotJson,
    };
    let Loose::Str(kind) = raw.kind else {
        return Line::NotAnEntry;
    };
    let kind = match kind.as_ref() {
        kind if unverified::projected_entry(kind) => message(raw.message),
        "compaction" => Kind::Compaction {
            summary: raw.summary.into_str(),
            first_kept_id: raw.first_kept_id.into_str(),
            first_kept_index: match raw.first_kept_index {
                Loose::Int(i) => Some(i),
                _ => None,
            },
        },
        "session_info" => match raw.name.into_str().as_deref().and_then(text::given_title) {
            Some(name) => Kind::Name(name),
            None => Kind::Silent,
        },
        // Every other type takes part in the tree and adds nothing.
        _ => Kind::Silent,
    };
    Line::Entry(Entry {
        id: raw.id.into_str(),
        parent_id: raw.parent_id.into_str(),
        timestamp: raw
            .timestamp
            .into_str()
            .and_then(|t| text::parse_timestamp(&t)),
        kind,
    })
}

/// A `message` entry's surface: role `user` (a string content or its
/// `text` blocks) or `assistant` (its `text` blocks), blocks joined with
/// `"\n"`, when not empty after trimming; every other role is silent.
fn message(message: Shape<RawMessage<'_>>) -> Kind<'_> {
    let Shape::Map(message) = message else {
        return Kind::Silent;
    };
    let Some(role) = message
        .role
        .into_str()
        .as_deref()
        .and_then(unverified::projected_role)
    else {
        return Kind::Silent;
    };
    let texts: Vec<Cow<'_, str>> = match message.content.0 {
        Content::Str(Some(text)) if role == Role::User => vec![text],
        Content::Blocks(blocks) => blocks
            .into_iter()
            .filter_map(|b| match b {
                Block::Text(text) => text,
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let joined = match texts.len() {
        1 => texts.into_iter().next().unwrap_or_default(),
        _ => Cow::Owned(texts.join("\n")),
    };
    let shown = match role {
        Role::User => text::person_text(joined),
        Role::Assistant => joined,
    };
    if shown.trim().is_empty() {
        return Kind::Silent;
    }
    Kind::Message(role, shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_by_their_shape() {
        let pi = br#"{"type":"session","version":3,"id":"a","timestamp":"2025-01-02T03:04:05.678Z","cwd":"/w"}"#;
        assert_eq!(
            first(pi),
            First::Session {
                header: Header {
                    id: "a".into(),
                    created_at: text::parse_timestamp("2025-01-02T03:04:05.678Z"),
                    cwd: Some("/w".into()),
                    tree: true,
                },
                pi_shaped: true,
            }
        );
        assert!(is_pi_header(pi));
        // v1: no version; an empty cwd is none.
        let v1 = br#"{"type":"session","id":"b","timestamp":"x","cwd":""}"#;
        assert!(matches!(
            first(v1),
            First::Session {
                header: Header {
                    tree: false,
                    cwd: None,
                    created_at: None,
                    ..
                },
                pi_shaped: true
            }
        ));
        // A hydra header has `createdAt` (any value): never Pi-shaped.
        for hydra in [
            &br#"{"type":"session","id":"c","timestamp":"t","createdAt":1}"#[..],
            br#"{"type":"session","id":"c","timestamp":"t","createdAt":null}"#,
            br#"{"type":"session","id":"c"}"#,
            br#"{"type":"session","id":"c","timestamp":5}"#,
        ] {
            assert!(matches!(
                first(hydra),
                First::Session {
                    pi_shaped: false,
                    ..
                }
            ));
            assert!(!is_pi_header(hydra));
        }
        for other in [
            &br#"{"type":"session","id":5,"timestamp":"t"}"#[..],
            br#"{"type":"message","id":"c","timestamp":"t"}"#,
            b"[1]",
            b"nope",
            b"",
        ] {
            assert_eq!(first(other), First::Other);
        }
    }

    #[test]
    fn entries_by_their_type() {
        let user = br#"{"type":"message","id":"1","parentId":null,"timestamp":"2025-01-02T03:04:05Z","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"b"}]}}"#;
        let Line::Entry(e) = parse(user) else {
            panic!("entry")
        };
        assert_eq!(e.kind, Kind::Message(Role::User, "a\nb".into()));
        assert_eq!(e.id.as_deref(), Some("1"));
        assert_eq!(e.parent_id, None);
        assert!(e.timestamp.is_some());
        let assistant = br#"{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"done"},{"type":"toolCall","name":"bash"}]}}"#;
        assert!(
            matches!(parse(assistant), Line::Entry(Entry { kind: Kind::Message(Role::Assistant, t), .. }) if t == "done")
        );
        for silent in [
            &br#"{"type":"message","message":{"role":"assistant","content":"plain"}}"#[..],
            br#"{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"out"}]}}"#,
            br#"{"type":"message","message":{"role":"bashExecution","command":"ls"}}"#,
            br#"{"type":"message","message":{"role":"user","content":"  "}}"#,
            br#"{"type":"custom_message","content":"x"}"#,
            br#"{"type":"branch_summary","summary":"s"}"#,
            br#"{"type":"session_info","name":"  "}"#,
            br#"{"type":"later_kind"}"#,
        ] {
            assert!(
                matches!(parse(silent), Line::Entry(Entry { kind: Kind::Silent, .. })),
                "{}",
                String::from_utf8_lossy(silent)
            );
        }
        assert!(
            matches!(parse(br#"{"type":"session_info","name":" Fix it "}"#), Line::Entry(Entry { kind: Kind::Name(n), .. }) if n == "Fix it")
        );
        assert!(matches!(
            parse(br#"{"type":"compaction","summary":"s","firstKeptEntryIndex":3}"#),
            Line::Entry(Entry {
                kind: Kind::Compaction {
                    first_kept_index: Some(3),
                    first_kept_id: None,
                    ..
                },
                ..
            })
        ));
        assert_eq!(parse(b"  "), Line::Blank);
        assert_eq!(parse(b"[1]"), Line::NotAnEntry);
        assert_eq!(parse(br#"{"type":5}"#), Line::NotAnEntry);
        assert_eq!(parse(b"{nope"), Line::NotJson);
    }
}
