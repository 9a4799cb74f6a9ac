//! One log line → one typed, borrowed record (session-log.md "Lines",
//! "Header", "Events").
//!
//! Lines are parsed straight into borrowed structs: strings without escapes
//! are not copied and fields nobody reads are skipped with `IgnoredAny`.
//! Every rule that makes a line invalid is enforced here, so callers only
//! see well-formed events.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::formats::toolkit::lenient::{Loose, Object};
use crate::model::SessionHeader;

pub use crate::model::MAX_SAFE_INTEGER;

/// The marker that makes a `compaction` source a compact checkpoint.
pub const COMPACTION_MARKER: &str = "@hydraharness/harness-compaction";

/// A session log's first line.
pub type Header = SessionHeader;

/// Who wrote a `user/message`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    User,
    Checkpoint {
        through_seq: u64,
    },
    /// Plugins, injected session-reference context, other compaction notes.
    Other,
}

/// One event line, borrowed from the line's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event<'a> {
    pub seq: u64,
    pub body: EventBody<'a>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventBody<'a> {
    UserMessage {
        source: SourceKind,
        texts: Vec<Cow<'a, str>>,
    },
    AssistantMessage {
        texts: Vec<Cow<'a, str>>,
    },
    ToolResult,
    Title(Cow<'a, str>),
    /// `route/assembled`: the model capacity in tokens, `None` when its
    /// `contextWindow` is missing or not a whole number in range.
    Route(Option<u64>),
    /// Deltas and event types this reader does not know.
    Other,
}

/// Why a line is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    NotUtf8,
    InvalidJson,
    NotAnObject,
    /// A required field is missing or of the wrong type.
    Field(&'static str),
    /// A known field has a value of the wrong type.
    WrongType,
    SeqNotIncreasing,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotUtf8 => f.write_str("invalid UTF-8"),
            LineError::InvalidJson => f.write_str("invalid JSON"),
            LineError::NotAnObject => f.write_str("not a JSON object"),
            LineError::Field(what) => write!(f, "missing or invalid {what}"),
            LineError::WrongType => f.write_str("a field has the wrong type"),
            LineError::SeqNotIncreasing => f.write_str("seq is not greater than the one before"),
        }
    }
}

/// Parses line 1.
pub fn parse_header(line: &[u8]) -> Result<Header, LineError> {
    parse_header_with_capacity(line).map(|(header, _)| header)
}

/// Parses line 1, with the capacity its `options.contextWindow` records
/// (session-log.md "Model capacity").
pub fn parse_header_with_capacity(line: &[u8]) -> Result<(Header, Option<u64>), LineError> {
    let text = line_text(line)?;
    let raw: Object<RawHeader> = parse_json(text)?;
    let raw = raw.0;
    if raw.kind.as_deref() != Some("session") {
        return Err(LineError::Field("type \"session\""));
    }
    let id = raw
        .id
        .filter(|id| !id.is_empty())
        .ok_or(LineError::Field("id"))?;
    let created_at = raw.created_at.ok_or(LineError::Field("createdAt"))?;
    let header = Header {
        version: raw.version.map_or(0, |v| v.0),
        id: id.into_owned(),
        created_at: created_at.0,
        cwd: raw.cwd.map(Cow::into_owned),
        label: raw.label.filter(|l| !l.is_empty()).map(Cow::into_owned),
    };
    Ok((header, raw.options.0))
}

/// Parses an event line (not line 1, not empty).
pub fn parse_event(line: &[u8]) -> Result<Event<'_>, LineError> {
    let text = line_text(line)?;
    let raw: RawEvent = parse_json(text)?;
    let seq = raw.seq.ok_or(LineError::Field("seq"))?;
    if seq == 0 {
        return Err(LineError::Field("seq"));
    }
    let kind = raw.kind.ok_or(LineError::Field("type"))?;
    let body = match raw.data {
        Data::Parsed(body) => body,
        Data::Raw(data) => body_from_raw(&kind, Some(data.get()))?,
        Data::Missing => body_from_raw(&kind, None)?,
    };
    Ok(Event { seq, body })
}

