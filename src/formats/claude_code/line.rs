//! One Claude Code transcript line → one borrowed record.
//!
//! Lenient by design (agent-logs.md "Stores and formats"): a field of the
//! wrong type reads as absent, never as an error. Only a line that is not
//! JSON, or not an object, is "not understood". Fields are parsed in one
//! pass whatever their order (writers put `message` before `type` on
//! assistant lines), so `message.content` is parsed without knowing the
//! line's type. Strings without escapes are borrowed, and everything
//! nobody reads (tool inputs, tool results, thinking) is skipped with
//! `IgnoredAny`.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use crate::formats::toolkit::lenient::{other_scalars, Loose};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The line types this reader tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    User,
    Assistant,
    System,
    CustomTitle,
    AiTitle,
    /// Known types that carry nothing projected, and unknown ones.
    #[default]
    Other,
}

/// The line types agent-logs.md lists: a first line of one of them marks a
/// Claude Code transcript even without a `sessionId`.
pub const KNOWN_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "ai-title",
    "custom-title",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "progress",
];

/// One content block of `message.content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block<'a> {
    /// A `text` block; the text only when the caller asked for texts.
    Text(Option<Cow<'a, str>>),
    ToolUse {
        id: Option<Cow<'a, str>>,
        name: Option<Cow<'a, str>>,
        description: Option<Cow<'a, str>>,
        prompt: Option<Cow<'a, str>>,
    },
    ToolResult {
        tool_use_id: Option<Cow<'a, str>>,
    },
    /// `thinking`, `image`, unknown blocks and non-objects.
    Other,
}

/// `message.content`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Content<'a> {
    #[default]
    None,
    /// A string content; `None` inside when texts were not asked for.
    Str(Option<Cow<'a, str>>),
    Blocks(Vec<Block<'a>>),
}

/// One transcript line: the fields this reader uses, each `None`/`false`
/// when absent or of the wrong type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line<'a> {
    pub kind: Kind,
    /// `system` with `subtype: "compact_boundary"`.
    pub compact_boundary: bool,
    pub uuid: Option<Cow<'a, str>>,
    pub parent_uuid: Option<Cow<'a, str>>,
    pub logical_parent_uuid: Option<Cow<'a, str>>,
    pub session_id: Option<Cow<'a, str>>,
    pub agent_id: Option<Cow<'a, str>>,
    pub timestamp: Option<Cow<'a, str>>,
    pub cwd: Option<Cow<'a, str>>,
    pub is_sidechain: bool,
    pub is_meta: bool,
    pub is_compact_summary: bool,
    pub custom_title: Option<Cow<'a, str>>,
    pub ai_title: Option<Cow<'a, str>>,
    pub message_id: Option<Cow<'a, str>>,
    pub content: Content<'a>,
    /// `toolUseResult.agentId` (a Task result names the sub-agent it ran).
    pub result_agent_id: Option<Cow<'a, str>>,
}

impl Line<'_> {
    /// Whether the line has any text to project: a string content or a
    /// `text` block (whatever the pass asked for).
    pub fn has_text(&self) -> bool {
        match &self.content {
            Content::Str(_) => true,
            Content::Blocks(blocks) => blocks.iter().any(|b| matches!(b, Block::Text(_))),
            Content::None => false,
        }
    }
}

/// Parses one line. `texts`: whether text blocks and string contents keep
/// their text (unescaping costs a copy; a pass that needs no text skips
/// it). `Err` when the line is not a JSON object.
pub fn parse(text: &str, texts: bool) -> Result<Line<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let line = LineSeed { texts }.deserialize(&mut de)?;
    de.end()?;
    Ok(line)
}

/// Whether `line` can be the first line of a Claude Code transcript: a JSON
/// object with a string `sessionId`, or with one of the listed types.
pub fn recognizes(line: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    parse(text, false).is_ok_and(|l| l.session_id.is_some() || l.kind != Kind::Other)
        || probe_known_type(text)
}

