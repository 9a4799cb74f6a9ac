//! One Gemini CLI record (agent-logs-more.md "Gemini CLI"): a line of the
//! JSONL form, or a member of the whole-JSON form, read leniently into
//! what the session needs.

use serde_json::{Map, Value};

/// What a message record is, by its `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Gemini,
    /// `info`, `error`, `warning` or anything else: never projected.
    Other,
}

/// A message record, as far as the session needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub id: String,
    pub kind: Kind,
    /// `displayContent`'s text when not empty, else `content`'s.
    pub text: String,
    pub timestamp: Option<u64>,
    /// `(agentId, display title)` of its tool calls that ran a sub-agent.
    pub agents: Vec<(String, String)>,
}

/// One JSONL line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// `$rewindTo`: that message and every later one go.
    Rewind(String),
    Message(Message),
    /// `$set`: a new message list (when given) and summary.
    Update {
        messages: Option<List>,
        summary: Option<String>,
    },
    Metadata(Metadata),
    /// Anything else that is a JSON object or not: skipped and counted.
    NotUnderstood,
}

/// A list of message records; entries that are not one are counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct List {
    pub messages: Vec<Message>,
    pub skipped: u64,
}

/// A metadata record, or the whole-JSON document's own fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    pub session_id: Option<String>,
    pub start_time: Option<u64>,
    pub summary: Option<String>,
    pub messages: Option<List>,
}

/// Whether `line` is what a Gemini JSONL session starts with: an object
/// without `type`, with a string `sessionId` and a string `projectHash`,
/// and none of a string `id`, an object `$set`, a string `$rewindTo`.
pub fn is_metadata_line(line: &[u8]) -> bool {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(map)) => is_metadata(&map),
        _ => false,
    }
}

/// Whether `line` starts a whole-JSON document: its `{` alone
/// (pretty-printed), or all of it on one line (a string `sessionId`, an
/// array `messages`).
pub fn is_document_start(line: &[u8]) -> bool {
    if line.trim_ascii() == b"{" {
        return true;
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(map)) => {
            map.get("sessionId").is_some_and(Value::is_string)
                && map.get("messages").is_some_and(Value::is_array)
        }
        _ => false,
    }
}

fn is_metadata(map: &Map<String, Value>) -> bool {
    !map.contains_key("type")
        && map.get("sessionId").is_some_and(Value::is_string)
        && map.get("projectHash").is_some_and(Value::is_string)
        && !map.get("id").is_some_and(Value::is_string)
        && !map.get("$set").is_some_and(Value::is_object)
        && !map.get("$rewindTo").is_some_and(Value::is_string)
}

/// Reads one JSONL line (valid UTF-8, not blank).
pub fn parse_line(line: &[u8]) -> Record {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line) else {
        return Record::NotUnderstood;
    };
    if let Some(Value::String(id)) = map.get("$rewindTo") {
        return Record::Rewind(id.clone());
    }
    if map.get("id").is_some_and(Value::is_string) {
        return message(&map).map_or(Record::NotUnderstood, Record::Message);
    }
    if let Some(Value::Object(set)) = map.get("$set") {
        return Record::Update {
            messages: set.get("messages").and_then(list),
            summary: string(set, "summary"),
        };
    }
    if is_metadata(&map) {
        return Record::Metadata(metadata(&map));
    }
    Record::NotUnderstood
}

/// The fields of a metadata record or whole-JSON document.
pub fn metadata(map: &Map<String, Value>) -> Metadata {
    Metadata {
        session_id: string(map, "sessionId"),
        start_time: map
            .get("startTime")
            .and_then(Value::as_str)
            .and_then(crate::formats::text::parse_timestamp),
        summary: string(map, "summary"),
        messages: map.get("messages").and_then(list),
    }
}

/// A `messages` array's message records.
pub fn list(value: &Value) -> Option<List> {
    let Value::Array(items) = value else {
        return None;
    };
    let mut out = List::default();
    for item in items {
        match item {
            Value::Object(map) if map.get("id").is_some_and(Value::is_string) => {
                match message(map) {
                    Some(m) => out.messages.push(m),
                    None => out.skipped += 1,
                }
            }
            _ => out.skipped += 1,
        }
    }
    Some(out)
}

fn string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A message record (an object with a string `id`).
pub fn message(map: &Map<String, Value>) -> Option<Message> {
    let id = string(map, "id")?;
    let kind = match map.get("type").and_then(Value::as_str) {
        Some("user") => Kind::User,
        Some("gemini") => Kind::Gemini,
        _ => Kind::Other,
    };
    let shown = map.get("displayContent").map(content_text);
    let text = match shown {
        Some(shown) if !shown.is_empty() => shown,
        _ => map.get("content").map(content_text).unwrap_or_default(),
    };
    let timestamp = map
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(crate::formats::text::parse_timestamp);
    Some(Message {
        id,
        kind,
        text,
        timestamp,
        agents: agents(map),
    })
}