/// The body of an event whose `data` came before its `type` (or is absent),
/// parsed in a second pass now that the type is known.
fn body_from_raw<'a>(kind: &str, data: Option<&'a str>) -> Result<EventBody<'a>, LineError> {
    let what = match kind {
        "user/message" => "user/message data",
        "assistant/message" => "assistant/message data",
        "session/title" => "session/title data",
        "route/assembled" => "route/assembled data",
        _ => return Ok(BodySeed(kind).body_without_data()),
    };
    let data = data.ok_or(LineError::Field("data"))?;
    let mut de = serde_json::Deserializer::from_str(data);
    BodySeed(kind)
        .deserialize(&mut de)
        .map_err(|_| LineError::Field(what))
}

fn line_text(line: &[u8]) -> Result<&str, LineError> {
    // Logs are mostly non-ASCII-heavy text: the SIMD validator is several
    // times faster than `std::str::from_utf8` there.
    let text = simdutf8::basic::from_utf8(line).map_err(|_| LineError::NotUtf8)?;
    if crate::model::surrogates::has_lone_surrogate(line) {
        // serde_json skips ignored strings without decoding their escapes,
        // but the contract makes any unpaired surrogate escape invalid.
        return Err(LineError::InvalidJson);
    }
    Ok(text)
}

fn parse_json<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, LineError> {
    serde_json::from_str(text).map_err(|e| {
        if !e.is_data() {
            LineError::InvalidJson
        } else if text
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .starts_with('{')
        {
            LineError::WrongType
        } else {
            LineError::NotAnObject
        }
    })
}

// ---------------------------------------------------------------------------
// Raw shapes. `Object<T>` only accepts a JSON object (serde would otherwise
// also build structs from arrays); `non_null` makes `null` a wrong type for
// optional fields, as the contract says.

#[derive(Deserialize)]
struct RawHeader<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "non_null")]
    kind: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "non_null")]
    version: Option<SafeInt>,
    #[serde(borrow, default, deserialize_with = "non_null")]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "createdAt", default, deserialize_with = "non_null")]
    created_at: Option<SafeInt>,
    #[serde(borrow, default, deserialize_with = "non_null")]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "non_null")]
    label: Option<Cow<'a, str>>,
    /// Not validated: only its `contextWindow` is read.
    #[serde(default)]
    options: HeaderOptions,
}

/// An event line, read in one pass when `type` comes before `data` (as
/// writers put it): `data` is then parsed straight into the body its type
/// needs, and skipped for types that need nothing.
struct RawEvent<'a> {
    seq: Option<u64>,
    kind: Option<Cow<'a, str>>,
    data: Data<'a>,
}

enum Data<'a> {
    Missing,
    /// `data` came before `type`: parsed once the type is known.
    Raw(&'a RawValue),
    Parsed(EventBody<'a>),
}

impl<'de: 'a, 'a> Deserialize<'de> for RawEvent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EventVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for EventVisitor<'a> {
            type Value = RawEvent<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEvent<'a>, A::Error> {
                let mut event = RawEvent {
                    seq: None,
                    kind: None,
                    data: Data::Missing,
                };
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "seq" => event.seq = Some(map.next_value::<SafeInt>()?.0),
                        // A repeated `type` or `data` is rejected: `data` may
                        // already be parsed for the first type.
                        "type" if event.kind.is_some() => {
                            return Err(de::Error::duplicate_field("type"))
                        }
                        "data" if !matches!(event.data, Data::Missing) => {
                            return Err(de::Error::duplicate_field("data"))
                        }
                        "type" => event.kind = Some(map.next_value()?),
                        "data" => {
                            event.data = match &event.kind {
                                Some(kind) => Data::Parsed(map.next_value_seed(BodySeed(kind))?),
                                None => Data::Raw(map.next_value()?),
                            }
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(event)
            }
        }
        d.deserialize_map(EventVisitor(PhantomData))
    }
}

/// Parses `data` for an event of the given type.
struct BodySeed<'k>(&'k str);

impl BodySeed<'_> {
    /// The body of a type that requires no `data`.
    fn body_without_data<'a>(&self) -> EventBody<'a> {
        match self.0 {
            "tool/result" => EventBody::ToolResult,
            _ => EventBody::Other,
        }
    }
}

