//! One rollout line → one typed, borrowed record (agent-logs.md "Codex").
//!
//! A line is `{"timestamp", "type", "payload"}`. It is parsed in one pass
//! when `type` comes before `payload` (as Codex writes it): the payload is
//! then read straight into the shape its type needs, and skipped for types
//! nobody reads. Strings without escapes are borrowed, never copied.
//!
//! The reader is lenient: a field this reader uses that holds a JSON type
//! it never has makes the line *not understood* (skipped and counted);
//! `null` counts as absent; unknown types and fields are ignored.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::formats::toolkit::lenient::{Loose, Object, Shape};

/// What one line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    /// `session_meta`.
    Meta(Meta<'a>),
    /// `response_item`.
    Item(Item<'a>),
    /// `compacted`: `message` (empty when absent) and the
    /// `replacement_history`, when there is one.
    Compacted {
        message: Cow<'a, str>,
        history: Option<Vec<Item<'a>>>,
    },
    /// `event_msg` `user_message`.
    UserEvent(Cow<'a, str>),
    /// `event_msg` `agent_message`.
    AgentEvent(Cow<'a, str>),
    /// `event_msg` `thread_name_updated`, with its name if any.
    ThreadName(Option<Cow<'a, str>>),
    /// `event_msg` `token_count` or `task_started`: the model context
    /// window when it is a whole number ≥ 1.
    Window(Option<u64>),
    /// Anything else: understood, nothing to take from it.
    Other,
}

/// A `session_meta` payload: the fields the session takes from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta<'a> {
    /// Never empty.
    pub id: Cow<'a, str>,
    /// `payload.timestamp`.
    pub timestamp: Option<Cow<'a, str>>,
    /// The line's own `timestamp`.
    pub line_timestamp: Option<Cow<'a, str>>,
    pub cwd: Option<Cow<'a, str>>,
    /// Whether `source.subagent` is present.
    pub subagent: bool,
    pub agent_nickname: Option<Cow<'a, str>>,
    pub agent_role: Option<Cow<'a, str>>,
    /// `source.subagent.thread_spawn.agent_nickname`.
    pub spawn_nickname: Option<Cow<'a, str>>,
    /// `source.subagent.thread_spawn.agent_role`.
    pub spawn_role: Option<Cow<'a, str>>,
}

/// A response item, as a line or inside a `replacement_history`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<'a> {
    Message {
        role: Cow<'a, str>,
        blocks: Vec<Block<'a>>,
    },
    /// A `compaction` item: the encrypted summary of a remote compaction.
    Compaction,
    Other,
}

/// A text block of a message's `content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<'a> {
    pub kind: BlockKind,
    pub text: Cow<'a, str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    InputText,
    OutputText,
}

/// Why a line gives nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineError {
    /// Invalid UTF-8: this fails a read.
    NotUtf8,
    /// Not JSON, not an object, no string `type`, or a used field of the
    /// wrong type: skipped and counted.
    NotUnderstood,
}

/// Parses one complete line (without its line end).
pub fn parse_line(raw: &[u8]) -> Result<Line<'_>, LineError> {
    // Logs are mostly non-ASCII-heavy text: the SIMD validator is several
    // times faster than `std::str::from_utf8` there.
    let text = simdutf8::basic::from_utf8(raw).map_err(|_| LineError::NotUtf8)?;
    let outer: Outer = serde_json::from_str(text).map_err(|_| LineError::NotUnderstood)?;
    let Loose::Str(kind) = outer.kind else {
        return Err(LineError::NotUnderstood);
    };
    let payload = match outer.payload {
        PayloadState::Parsed(p) => p,
        PayloadState::Raw(raw) => {
            let mut de = serde_json::Deserializer::from_str(raw.get());
            PayloadSeed(&kind)
                .deserialize(&mut de)
                .map_err(|_| LineError::NotUnderstood)?
        }
        PayloadState::Missing => Payload::Missing,
    };
    finish(&kind, payload, outer.timestamp)
}

/// Whether `raw` is a `session_meta` line (for format detection): only
/// the outer `type` is looked at.
pub fn is_session_meta(raw: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Loose<'a>,
    }
    serde_json::from_slice::<Object<Probe>>(raw)
        .is_ok_and(|p| matches!(p.0.kind, Loose::Str(k) if k == "session_meta"))
}