/// Whether the line's `type` is one of the listed types that this reader
/// otherwise folds into [`Kind::Other`].
fn probe_known_type(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Loose<'a>,
    }
    serde_json::from_str::<Probe>(text)
        .is_ok_and(|p| matches!(p.kind, Loose::Str(k) if KNOWN_TYPES.contains(&k.as_ref())))
}

struct LineSeed {
    texts: bool,
}

impl<'de> DeserializeSeed<'de> for LineSeed {
    type Value = Line<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Line<'de>, D::Error> {
        struct LineVisitor {
            texts: bool,
        }
        impl<'de> Visitor<'de> for LineVisitor {
            type Value = Line<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a transcript line object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'de>, A::Error> {
                let mut line = Line::default();
                let mut subtype = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "type" => {
                            line.kind = match map.next_value::<Loose>()? {
                                Loose::Str(t) => match t.as_ref() {
                                    "user" => Kind::User,
                                    "assistant" => Kind::Assistant,
                                    "system" => Kind::System,
                                    "custom-title" => Kind::CustomTitle,
                                    "ai-title" => Kind::AiTitle,
                                    _ => Kind::Other,
                                },
                                _ => Kind::Other,
                            }
                        }
                        "subtype" => subtype = map.next_value::<Loose>()?.into_str(),
                        "uuid" => line.uuid = map.next_value::<Loose>()?.into_str(),
                        "parentUuid" => line.parent_uuid = map.next_value::<Loose>()?.into_str(),
                        "logicalParentUuid" => {
                            line.logical_parent_uuid = map.next_value::<Loose>()?.into_str()
                        }
                        "sessionId" => line.session_id = map.next_value::<Loose>()?.into_str(),
                        "agentId" => line.agent_id = map.next_value::<Loose>()?.into_str(),
                        "timestamp" => line.timestamp = map.next_value::<Loose>()?.into_str(),
                        "cwd" => line.cwd = map.next_value::<Loose>()?.into_str(),
                        "isSidechain" => line.is_sidechain = map.next_value::<Loose>()?.is_true(),
                        "isMeta" => line.is_meta = map.next_value::<Loose>()?.is_true(),
                        "isCompactSummary" => {
                            line.is_compact_summary = map.next_value::<Loose>()?.is_true()
                        }
                        "customTitle" => line.custom_title = map.next_value::<Loose>()?.into_str(),
                        "aiTitle" => line.ai_title = map.next_value::<Loose>()?.into_str(),
                        "message" => {
                            let m = map.next_value_seed(MessageSeed { texts: self.texts })?;
                            line.message_id = m.id;
                            line.content = m.content;
                        }
                        "toolUseResult" => {
                            line.result_agent_id = map.next_value::<AgentIdOf>()?.0;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                line.compact_boundary =
                    line.kind == Kind::System && subtype.as_deref() == Some("compact_boundary");
                Ok(line)
            }
        }
        d.deserialize_map(LineVisitor { texts: self.texts })
    }
}

#[derive(Default)]
struct Message<'a> {
    id: Option<Cow<'a, str>>,
    content: Content<'a>,
}

struct MessageSeed {
    texts: bool,
}

impl<'de> DeserializeSeed<'de> for MessageSeed {
    type Value = Message<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Message<'de>, D::Error> {
        struct MessageVisitor {
            texts: bool,
        }
        impl<'de> Visitor<'de> for MessageVisitor {
            type Value = Message<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message<'de>, A::Error> {
                let mut message = Message::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "id" => message.id = map.next_value::<Loose>()?.into_str(),
                        "content" => {
                            message.content =
                                map.next_value_seed(ContentSeed { texts: self.texts })?
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(message)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Message<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Message::default())
            }
            other_scalars!(Message<'de>, Message::default(), str);
        }
        d.deserialize_any(MessageVisitor { texts: self.texts })
    }
}

struct ContentSeed {
    texts: bool,
}

