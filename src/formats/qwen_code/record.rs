//! One line of a Qwen Code chat file, a `ChatRecord`
//! (agent-logs-files-3.md "Qwen Code"), read leniently: a field of the
//! wrong type reads as absent; what no rule reads is skipped unbuilt.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

use crate::formats::toolkit::lenient::{other_scalars, Loose, Object, Shape};

/// A record's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Assistant,
    ToolResult,
    System,
    /// Another string: a record that takes part in the chain, nothing more.
    Other,
}

/// A genai `Content`'s `role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentRole {
    User,
    Model,
    Other,
}

/// A list of values, each read as `T`; any other shape reads as `None`.
#[derive(Debug)]
struct List<T>(Option<Vec<T>>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ListVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<T>()? {
                    items.push(item);
                }
                Ok(List(Some(items)))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<List<T>, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(List(None))
            }
            other_scalars!(List<T>, List(None), str);
        }
        d.deserialize_any(ListVisitor(PhantomData))
    }
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct RawPart<'a> {
    #[serde(borrow)]
    text: Loose<'a>,
    thought: Loose<'a>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct RawContent<'a> {
    #[serde(borrow)]
    role: Loose<'a>,
    #[serde(borrow)]
    parts: List<Shape<RawPart<'a>>>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct RawPayload<'a> {
    #[serde(rename = "compressedHistory", borrow)]
    compressed_history: List<Shape<RawContent<'a>>>,
    #[serde(rename = "customTitle", borrow)]
    custom_title: Loose<'a>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct RawRecord<'a> {
    #[serde(borrow)]
    uuid: Loose<'a>,
    #[serde(rename = "parentUuid", borrow)]
    parent_uuid: Loose<'a>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Loose<'a>,
    #[serde(borrow)]
    timestamp: Loose<'a>,
    #[serde(rename = "type", borrow)]
    kind: Loose<'a>,
    #[serde(borrow)]
    subtype: Loose<'a>,
    #[serde(borrow)]
    cwd: Loose<'a>,
    #[serde(borrow)]
    message: Shape<RawContent<'a>>,
    #[serde(rename = "systemPayload", borrow)]
    system_payload: Shape<RawPayload<'a>>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Loose<'a>,
    #[serde(rename = "contextWindowSize")]
    context_window_size: Loose<'a>,
}

/// One record, the fields the session's rules read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    pub uuid: Cow<'a, str>,
    pub parent_uuid: Option<Cow<'a, str>>,
    pub session_id: Option<Cow<'a, str>>,
    /// `timestamp`, when it parses.
    pub timestamp: Option<u64>,
    pub kind: Kind,
    pub subtype: Option<Cow<'a, str>>,
    pub cwd: Option<Cow<'a, str>>,
    /// The text of `message.parts` (genai rule), `None` without a `message`
    /// holding an array `parts`.
    pub text: Option<String>,
    pub has_payload: bool,
    /// `systemPayload.compressedHistory` when an array: each `Content`'s
    /// role and text.
    pub compressed: Option<Vec<(ContentRole, String)>>,
    /// `systemPayload.customTitle`, trimmed, when not empty.
    pub custom_title: Option<String>,
    pub is_sidechain: bool,
    /// `contextWindowSize` when a whole number ≥ 1.
    pub context_window: Option<u64>,
}

/// What a line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    Record(Box<Record<'a>>),
    /// White space only: ignored, not counted as skipped.
    Blank,
    /// Not an object with a string `uuid` and a string `type`: skipped and
    /// counted.
    NotARecord,
}

/// The text of a `Content`'s parts: every string `text` of a part without
/// `thought: true`, concatenated without separator.
fn parts_text(parts: Vec<Shape<RawPart<'_>>>) -> String {
    let mut text = String::new();
    for part in parts {
        if let Shape::Map(RawPart {
            text: Loose::Str(t),
            thought,
        }) = part
        {
            if !thought.is_true() {
                text.push_str(&t);
            }
        }
    }
    text
}