impl<'de> de::DeserializeSeed<'de> for BodySeed<'_> {
    type Value = EventBody<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<EventBody<'de>, D::Error> {
        Ok(match self.0 {
            "user/message" => {
                let UserData { source, content } = Object::<UserData>::deserialize(d)?.0;
                EventBody::UserMessage {
                    source: source.0.kind(),
                    texts: content.texts(),
                }
            }
            "assistant/message" => {
                let data = Object::<AssistantData>::deserialize(d)?.0;
                EventBody::AssistantMessage {
                    texts: data.message.0.content.texts(),
                }
            }
            "session/title" => EventBody::Title(Object::<TitleData>::deserialize(d)?.0.title),
            "route/assembled" => {
                EventBody::Route(Object::<RouteData>::deserialize(d)?.0.context_window.0)
            }
            _ => {
                IgnoredAny::deserialize(d)?;
                self.body_without_data()
            }
        })
    }
}

#[derive(Deserialize)]
struct UserData<'a> {
    #[serde(borrow)]
    source: Object<RawSource<'a>>,
    #[serde(borrow)]
    content: Content<'a>,
}

#[derive(Deserialize)]
struct RawSource<'a> {
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    marker: Loose<'a>,
    #[serde(rename = "throughSeq", borrow, default)]
    through_seq: Loose<'a>,
}

impl RawSource<'_> {
    fn kind(&self) -> SourceKind {
        match self.kind.as_ref() {
            "user" => SourceKind::User,
            "compaction" => match (&self.marker, &self.through_seq) {
                (Loose::Str(marker), Loose::Int(through_seq)) if marker == COMPACTION_MARKER => {
                    SourceKind::Checkpoint {
                        through_seq: *through_seq,
                    }
                }
                _ => SourceKind::Other,
            },
            _ => SourceKind::Other,
        }
    }
}

#[derive(Deserialize)]
struct AssistantData<'a> {
    #[serde(borrow)]
    message: Object<AssistantMessage<'a>>,
}

#[derive(Deserialize)]
struct AssistantMessage<'a> {
    #[serde(borrow)]
    content: Content<'a>,
}

#[derive(Deserialize)]
struct TitleData<'a> {
    #[serde(borrow)]
    title: Cow<'a, str>,
}

#[derive(Deserialize)]
struct RouteData {
    #[serde(rename = "contextWindow", default)]
    context_window: Capacity,
}

/// A model capacity in tokens: any JSON value, counted only when it is a
/// whole number from 1 to 2^53 − 1 however it is spelled (`30000`, `3e4`,
/// `30000.0`). Never a reason to fail.
#[derive(Default)]
struct Capacity(Option<u64>);