/// A content's text: a string is its own; parts give the concatenation,
/// without separator, of every string part and every string `text` of a
/// part that is not a thought.
fn content_text(content: &Value) -> String {
    let mut out = String::new();
    let mut part = |part: &Value| match part {
        Value::String(s) => out.push_str(s),
        Value::Object(p) if p.get("thought") != Some(&Value::Bool(true)) => {
            if let Some(Value::String(s)) = p.get("text") {
                out.push_str(s);
            }
        }
        _ => {}
    };
    match content {
        Value::Array(parts) => parts.iter().for_each(part),
        one => part(one),
    }
    out
}

/// The sub-agents a message's tool calls ran: `agentId` with
/// `args.agent_name` (a non-empty string), else the call's `name`.
fn agents(map: &Map<String, Value>) -> Vec<(String, String)> {
    let Some(Value::Array(calls)) = map.get("toolCalls") else {
        return Vec::new();
    };
    calls
        .iter()
        .filter_map(|call| {
            let call = call.as_object()?;
            let agent = call.get("agentId")?.as_str()?;
            let named = call
                .get("args")
                .and_then(|a| a.get("agent_name"))
                .and_then(Value::as_str)
                .filter(|n| !n.trim().is_empty());
            let title = named.or_else(|| call.get("name").and_then(Value::as_str))?;
            Some((agent.to_string(), title.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_lines_are_told_from_the_rest() {
        assert!(is_metadata_line(br#"{"sessionId":"s","projectHash":"h"}"#));
        for not in [
            &br#"{"sessionId":"s","projectHash":"h","type":"user"}"#[..],
            br#"{"sessionId":"s","projectHash":"h","id":"m"}"#,
            br#"{"sessionId":"s","projectHash":"h","$set":{}}"#,
            br#"{"sessionId":"s","projectHash":"h","$rewindTo":"m"}"#,
            br#"{"sessionId":"s"}"#,
            br#"{"sessionId":"s","projectHash":1}"#,
            b"[]",
            b"{",
        ] {
            assert!(!is_metadata_line(not), "{}", String::from_utf8_lossy(not));
        }
    }

    #[test]
    fn text_prefers_what_was_shown_and_skips_thoughts() {
        let Record::Message(m) = parse_line(
            br#"{"id":"u","type":"user","content":[{"text":"a @f"},{"text":"expanded"}],"displayContent":[{"text":"a @f"}]}"#,
        ) else {
            panic!("a message")
        };
        assert_eq!((m.kind, m.text.as_str()), (Kind::User, "a @f"));
        let Record::Message(m) = parse_line(
            br#"{"id":"g","type":"gemini","content":["x",{"text":"y"},{"text":"z","thought":true},{"functionCall":{}}],"displayContent":""}"#,
        ) else {
            panic!("a message")
        };
        assert_eq!((m.kind, m.text.as_str()), (Kind::Gemini, "xy"));
        let Record::Message(m) = parse_line(br#"{"id":"i","type":"info","content":"note"}"#) else {
            panic!("a message")
        };
        assert_eq!(m.kind, Kind::Other);
    }

    #[test]
    fn records_by_their_first_sign() {
        assert_eq!(
            parse_line(br#"{"$rewindTo":"m","id":"x"}"#),
            Record::Rewind("m".into())
        );
        assert_eq!(
            parse_line(br#"{"$set":{"summary":"S","messages":[{"id":"a","type":"user"},3]}}"#),
            Record::Update {
                messages: Some(List {
                    messages: vec![Message {
                        id: "a".into(),
                        kind: Kind::User,
                        text: String::new(),
                        timestamp: None,
                        agents: vec![],
                    }],
                    skipped: 1,
                }),
                summary: Some("S".into()),
            }
        );
        for bad in [&b"[1]"[..], b"{}", b"{\"$set\":1}", b"nope"] {
            assert_eq!(parse_line(bad), Record::NotUnderstood);
        }
    }

    #[test]
    fn sub_agents_are_named_by_agent_name_else_the_tool() {
        let Record::Message(m) = parse_line(
            br#"{"id":"g","type":"gemini","toolCalls":[{"name":"invoke_agent","agentId":"a1","args":{"agent_name":"investigator"}},{"name":"codebase_investigator","agentId":"a2","args":{"agent_name":" "}},{"name":"read_file"}]}"#,
        ) else {
            panic!("a message")
        };
        assert_eq!(
            m.agents,
            vec![
                ("a1".into(), "investigator".into()),
                ("a2".into(), "codebase_investigator".into())
            ]
        );
    }
}
