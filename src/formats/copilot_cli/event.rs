//! One GitHub Copilot CLI event line (agent-logs-more.md "GitHub Copilot
//! CLI"), read leniently into what the session needs: a field of the wrong
//! type reads as absent; a line that is not an object with a string
//! `type` is not understood.

use std::borrow::Cow;

use serde::Deserialize;

use crate::formats::toolkit::lenient::{Loose, Object, Shape};

/// What one line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    Start {
        session_id: Option<Cow<'a, str>>,
        /// `data.startTime`, else the line's `timestamp`.
        start_time: Option<Cow<'a, str>>,
        cwd: Option<Cow<'a, str>>,
    },
    /// A message the timeline shows (already judged by its `source` and
    /// sub-agent marks); `None` for one that is not shown.
    User(Option<Cow<'a, str>>),
    Assistant(Option<Cow<'a, str>>),
    /// `session.compaction_complete`: `Some(summary)` when it succeeded.
    Compacted {
        success: bool,
        summary: Option<Cow<'a, str>>,
        token_limit: Option<u64>,
    },
    /// `session.context_cleared`: shadows what precedes, adds nothing.
    Cleared,
    /// `session.compaction_start` or `session.truncation`.
    Limit(Option<u64>),
    /// A sub-agent's event (a non-empty `agentId`), or a type not read.
    Ignored,
    NotUnderstood,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawLine<'a> {
    #[serde(borrow, rename = "type")]
    kind: Loose<'a>,
    #[serde(borrow)]
    data: Shape<RawData<'a>>,
    #[serde(borrow, rename = "agentId")]
    agent_id: Loose<'a>,
    #[serde(borrow)]
    timestamp: Loose<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawData<'a> {
    #[serde(borrow, rename = "sessionId")]
    session_id: Loose<'a>,
    #[serde(borrow, rename = "startTime")]
    start_time: Loose<'a>,
    #[serde(borrow)]
    context: Shape<RawContext<'a>>,
    #[serde(borrow)]
    content: Loose<'a>,
    #[serde(borrow)]
    source: Loose<'a>,
    #[serde(rename = "isAutopilotContinuation")]
    is_autopilot_continuation: Loose<'a>,
    #[serde(borrow, rename = "parentToolCallId")]
    parent_tool_call_id: Loose<'a>,
    success: Loose<'a>,
    #[serde(borrow, rename = "summaryContent")]
    summary_content: Loose<'a>,
    #[serde(rename = "tokenLimit")]
    token_limit: Loose<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawContext<'a> {
    #[serde(borrow)]
    cwd: Loose<'a>,
}

/// A non-empty string.
fn filled(value: Loose<'_>) -> Option<Cow<'_, str>> {
    value.into_str().filter(|s| !s.is_empty())
}

/// A `tokenLimit`: a whole number ≥ 1.
fn limit(value: &Loose<'_>) -> Option<u64> {
    value.whole().filter(|&w| w >= 1)
}

/// Whether `line` starts a Copilot CLI session: a `session.start` event
/// with a non-empty string `data.sessionId`.
pub fn is_start_line(line: &[u8]) -> bool {
    matches!(
        parse_line(line),
        Line::Start {
            session_id: Some(_),
            ..
        }
    )
}

/// Reads one line (not blank).
pub fn parse_line(line: &[u8]) -> Line<'_> {
    let Ok(Object(raw)) = serde_json::from_slice::<Object<RawLine<'_>>>(line) else {
        return Line::NotUnderstood;
    };
    let Loose::Str(kind) = raw.kind else {
        return Line::NotUnderstood;
    };
    if filled(raw.agent_id).is_some() {
        return Line::Ignored;
    }
    let data = match raw.data {
        Shape::Map(data) => data,
        _ => RawData::default(),
    };
    match kind.as_ref() {
        "session.start" => Line::Start {
            session_id: filled(data.session_id),
            start_time: data.start_time.into_str().or(raw.timestamp.into_str()),
            cwd: match data.context {
                Shape::Map(context) => filled(context.cwd),
                _ => None,
            },
        },
        "user.message" => {
            // Messages the CLI sends for a skill, an agent or an autopilot
            // step are not the person's ([U] for a `source` of `user`).
            let source = filled(data.source);
            let shown =
                source.is_none_or(|s| s == "user") && !data.is_autopilot_continuation.is_true();
            Line::User(data.content.into_str().filter(|_| shown))
        }
        "assistant.message" => {
            let sub_agent = filled(data.parent_tool_call_id).is_some();
            Line::Assistant(data.content.into_str().filter(|_| !sub_agent))
        }
        "session.compaction_complete" => Line::Compacted {
            success: data.success.is_true(),
            summary: data.summary_content.into_str(),
            token_limit: limit(&data.token_limit),
        },
        "session.context_cleared" => Line::Cleared,
        "session.compaction_start" | "session.truncation" => Line::Limit(limit(&data.token_limit)),
        _ => Line::Ignored,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_by_their_type() {
        assert!(is_start_line(
            br#"{"type": "session.start", "data": {"sessionId": "s", "context": {"cwd": "/w"}}}"#
        ));
        for not in [
            &br#"{"type":"session.start","data":{"sessionId":""}}"#[..],
            br#"{"type":"session.start","data":{"sessionId":5}}"#,
            br#"{"type":"user.message","data":{"sessionId":"s"}}"#,
            br#"[{"type":"session.start"}]"#,
        ] {
            assert!(!is_start_line(not), "{}", String::from_utf8_lossy(not));
        }
        assert_eq!(
            parse_line(br#"{"type":"session.start","data":{"sessionId":"s"},"timestamp":"T"}"#),
            Line::Start {
                session_id: Some("s".into()),
                start_time: Some("T".into()),
                cwd: None
            }
        );
        assert_eq!(
            parse_line(br#"{"type":"user.message","data":{"content":"hi","source":"user"}}"#),
            Line::User(Some("hi".into()))
        );
        for hidden in [
            &br#"{"type":"user.message","data":{"content":"x","source":"skill-pdf"}}"#[..],
            br#"{"type":"user.message","data":{"content":"x","isAutopilotContinuation":true}}"#,
        ] {
            assert_eq!(parse_line(hidden), Line::User(None));
        }
        assert_eq!(
            parse_line(
                br#"{"type":"assistant.message","data":{"content":"x","parentToolCallId":"t"}}"#
            ),
            Line::Assistant(None)
        );
        assert_eq!(
            parse_line(br#"{"type":"assistant.message","agentId":"a","data":{"content":"x"}}"#),
            Line::Ignored
        );
        assert_eq!(
            parse_line(br#"{"type":"session.truncation","data":{"tokenLimit":128000.0}}"#),
            Line::Limit(Some(128_000))
        );
        assert_eq!(
            parse_line(br#"{"type":"session.compaction_start","data":{"tokenLimit":0}}"#),
            Line::Limit(None)
        );
        for bad in [&b"[1]"[..], b"{}", br#"{"type":5}"#, b"nope"] {
            assert_eq!(parse_line(bad), Line::NotUnderstood);
        }
        assert_eq!(parse_line(br#"{"type":"session.idle"}"#), Line::Ignored);
    }
}