/// Builds the line from its parsed payload.
fn finish<'a>(
    kind: &str,
    payload: Payload<'a>,
    line_timestamp: Loose<'a>,
) -> Result<Line<'a>, LineError> {
    let bad = LineError::NotUnderstood;
    Ok(match payload {
        Payload::Ignored => Line::Other,
        // A known type needs its payload.
        Payload::Missing if is_known(kind) => return Err(bad),
        Payload::Missing => Line::Other,
        Payload::Meta(meta) => {
            let Loose::Str(id) = meta.id else {
                return Err(bad);
            };
            if id.is_empty() {
                return Err(bad);
            }
            let (subagent, spawn_nickname, spawn_role) = match meta.source.kind() {
                SourceKind::Subagent { nickname, role } => (true, nickname, role),
                SourceKind::Other => (false, None, None),
            };
            Line::Meta(Meta {
                id,
                timestamp: meta.timestamp.into_str(),
                line_timestamp: line_timestamp.into_str(),
                cwd: meta.cwd.into_str(),
                subagent,
                agent_nickname: meta.agent_nickname.into_str(),
                agent_role: meta.agent_role.into_str(),
                spawn_nickname,
                spawn_role,
            })
        }
        Payload::Item(ParsedItem::Item(item)) => Line::Item(item),
        Payload::Item(ParsedItem::Malformed) => return Err(bad),
        Payload::Compacted(c) => {
            let message = match c.message {
                Loose::Str(m) => m,
                Loose::Null => Cow::Borrowed(""),
                _ => return Err(bad),
            };
            let history = match c.replacement_history {
                History::Absent => None,
                History::Items(items) => Some(
                    items
                        .into_iter()
                        .filter_map(|i| match i {
                            ParsedItem::Item(item) => Some(item),
                            // One bad item does not hide the checkpoint.
                            ParsedItem::Malformed => None,
                        })
                        .collect(),
                ),
                History::Wrong => return Err(bad),
            };
            Line::Compacted { message, history }
        }
        Payload::Event(e) => event_line(e)?,
    })
}

fn is_known(kind: &str) -> bool {
    matches!(
        kind,
        "session_meta" | "response_item" | "compacted" | "event_msg"
    )
}

fn event_line(e: EventPayload<'_>) -> Result<Line<'_>, LineError> {
    let bad = LineError::NotUnderstood;
    let Loose::Str(kind) = e.kind else {
        return Err(bad);
    };
    Ok(match kind.as_ref() {
        "user_message" | "agent_message" => {
            let Loose::Str(message) = e.message else {
                return Err(bad);
            };
            if kind == "user_message" {
                Line::UserEvent(message)
            } else {
                Line::AgentEvent(message)
            }
        }
        "thread_name_updated" => match e.thread_name {
            Loose::Str(name) => Line::ThreadName(Some(name)),
            Loose::Null => Line::ThreadName(None),
            _ => return Err(bad),
        },
        "token_count" => match e.info {
            Info::Absent => Line::Window(None),
            Info::Window(w) => Line::Window(window(w)?),
            Info::Wrong => return Err(bad),
        },
        "task_started" => Line::Window(window(e.model_context_window)?),
        _ => Line::Other,
    })
}

/// A context window: a whole number ≥ 1; other numbers are no window, and
/// anything but a number is the wrong type.
fn window(value: Loose<'_>) -> Result<Option<u64>, LineError> {
    match value {
        Loose::Int(w) | Loose::WholeFloat(w) => Ok((w >= 1).then_some(w)),
        Loose::Number | Loose::Null => Ok(None),
        Loose::Str(_) | Loose::Bool(_) | Loose::Other => Err(LineError::NotUnderstood),
    }
}

// ---------------------------------------------------------------------------
// Raw shapes.

/// The outer object, with its payload parsed as soon as its type is known.
struct Outer<'a> {
    kind: Loose<'a>,
    timestamp: Loose<'a>,
    payload: PayloadState<'a>,
}

enum PayloadState<'a> {
    Missing,
    /// `payload` came before `type`: parsed once the type is known.
    Raw(&'a RawValue),
    Parsed(Payload<'a>),
}

enum Payload<'a> {
    Missing,
    Ignored,
    Meta(MetaPayload<'a>),
    Item(ParsedItem<'a>),
    Compacted(CompactedPayload<'a>),
    Event(EventPayload<'a>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Outer<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct OuterVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for OuterVisitor<'a> {
            type Value = Outer<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a rollout line object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outer<'a>, A::Error> {
                let mut outer = Outer {
                    kind: Loose::Null,
                    timestamp: Loose::Null,
                    payload: PayloadState::Missing,
                };
                let mut seen_type = false;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        // A repeated `type` or `payload` is not understood:
                        // the payload may already be read for the first type.
                        "type" if seen_type => return Err(de::Error::duplicate_field("type")),
                        "payload" if !matches!(outer.payload, PayloadState::Missing) => {
                            return Err(de::Error::duplicate_field("payload"))
                        }
                        "type" => {
                            seen_type = true;
                            outer.kind = map.next_value()?;
                        }
                        "payload" => {
                            outer.payload = match &outer.kind {
                                Loose::Str(kind) => {
                                    PayloadState::Parsed(map.next_value_seed(PayloadSeed(kind))?)
                                }
                                _ if seen_type => {
                                    // Not a string type: the line is not
                                    // understood whatever the payload.
                                    map.next_value::<IgnoredAny>()?;
                                    PayloadState::Parsed(Payload::Ignored)
                                }
                                _ => PayloadState::Raw(map.next_value()?),
                            }
                        }
                        "timestamp" => outer.timestamp = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(outer)
            }
        }
        d.deserialize_map(OuterVisitor(PhantomData))
    }
}

/// Reads a payload for a line of the given type.
struct PayloadSeed<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for PayloadSeed<'_> {
    type Value = Payload<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Payload<'de>, D::Error> {
        Ok(match self.0 {
            "session_meta" => Payload::Meta(Object::<MetaPayload>::deserialize(d)?.0),
            "response_item" => Payload::Item(Object::<RawItem>::deserialize(d)?.0.parse()),
            "compacted" => Payload::Compacted(Object::<CompactedPayload>::deserialize(d)?.0),
            "event_msg" => Payload::Event(Object::<EventPayload>::deserialize(d)?.0),
            _ => {
                IgnoredAny::deserialize(d)?;
                Payload::Ignored
            }
        })
    }
}