impl<'de> Deserialize<'de> for Capacity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CapacityVisitor;
        impl<'de> Visitor<'de> for CapacityVisitor {
            type Value = Capacity;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Capacity, E> {
                Ok(Capacity(
                    Some(v).filter(|v| (1..=MAX_SAFE_INTEGER).contains(v)),
                ))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Capacity, E> {
                Ok(Capacity(None))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Capacity, E> {
                let whole = v.is_finite() && v.fract() == 0.0;
                let in_range = (1.0..=MAX_SAFE_INTEGER as f64).contains(&v);
                // In range and whole, so the cast is exact.
                Ok(Capacity((whole && in_range).then_some(v as u64)))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Capacity, E> {
                Ok(Capacity(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Capacity, E> {
                Ok(Capacity(None))
            }
            fn visit_unit<E>(self) -> Result<Capacity, E> {
                Ok(Capacity(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Capacity, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Capacity(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Capacity, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Capacity(None))
            }
        }
        d.deserialize_any(CapacityVisitor)
    }
}

/// The header's `options`: any JSON value; an object's `contextWindow` is
/// the capacity (the last one, were the key repeated).
#[derive(Default)]
struct HeaderOptions(Option<u64>);

impl<'de> Deserialize<'de> for HeaderOptions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct OptionsVisitor;
        impl<'de> Visitor<'de> for OptionsVisitor {
            type Value = HeaderOptions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HeaderOptions, A::Error> {
                let mut capacity = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "contextWindow" {
                        capacity = map.next_value::<Capacity>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(HeaderOptions(capacity))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HeaderOptions, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(HeaderOptions(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<HeaderOptions, E> {
                Ok(HeaderOptions(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<HeaderOptions, E> {
                Ok(HeaderOptions(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<HeaderOptions, E> {
                Ok(HeaderOptions(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<HeaderOptions, E> {
                Ok(HeaderOptions(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<HeaderOptions, E> {
                Ok(HeaderOptions(None))
            }
            fn visit_unit<E>(self) -> Result<HeaderOptions, E> {
                Ok(HeaderOptions(None))
            }
        }
        d.deserialize_any(OptionsVisitor)
    }
}

/// A `content` array: its elements are never validated; only objects with
/// `"type":"text"` and a string `text` count.
#[derive(Deserialize)]
struct Content<'a>(#[serde(borrow)] Vec<Block<'a>>);

impl<'a> Content<'a> {
    fn texts(self) -> Vec<Cow<'a, str>> {
        self.0.into_iter().filter_map(|b| b.0).collect()
    }
}

/// One content element: `Some(text)` when it is a text block.
struct Block<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Block<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct BlockVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for BlockVisitor<'a> {
            type Value = Block<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block<'a>, A::Error> {
                let mut is_text = false;
                let mut text = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "type" => {
                            is_text = matches!(map.next_value()?, Loose::Str(t) if t == "text")
                        }
                        "text" => {
                            text = match map.next_value()? {
                                Loose::Str(t) => Some(t),
                                _ => None,
                            }
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Block(if is_text { text } else { None }))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Block<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Block(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Block<'a>, E> {
                Ok(Block(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Block<'a>, E> {
                Ok(Block(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Block<'a>, E> {
                Ok(Block(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Block<'a>, E> {
                Ok(Block(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Block<'a>, E> {
                Ok(Block(None))
            }
            fn visit_unit<E>(self) -> Result<Block<'a>, E> {
                Ok(Block(None))
            }
        }
        d.deserialize_any(BlockVisitor(PhantomData))
    }
}

/// An *integer* of the contract: no fraction or exponent, 0 ..= 2^53 − 1.
struct SafeInt(u64);

impl<'de> Deserialize<'de> for SafeInt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SafeIntVisitor;
        impl Visitor<'_> for SafeIntVisitor {
            type Value = SafeInt;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer from 0 to 2^53-1")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<SafeInt, E> {
                if v <= MAX_SAFE_INTEGER {
                    Ok(SafeInt(v))
                } else {
                    Err(E::invalid_value(de::Unexpected::Unsigned(v), &self))
                }
            }
        }
        d.deserialize_any(SafeIntVisitor)
    }
}

/// For optional fields: absent is `None` (via `#[serde(default)]`), `null`
/// is a wrong type.
fn non_null<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields() {
        let h = parse_header(br#"{"type":"session","version":1,"id":"s","createdAt":5,"cwd":"/w","label":"","x":null}"#)
            .expect("valid");
        assert_eq!(h.version, 1);
        assert_eq!(h.cwd.as_deref(), Some("/w"));
        assert_eq!(h.label, None);
        assert!(parse_header(br#"{"type":"session","id":"s","createdAt":5.0}"#).is_err());
        assert!(parse_header(br#"{"type":"session","id":"s","createdAt":5,"cwd":null}"#).is_err());
        assert!(parse_header(br#"{"type":"session","id":"","createdAt":5}"#).is_err());
        assert!(
            parse_header(br#"{"type":"session","id":"s","createdAt":9007199254740992}"#).is_err()
        );
        assert!(parse_header(br#"["session"]"#).is_err());
    }

    #[test]
    fn user_message_with_checkpoint() {
        let line = br#"{"seq":5,"type":"user/message","data":{"source":{"kind":"compaction","marker":"@hydraharness/harness-compaction","throughSeq":3},"content":[{"type":"text","text":"sum"},{"type":"image"},7,{"text":"x"}]}}"#;
        let ev = parse_event(line).expect("valid");
        assert_eq!(ev.seq, 5);
        assert_eq!(
            ev.body,
            EventBody::UserMessage {
                source: SourceKind::Checkpoint { through_seq: 3 },
                texts: vec![Cow::Borrowed("sum")]
            }
        );
    }

    #[test]
    fn loose_compaction_is_a_plugin_message() {
        let line = br#"{"seq":1,"type":"user/message","data":{"source":{"kind":"compaction","marker":"@hydraharness/harness-compaction","throughSeq":"3"},"content":[]}}"#;
        assert!(matches!(
            parse_event(line).expect("valid").body,
            EventBody::UserMessage {
                source: SourceKind::Other,
                ..
            }
        ));
    }

    #[test]
    fn required_fields() {
        for bad in [
            &br#"{"type":"x"}"#[..],
            br#"{"seq":1}"#,
            br#"{"seq":null,"type":"x"}"#,
            br#"{"seq":1.5,"type":"x"}"#,
            br#"{"seq":-1,"type":"x"}"#,
            br#"{"seq":1,"type":"user/message","data":{"source":{"kind":"user"}}}"#,
            br#"{"seq":1,"type":"user/message","data":{"source":{},"content":[]}}"#,
            br#"{"seq":1,"type":"assistant/message","data":{"message":{"content":{}}}}"#,
            br#"{"seq":1,"type":"session/title","data":{"title":null}}"#,
            br#"{"seq":1,"type":"session/title","data":[]}"#,
            br#"[1]"#,
            b"   ",
            b"{\"seq\":1,\"type\":\"x\",\"y\":\"\xff\"}",
        ] {
            assert!(
                parse_event(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(parse_event(br#"{"seq":1,"type":"assistant/delta"}"#).is_ok());
        assert!(parse_event(br#"{"seq":1,"type":"tool/result","data":null}"#).is_ok());
    }

    #[test]
    fn capacity_from_header_and_route() {
        let cap = |line: &[u8]| parse_header_with_capacity(line).expect("valid").1;
        let h = |options: &str| {
            format!(r#"{{"type":"session","id":"s","createdAt":5,"options":{options}}}"#)
        };
        assert_eq!(cap(h(r#"{"contextWindow":9000}"#).as_bytes()), Some(9000));
        assert_eq!(cap(h(r#"{"contextWindow":3e4}"#).as_bytes()), Some(30000));
        assert_eq!(
            cap(h(r#"{"contextWindow":30000.0}"#).as_bytes()),
            Some(30000)
        );
        for none in [
            r#"{"contextWindow":0}"#,
            r#"{"contextWindow":-5}"#,
            r#"{"contextWindow":1.5}"#,
            r#"{"contextWindow":"9000"}"#,
            r#"{"contextWindow":null}"#,
            r#"{"contextWindow":9007199254740992}"#,
            r#"{"contextWindow":1e300}"#,
            r#""not an object""#,
            "null",
            "[1]",
        ] {
            assert_eq!(cap(h(none).as_bytes()), None, "{none}");
        }
        let route = |data: &str| {
            let line = format!(r#"{{"seq":1,"type":"route/assembled","data":{data}}}"#);
            parse_event(line.as_bytes()).map(|e| format!("{:?}", e.body))
        };
        assert_eq!(
            route(r#"{"contextWindow":200000}"#).as_deref(),
            Ok("Route(Some(200000))")
        );
        assert_eq!(route(r#"{"model":"m"}"#).as_deref(), Ok("Route(None)"));
        assert_eq!(
            route(r#"{"contextWindow":[1]}"#).as_deref(),
            Ok("Route(None)")
        );
        for bad in ["null", "[]", "5", r#""x""#] {
            assert!(route(bad).is_err(), "{bad}");
        }
        assert!(parse_event(br#"{"seq":1,"type":"route/assembled"}"#).is_err());
        // `data` before `type` is parsed the same way.
        assert_eq!(
            parse_event(br#"{"seq":1,"data":{"contextWindow":7},"type":"route/assembled"}"#)
                .map(|e| e.body),
            Ok(EventBody::Route(Some(7)))
        );
    }

    #[test]
    fn unpaired_surrogates_anywhere_are_invalid() {
        assert!(parse_event(br#"{"seq":1,"type":"x","z":"\ud800"}"#).is_err());
        assert!(parse_event(br#"{"seq":1,"type":"x","z":"\udc00\ud800"}"#).is_err());
        assert!(parse_event(br#"{"seq":1,"type":"x","z":"\ud83d\ude00 \\ud800"}"#).is_ok());
    }
}