impl<'de> DeserializeSeed<'de> for ContentSeed {
    type Value = Content<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Content<'de>, D::Error> {
        struct ContentVisitor {
            texts: bool,
        }
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Content<'de>, E> {
                Ok(Content::Str(self.texts.then_some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Content<'de>, E> {
                Ok(Content::Str(self.texts.then(|| Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Content<'de>, E> {
                Ok(Content::Str(self.texts.then_some(Cow::Owned(v))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'de>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element_seed(BlockSeed { texts: self.texts })? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::None)
            }
            other_scalars!(Content<'de>, Content::None);
        }
        d.deserialize_any(ContentVisitor { texts: self.texts })
    }
}

struct BlockSeed {
    texts: bool,
}

impl<'de> DeserializeSeed<'de> for BlockSeed {
    type Value = Block<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Block<'de>, D::Error> {
        struct BlockVisitor {
            texts: bool,
        }
        impl<'de> Visitor<'de> for BlockVisitor {
            type Value = Block<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block<'de>, A::Error> {
                let mut kind = None;
                let mut text = None;
                let mut has_text = false;
                let mut id = None;
                let mut name = None;
                let mut tool_use_id = None;
                let mut input = Input::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "type" => kind = map.next_value::<Loose>()?.into_str(),
                        "text" if self.texts => text = map.next_value::<Loose>()?.into_str(),
                        "text" => has_text = map.next_value::<IsStr>()?.0,
                        "id" => id = map.next_value::<Loose>()?.into_str(),
                        "name" => name = map.next_value::<Loose>()?.into_str(),
                        "tool_use_id" => tool_use_id = map.next_value::<Loose>()?.into_str(),
                        "input" => input = map.next_value::<Input>()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(match kind.as_deref() {
                    Some("text") if self.texts => match text {
                        Some(t) => Block::Text(Some(t)),
                        None => Block::Other,
                    },
                    Some("text") if has_text => Block::Text(None),
                    Some("tool_use") => Block::ToolUse {
                        id,
                        name,
                        description: input.description,
                        prompt: input.prompt,
                    },
                    Some("tool_result") => Block::ToolResult { tool_use_id },
                    _ => Block::Other,
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Block<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Block::Other)
            }
            other_scalars!(Block<'de>, Block::Other, str);
        }
        d.deserialize_any(BlockVisitor { texts: self.texts })
    }
}

/// A `tool_use` input: only `description` and `prompt` (a Task call's).
#[derive(Default)]
struct Input<'a> {
    description: Option<Cow<'a, str>>,
    prompt: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> de::Deserialize<'de> for Input<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InputVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for InputVisitor<'a> {
            type Value = Input<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Input<'a>, A::Error> {
                let mut input = Input::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "description" => input.description = map.next_value::<Loose>()?.into_str(),
                        "prompt" => input.prompt = map.next_value::<Loose>()?.into_str(),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(input)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Input<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Input::default())
            }
            other_scalars!(Input<'a>, Input::default(), str);
        }
        d.deserialize_any(InputVisitor(PhantomData))
    }
}

/// `toolUseResult.agentId`; `toolUseResult` may be a string (an error).
struct AgentIdOf<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> de::Deserialize<'de> for AgentIdOf<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct AgentVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for AgentVisitor<'a> {
            type Value = AgentIdOf<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentIdOf<'a>, A::Error> {
                let mut agent = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "agentId" {
                        agent = map.next_value::<Loose>()?.into_str();
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(AgentIdOf(agent))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AgentIdOf<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AgentIdOf(None))
            }
            other_scalars!(AgentIdOf<'a>, AgentIdOf(None), str);
        }
        d.deserialize_any(AgentVisitor(PhantomData))
    }
}

/// Whether a value is a string, without decoding it.
struct IsStr(bool);