#[derive(Deserialize)]
struct MetaPayload<'a> {
    #[serde(borrow, default)]
    id: Loose<'a>,
    #[serde(borrow, default)]
    timestamp: Loose<'a>,
    #[serde(borrow, default)]
    cwd: Loose<'a>,
    #[serde(borrow, default)]
    source: Shape<RawSource<'a>>,
    #[serde(borrow, default)]
    agent_nickname: Loose<'a>,
    #[serde(borrow, default)]
    agent_role: Loose<'a>,
}

/// `session_meta.source` as an object; a string (`cli`, `vscode`, …) or
/// a shape this reader does not know is not a sub-agent (new sources
/// appear between versions).
#[derive(Deserialize)]
struct RawSource<'a> {
    #[serde(borrow, default)]
    subagent: Shape<RawSubagent<'a>>,
}

/// `source.subagent` as an object (it may also be a string such as
/// `review`).
#[derive(Deserialize)]
struct RawSubagent<'a> {
    #[serde(borrow, default)]
    thread_spawn: Shape<RawSpawn<'a>>,
}

#[derive(Deserialize)]
struct RawSpawn<'a> {
    #[serde(borrow, default)]
    agent_nickname: Loose<'a>,
    #[serde(borrow, default)]
    agent_role: Loose<'a>,
}

/// What `session_meta.source` says about sub-agents.
enum SourceKind<'a> {
    Other,
    Subagent {
        nickname: Option<Cow<'a, str>>,
        role: Option<Cow<'a, str>>,
    },
}

impl<'a> Shape<RawSource<'a>> {
    fn kind(self) -> SourceKind<'a> {
        let Shape::Map(source) = self else {
            return SourceKind::Other;
        };
        match source.subagent {
            Shape::Null => SourceKind::Other,
            Shape::Map(RawSubagent {
                thread_spawn: Shape::Map(spawn),
            }) => SourceKind::Subagent {
                nickname: spawn.agent_nickname.into_str(),
                role: spawn.agent_role.into_str(),
            },
            _ => SourceKind::Subagent {
                nickname: None,
                role: None,
            },
        }
    }
}

#[derive(Deserialize)]
struct CompactedPayload<'a> {
    #[serde(borrow, default)]
    message: Loose<'a>,
    #[serde(borrow, default)]
    replacement_history: History<'a>,
}

/// `replacement_history`: absent (or `null`), a list, or the wrong type.
#[derive(Default)]
enum History<'a> {
    #[default]
    Absent,
    Items(Vec<ParsedItem<'a>>),
    Wrong,
}

impl<'de: 'a, 'a> Deserialize<'de> for History<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct HistoryVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for HistoryVisitor<'a> {
            type Value = History<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of response items")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<History<'a>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<RawItem>()? {
                    items.push(item.parse());
                }
                Ok(History::Items(items))
            }
            fn visit_unit<E>(self) -> Result<History<'a>, E> {
                Ok(History::Absent)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<History<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(History::Wrong)
            }
            fn visit_str<E>(self, _: &str) -> Result<History<'a>, E> {
                Ok(History::Wrong)
            }
            fn visit_bool<E>(self, _: bool) -> Result<History<'a>, E> {
                Ok(History::Wrong)
            }
            fn visit_u64<E>(self, _: u64) -> Result<History<'a>, E> {
                Ok(History::Wrong)
            }
            fn visit_i64<E>(self, _: i64) -> Result<History<'a>, E> {
                Ok(History::Wrong)
            }
            fn visit_f64<E>(self, _: f64) -> Result<History<'a>, E> {
                Ok(History::Wrong)
            }
        }
        d.deserialize_any(HistoryVisitor(PhantomData))
    }
}