/// Reads one line.
pub fn parse(line: &[u8]) -> Line<'_> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    let Ok(Object(raw)) = serde_json::from_slice::<Object<RawRecord<'_>>>(line) else {
        return Line::NotARecord;
    };
    let (Loose::Str(uuid), Loose::Str(kind)) = (raw.uuid, raw.kind) else {
        return Line::NotARecord;
    };
    let kind = match kind.as_ref() {
        "user" => Kind::User,
        "assistant" => Kind::Assistant,
        "tool_result" => Kind::ToolResult,
        "system" => Kind::System,
        _ => Kind::Other,
    };
    let text = match raw.message {
        Shape::Map(RawContent {
            parts: List(Some(parts)),
            ..
        }) => Some(parts_text(parts)),
        _ => None,
    };
    let (has_payload, compressed, custom_title) = match raw.system_payload {
        Shape::Map(payload) => (
            true,
            payload.compressed_history.0.map(|history| {
                history
                    .into_iter()
                    .map(|content| match content {
                        Shape::Map(c) => {
                            let role = match c.role.into_str().as_deref() {
                                Some("user") => ContentRole::User,
                                Some("model") => ContentRole::Model,
                                _ => ContentRole::Other,
                            };
                            (role, c.parts.0.map(parts_text).unwrap_or_default())
                        }
                        _ => (ContentRole::Other, String::new()),
                    })
                    .collect()
            }),
            payload
                .custom_title
                .into_str()
                .as_deref()
                .and_then(crate::formats::text::given_title),
        ),
        _ => (false, None, None),
    };
    Line::Record(Box::new(Record {
        uuid,
        parent_uuid: raw.parent_uuid.into_str(),
        session_id: raw.session_id.into_str(),
        timestamp: raw
            .timestamp
            .into_str()
            .and_then(|t| crate::formats::text::parse_timestamp(&t)),
        kind,
        subtype: raw.subtype.into_str(),
        cwd: raw.cwd.into_str().filter(|c| !c.is_empty()),
        text,
        has_payload,
        compressed,
        custom_title,
        is_sidechain: raw.is_sidechain.is_true(),
        context_window: raw.context_window_size.whole().filter(|&w| w >= 1),
    }))
}

/// Rule (6a): a string `uuid`, a string `sessionId`, `type` one of `user`,
/// `assistant`, `tool_result`, `system`, and at least one of: `type` is
/// `tool_result`; an object `message` holding an array `parts`; an object
/// `systemPayload`.
pub fn is_first_record(line: &[u8]) -> bool {
    let Line::Record(r) = parse(line) else {
        return false;
    };
    r.session_id.is_some()
        && r.kind != Kind::Other
        && (r.kind == Kind::ToolResult || r.text.is_some() || r.has_payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_by_their_shape() {
        let user = br#"{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-05-01T10:00:00.000Z","type":"user","cwd":"/w","version":"0.9","message":{"role":"user","parts":[{"text":"a"},{"text":"hidden","thought":true},{"functionCall":{}},{"text":"b"}]}}"#;
        let Line::Record(r) = parse(user) else {
            panic!("record")
        };
        assert_eq!(r.text.as_deref(), Some("ab"));
        assert_eq!(r.kind, Kind::User);
        assert_eq!(r.parent_uuid, None);
        assert_eq!(r.cwd.as_deref(), Some("/w"));
        assert!(is_first_record(user));
        let compression = br#"{"uuid":"c","sessionId":"s","type":"system","subtype":"chat_compression","systemPayload":{"info":{},"compressedHistory":[{"role":"user","parts":[{"text":"sum"}]},{"role":"model","parts":[{"text":"ok"}]},5]}}"#;
        let Line::Record(r) = parse(compression) else {
            panic!("record")
        };
        assert_eq!(
            r.compressed,
            Some(vec![
                (ContentRole::User, "sum".into()),
                (ContentRole::Model, "ok".into()),
                (ContentRole::Other, String::new())
            ])
        );
        assert!(is_first_record(compression));
        assert!(is_first_record(
            br#"{"uuid":"t","sessionId":"s","type":"tool_result"}"#
        ));
        // Claude Code's lines: `message.content`, not `parts`.
        for not_first in [
            &br#"{"uuid":"u","sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#[..],
            br#"{"uuid":"u","sessionId":"s","type":"assistant"}"#,
            br#"{"uuid":"u","type":"user","message":{"parts":[]}}"#,
            br#"{"uuid":"u","sessionId":"s","type":"summary","systemPayload":{}}"#,
            br#"{"uuid":5,"sessionId":"s","type":"tool_result"}"#,
        ] {
            assert!(!is_first_record(not_first), "{}", String::from_utf8_lossy(not_first));
        }
        assert_eq!(parse(b" "), Line::Blank);
        for bad in [&b"[1]"[..], b"{}", br#"{"uuid":"u"}"#, b"nope"] {
            assert_eq!(parse(bad), Line::NotARecord);
        }
        let Line::Record(r) = parse(br#"{"uuid":"x","type":"assistant","contextWindowSize":131072,"isSidechain":true,"systemPayload":{"customTitle":" T "}}"#) else {
            panic!("record")
        };
        assert_eq!(
            (r.context_window, r.is_sidechain, r.custom_title.as_deref()),
            (Some(131_072), true, Some("T"))
        );
    }
}