impl<'de> de::Deserialize<'de> for IsStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IsStrVisitor;
        impl<'de> Visitor<'de> for IsStrVisitor {
            type Value = IsStr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, _: &'de str) -> Result<IsStr, E> {
                Ok(IsStr(true))
            }
            fn visit_str<E>(self, _: &str) -> Result<IsStr, E> {
                Ok(IsStr(true))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IsStr, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IsStr(false))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IsStr, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IsStr(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IsStr, E> {
                Ok(IsStr(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<IsStr, E> {
                Ok(IsStr(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<IsStr, E> {
                Ok(IsStr(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<IsStr, E> {
                Ok(IsStr(false))
            }
            fn visit_unit<E>(self) -> Result<IsStr, E> {
                Ok(IsStr(false))
            }
        }
        // `deserialize_ignored_any` would not tell a string apart; `any`
        // with a visitor that ignores the text hands out the borrowed slice
        // without copying when it has no escapes.
        d.deserialize_any(IsStrVisitor)
    }
}

/// `message.content` with its texts, for a format whose lines carry
/// Claude-style content blocks (Cursor's transcripts).
#[derive(Debug, Default)]
pub struct TextContent<'a>(pub Content<'a>);

impl<'de: 'a, 'a> de::Deserialize<'de> for TextContent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ContentSeed { texts: true }.deserialize(d).map(TextContent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_any_order_and_wrong_types_read_as_absent() {
        let line = parse(
            r#"{"message":{"id":"m1","content":[{"type":"text","text":"a\nb"},{"type":"tool_use","id":"t1","name":"Task","input":{"description":"d","prompt":"p"}},{"type":"tool_result","tool_use_id":"t0","content":[{"type":"text","text":"x"}]},{"type":"thinking","thinking":"…"},5,[1]]},"type":"assistant","uuid":"u","parentUuid":null,"isSidechain":"yes","sessionId":7,"toolUseResult":"Error"}"#,
            true,
        )
        .expect("an object");
        assert_eq!(line.kind, Kind::Assistant);
        assert_eq!(line.uuid.as_deref(), Some("u"));
        assert_eq!(line.parent_uuid, None);
        assert!(!line.is_sidechain);
        assert_eq!(line.session_id, None);
        assert_eq!(line.message_id.as_deref(), Some("m1"));
        let Content::Blocks(blocks) = &line.content else {
            panic!("blocks")
        };
        assert_eq!(blocks[0], Block::Text(Some(Cow::Borrowed("a\nb"))));
        assert!(
            matches!(&blocks[1], Block::ToolUse { name: Some(n), description: Some(d), .. } if n == "Task" && d == "d")
        );
        assert!(matches!(&blocks[2], Block::ToolResult { tool_use_id: Some(t) } if t == "t0"));
        assert_eq!(&blocks[3..], &[Block::Other, Block::Other, Block::Other]);
    }

    #[test]
    fn without_texts_text_blocks_are_only_marked() {
        let line = parse(
            r#"{"type":"user","message":{"content":[{"type":"text","text":"hi"},{"type":"text","text":3}]}}"#,
            false,
        )
        .expect("an object");
        assert_eq!(
            line.content,
            Content::Blocks(vec![Block::Text(None), Block::Other])
        );
        let line = parse(r#"{"type":"user","message":{"content":"hi"}}"#, false).expect("object");
        assert_eq!(line.content, Content::Str(None));
    }

    #[test]
    fn non_objects_and_bad_json_are_errors() {
        for bad in ["[1]", "5", "\"x\"", "{", "{} {}", "null", ""] {
            assert!(parse(bad, true).is_err(), "{bad}");
        }
        for wrong in [
            r#"{"message":5,"toolUseResult":[1],"type":{}}"#,
            r#"{"message":{"content":{"a":1},"id":[]}}"#,
            r#"{"message":[{"content":"x"}]}"#,
        ] {
            assert!(parse(wrong, true).is_ok(), "{wrong}");
        }
    }

    #[test]
    fn recognition() {
        assert!(recognizes(
            br#"{"type":"file-history-snapshot","messageId":"x"}"#
        ));
        assert!(recognizes(
            br#"{"type":"summary","summary":"s","leafUuid":"l"}"#
        ));
        assert!(recognizes(br#"{"sessionId":"s","type":"whatever"}"#));
        assert!(!recognizes(br#"{"type":"session","id":"s","createdAt":1}"#));
        assert!(!recognizes(
            br#"{"timestamp":"t","type":"session_meta","payload":{}}"#
        ));
        assert!(!recognizes(b"not json"));
        assert!(!recognizes(b"{\"sessionId\":\"\xff\"}"));
    }
}
