//! One Cursor transcript line (agent-logs-more.md "Cursor", Lines), read
//! leniently: a role line's content is Claude-style blocks, read by the
//! Claude Code reader's content parser; a field of the wrong type reads as
//! absent.

use std::borrow::Cow;

use serde::Deserialize;

use crate::formats::claude_code::line::{Block, Content, TextContent};
use crate::formats::toolkit::lenient::{Loose, Object, Shape};

/// What one line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    /// A role line of the person: its text blocks (a string content is one
    /// block).
    User(Vec<Cow<'a, str>>),
    /// A role line of the model: its text blocks.
    Assistant(Vec<Cow<'a, str>>),
    /// A role line of another role: ignored.
    OtherRole,
    /// `{"type":"turn_ended",…}`: ends the model's run of lines.
    TurnEnded,
    /// A line with another string `type`: ignored.
    Ignored,
    /// Any other line: skipped and counted.
    NotUnderstood,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawLine<'a> {
    #[serde(borrow, rename = "type")]
    kind: Loose<'a>,
    #[serde(borrow)]
    role: Loose<'a>,
    #[serde(borrow)]
    message: Shape<RawMessage<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMessage<'a> {
    #[serde(borrow)]
    content: TextContent<'a>,
}

/// Whether `line` is a role line: the first line of every Cursor transcript.
pub fn is_role_line(line: &[u8]) -> bool {
    matches!(
        parse_line(line),
        Line::User(_) | Line::Assistant(_) | Line::OtherRole
    )
}

/// Reads one line (not blank).
pub fn parse_line(line: &[u8]) -> Line<'_> {
    let Ok(Object(raw)) = serde_json::from_slice::<Object<RawLine<'_>>>(line) else {
        return Line::NotUnderstood;
    };
    match (raw.kind, raw.role, raw.message) {
        (Loose::Str(kind), _, _) if kind == "turn_ended" => Line::TurnEnded,
        (Loose::Str(_), _, _) => Line::Ignored,
        (Loose::Null, Loose::Str(role), Shape::Map(message)) => {
            let texts = texts(message.content.0);
            match role.as_ref() {
                "user" => Line::User(texts),
                "assistant" => Line::Assistant(texts),
                _ => Line::OtherRole,
            }
        }
        _ => Line::NotUnderstood,
    }
}

/// The text blocks of a content, in order.
fn texts(content: Content<'_>) -> Vec<Cow<'_, str>> {
    match content {
        Content::Str(Some(text)) => vec![text],
        Content::Blocks(blocks) => blocks
            .into_iter()
            .filter_map(|b| match b {
                Block::Text(text) => text,
                _ => None,
            })
            .collect(),
        Content::Str(None) | Content::None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_by_their_shape() {
        assert_eq!(
            parse_line(
                br#"{"role":"user","message":{"content":[{"type":"text","text":"a"},{"type":"tool_result","content":"x"},{"type":"text","text":"b\n"}]}}"#
            ),
            Line::User(vec!["a".into(), "b\n".into()])
        );
        assert_eq!(
            parse_line(br#"{"message":{"content":"hi"},"role":"assistant"}"#),
            Line::Assistant(vec!["hi".into()])
        );
        assert_eq!(
            parse_line(br#"{"role":"assistant","message":{"content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","name":"Shell","input":{}}]}}"#),
            Line::Assistant(vec![])
        );
        assert_eq!(
            parse_line(br#"{"role":"user","message":{"content":5}}"#),
            Line::User(vec![])
        );
        assert_eq!(
            parse_line(br#"{"role":"system","message":{}}"#),
            Line::OtherRole
        );
        assert_eq!(
            parse_line(br#"{"type":"turn_ended","status":"success"}"#),
            Line::TurnEnded
        );
        assert_eq!(
            parse_line(br#"{"type":"user","role":"user","message":{"content":"x"}}"#),
            Line::Ignored
        );
        for bad in [
            &b"[1]"[..],
            b"{}",
            b"nope",
            br#"{"role":5,"message":{}}"#,
            br#"{"role":"user","message":"x"}"#,
            br#"{"role":"user"}"#,
            br#"{"type":5,"role":"user","message":{}}"#,
        ] {
            assert_eq!(
                parse_line(bad),
                Line::NotUnderstood,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(is_role_line(
            br#"{"role":"user","message":{"content":"x"}}"#
        ));
        assert!(!is_role_line(br#"{"type":"turn_ended"}"#));
    }
}