/// A response item as written; any JSON value is accepted (a list element
/// that is not an object is an unknown item).
#[derive(Default)]
struct RawItem<'a> {
    kind: Loose<'a>,
    role: Loose<'a>,
    content: Content<'a>,
}

/// An item that is a message whose `role` or `content` has the wrong type.
enum ParsedItem<'a> {
    Item(Item<'a>),
    Malformed,
}

impl<'a> RawItem<'a> {
    fn parse(self) -> ParsedItem<'a> {
        let Loose::Str(kind) = self.kind else {
            return ParsedItem::Item(Item::Other);
        };
        match kind.as_ref() {
            "message" => match (self.role, self.content) {
                (Loose::Str(role), Content::Blocks(blocks)) => {
                    ParsedItem::Item(Item::Message { role, blocks })
                }
                (Loose::Str(role), Content::Absent) => ParsedItem::Item(Item::Message {
                    role,
                    blocks: Vec::new(),
                }),
                _ => ParsedItem::Malformed,
            },
            "compaction" => ParsedItem::Item(Item::Compaction),
            _ => ParsedItem::Item(Item::Other),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawItem<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ItemVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for ItemVisitor<'a> {
            type Value = RawItem<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a response item")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawItem<'a>, A::Error> {
                let mut item = RawItem::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "type" => item.kind = map.next_value()?,
                        "role" => item.role = map.next_value()?,
                        // Only messages' content is read: other items
                        // (reasoning, tool output) can be large.
                        "content" if matches!(&item.kind, Loose::Str(k) if k != "message") => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        "content" => item.content = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(item)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawItem<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(RawItem::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<RawItem<'a>, E> {
                Ok(RawItem::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<RawItem<'a>, E> {
                Ok(RawItem::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<RawItem<'a>, E> {
                Ok(RawItem::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<RawItem<'a>, E> {
                Ok(RawItem::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<RawItem<'a>, E> {
                Ok(RawItem::default())
            }
            fn visit_unit<E>(self) -> Result<RawItem<'a>, E> {
                Ok(RawItem::default())
            }
        }
        d.deserialize_any(ItemVisitor(PhantomData))
    }
}

/// A message's `content`: its `input_text`/`output_text` blocks with a
/// string `text`; other elements are ignored, never validated.
#[derive(Default)]
enum Content<'a> {
    #[default]
    Absent,
    Blocks(Vec<Block<'a>>),
    Wrong,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContentVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of content blocks")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(element) = seq.next_element::<Shape<RawBlock>>()? {
                    let Shape::Map(RawBlock {
                        kind: Loose::Str(kind),
                        text: Loose::Str(text),
                    }) = element
                    else {
                        continue;
                    };
                    let kind = match kind.as_ref() {
                        "input_text" => BlockKind::InputText,
                        "output_text" => BlockKind::OutputText,
                        _ => continue,
                    };
                    blocks.push(Block { kind, text });
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_unit<E>(self) -> Result<Content<'a>, E> {
                Ok(Content::Absent)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Wrong)
            }
            fn visit_str<E>(self, _: &str) -> Result<Content<'a>, E> {
                Ok(Content::Wrong)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Content<'a>, E> {
                Ok(Content::Wrong)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Content<'a>, E> {
                Ok(Content::Wrong)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Content<'a>, E> {
                Ok(Content::Wrong)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Content<'a>, E> {
                Ok(Content::Wrong)
            }
        }
        d.deserialize_any(ContentVisitor(PhantomData))
    }
}

#[derive(Deserialize)]
struct RawBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Loose<'a>,
    #[serde(borrow, default)]
    text: Loose<'a>,
}

/// An `event_msg` payload: the fields of the event types read here.
#[derive(Deserialize)]
struct EventPayload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Loose<'a>,
    #[serde(borrow, default)]
    message: Loose<'a>,
    #[serde(borrow, default)]
    thread_name: Loose<'a>,
    #[serde(borrow, default)]
    info: Info<'a>,
    #[serde(borrow, default)]
    model_context_window: Loose<'a>,
}

/// `token_count.info`: usually `null` on a session's first count.
#[derive(Default)]
enum Info<'a> {
    #[default]
    Absent,
    Window(Loose<'a>),
    Wrong,
}

impl<'de: 'a, 'a> Deserialize<'de> for Info<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct RawInfo<'a> {
            #[serde(borrow, default)]
            model_context_window: Loose<'a>,
        }
        Ok(match Shape::<RawInfo>::deserialize(d)? {
            Shape::Null => Info::Absent,
            Shape::Map(info) => Info::Window(info.model_context_window),
            Shape::Str | Shape::Other => Info::Wrong,
        })
    }
}
