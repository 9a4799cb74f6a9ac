//! The tools: `list_sessions`, `read_session`, `prepare` and
//! `search_sessions`. A model
//! reaches sessions through them where the client attaches no resources
//! (`claude -p`, Codex). Each answers an object ([`super::output`]);
//! failures are tool results with `isError`, their text the
//! `SESSION_REFERENCE_*` code and message.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::output;
use super::sessions::{Need, Sessions};
use super::text::short;
use super::uri::{self, Named};
use crate::live::View;
use crate::reference::candidates::check_limit;
use crate::reference::prepare::Cancelled;
use crate::reference::settings::DEFAULT_CANDIDATE_LIMIT;
use crate::reference::{mention, time, ErrorCode, ReferenceError};

pub const LIST_SESSIONS: &str = "list_sessions";
pub const READ_SESSION: &str = "read_session";
pub const PREPARE: &str = "prepare";
pub const SEARCH_SESSIONS: &str = "search_sessions";

/// Sessions `search_sessions` gives when no limit is asked for.
const DEFAULT_SEARCH_LIMIT: u64 = 10;

/// The tools and their input schemas.
pub fn definitions() -> Vec<Tool> {
    let read_only = ToolAnnotations::new().read_only(true).open_world(false);
    vec![
        Tool::new(
            LIST_SESSIONS,
            format!(
                "List the agent sessions ({}, hydra) that can be cited: newest first, this \
                 workspace's first. Each has an id, title, agent, cwd, createdAt, a resource \
                 uri and the mention to cite it with.",
                crate::formats::table::agent_names()
            ),
            schema(json!({
                "query": {
                    "type": "string",
                    "description": "Case-insensitive filter on id, cwd and title (never message bodies)."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "At most this many sessions (default 50)."
                }
            }), &[]),
        )
        .with_raw_output_schema(output::listed_sessions())
        .annotate(read_only.clone()),
        Tool::new(
            READ_SESSION,
            "Read one session's conversation as bounded, untrusted snapshot context. \
             `session` is a resource uri, a mention or hydra-session: URI, or a session id.",
            schema(json!({
                "session": {
                    "type": "string",
                    "description": "A session:… resource uri, a @[title](hydra-session:…) mention, a hydra-session: URI or an id."
                }
            }), &["session"]),
        )
        .with_raw_output_schema(output::context())
        .annotate(read_only.clone()),
        Tool::new(
            PREPARE,
            "Prepare a message that cites sessions with @[title](hydra-session:…) mentions: \
             the referenced sessions' context, a blank line, then the readable text.",
            schema(json!({
                "text": {
                    "type": "string",
                    "description": "The message, mentions included."
                }
            }), &["text"]),
        )
        .with_raw_output_schema(output::prepared())
        .annotate(read_only.clone()),
        Tool::new(
            SEARCH_SESSIONS,
            "Find sessions by what was said in them (full text over every message and title): \
             ranked, this workspace's first, each with its id, title, agent, cwd, createdAt, \
             the mention to cite it with, a score and up to three snippets. Every word must \
             match; \"quoted phrases\"; filters agent:NAME cwd:PATH after:YYYY-MM-DD before:YYYY-MM-DD.",
            schema(json!({
                "query": {
                    "type": "string",
                    "description": "Words that must all occur, \"phrases\", and filters agent:, cwd:, after:, before:."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "At most this many sessions (default 10)."
                }
            }), &["query"]),
        )
        .with_raw_output_schema(output::found_sessions())
        .annotate(read_only),
    ]
}

fn schema(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let mut object = JsonObject::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), properties);
    if !required.is_empty() {
        object.insert("required".into(), json!(required));
    }
    object.insert("additionalProperties".into(), json!(false));
    Arc::new(object)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    query: String,
    limit: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: String,
    limit: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    session: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrepareArgs {
    text: String,
}

/// One session as `list_sessions` gives it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionOutput<'a> {
    id: &'a str,
    title: &'a str,
    agent: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'a str>,
    created_at: String,
    uri: String,
    mention: &'a str,
}

/// The view the tool `name` reads: `list_sessions` only lists, so the
/// recorded view of a warm start serves it; the others read logs and
/// wait for every log to be checked.
pub fn need(name: &str) -> Need {
    match name {
        READ_SESSION | PREPARE | SEARCH_SESSIONS => Need::Checked,
        _ => Need::Listing,
    }
}

/// Runs the tool `name`; `None` when there is no such tool.
pub fn call(
    sessions: &Sessions,
    view: &View,
    cwd: Option<&str>,
    name: &str,
    arguments: Option<JsonObject>,
    cancelled: Cancelled<'_>,
) -> Option<CallToolResult> {
    let result = match name {
        LIST_SESSIONS => args(arguments)
            .and_then(|a: ListArgs| list(sessions, view, cwd, a))
            .map(|v| output::answer(output::SESSIONS, v)),
        READ_SESSION => args(arguments)
            .and_then(|a: ReadArgs| read(sessions, view, &a.session, cancelled))
            .map(|text| output::answer(output::CONTEXT, Value::String(text))),
        PREPARE => args(arguments)
            .and_then(|a: PrepareArgs| sessions.prepare_text_form(view, &a.text, cancelled))
            .map(|text| output::answer(output::TEXT, Value::String(text))),
        SEARCH_SESSIONS => args(arguments)
            .and_then(|a: SearchArgs| search(sessions, view, cwd, a, cancelled))
            .map(|v| output::answer(output::SESSIONS, v)),
        _ => return None,
    };
    Some(result.unwrap_or_else(|e| error_result(&e)))
}

fn args<T: DeserializeOwned>(arguments: Option<JsonObject>) -> Result<T, ReferenceError> {
    serde_json::from_value(Value::Object(arguments.unwrap_or_default())).map_err(|e| {
        ReferenceError::new(
            ErrorCode::InvalidReference,
            format!("invalid arguments: {}", short(&e.to_string())),
        )
    })
}

fn list(
    sessions: &Sessions,
    view: &View,
    cwd: Option<&str>,
    a: ListArgs,
) -> Result<Value, ReferenceError> {
    let limit = check_limit(a.limit.unwrap_or(DEFAULT_CANDIDATE_LIMIT))? as u64;
    let listed = sessions.list(view, cwd, &a.query, limit)?;
    let out: Vec<SessionOutput> = listed
        .iter()
        .map(|l| {
            let c = &l.candidate;
            SessionOutput {
                id: &c.session_id,
                title: c.display_title.as_deref().unwrap_or(&c.label),
                agent: l.agent,
                cwd: c.cwd.as_deref(),
                created_at: time::rfc3339(c.created_at),
                uri: l.uri.clone(),
                mention: &c.mention,
            }
        })
        .collect();
    serde_json::to_value(&out)
        .map_err(|e| ReferenceError::read_failed(format!("cannot write the list: {e}")))
}

fn search(
    sessions: &Sessions,
    view: &View,
    cwd: Option<&str>,
    a: SearchArgs,
    cancelled: Cancelled<'_>,
) -> Result<Value, ReferenceError> {
    let limit = check_limit(a.limit.unwrap_or(DEFAULT_SEARCH_LIMIT))?;
    let hits = sessions.search(view, cwd, &a.query, limit, cancelled)?;
    serde_json::to_value(crate::proto::ext::search_hits(hits))
        .map_err(|e| ReferenceError::read_failed(format!("cannot write the results: {e}")))
}

/// `session` as a resource uri, a canonical mention or URI, or an id.
fn read(
    sessions: &Sessions,
    view: &View,
    session: &str,
    cancelled: Cancelled<'_>,
) -> Result<String, ReferenceError> {
    let id = session_id(view, session.trim())?;
    sessions.context(view, &id, cancelled)
}

fn session_id(view: &View, text: &str) -> Result<String, ReferenceError> {
    if text.starts_with("@[") {
        let parsed = mention::parse(text)?;
        return match parsed.references.as_slice() {
            [one] if parsed.text.trim() == format!("@{}", one.label) => Ok(one.session_id.clone()),
            _ => Err(ReferenceError::new(
                ErrorCode::InvalidReference,
                "`session` must be exactly one mention",
            )),
        };
    }
    let looks_like_uri =
        text.starts_with(uri::SCHEME) || text.starts_with(crate::reference::uri::SCHEME);
    if !looks_like_uri {
        return Ok(text.to_string());
    }
    match uri::parse(text) {
        Named::Session(id) => Ok(id),
        // An id may look like a URI: the store decides.
        Named::Malformed(_) if view.get(text).is_some() => Ok(text.to_string()),
        Named::Malformed(why) => Err(ReferenceError::new(
            ErrorCode::InvalidReference,
            format!("invalid session URI {}: {why}", short(text)),
        )),
    }
}

/// A tool error: `isError`, the code and message as text and as
/// `structuredContent` `{"error":{"code","message"}}`.
pub fn error_result(e: &ReferenceError) -> CallToolResult {
    let message = short(&e.message);
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "{}: {message}",
        e.code.as_str()
    ))]);
    result.structured_content =
        Some(json!({"error": {"code": e.code.as_str(), "message": message}}));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_read_only_with_object_schemas_in_and_out() {
        let tools = definitions();
        assert_eq!(tools.len(), 4);
        for tool in tools {
            let hint = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
            assert_eq!(hint, Some(true), "{}", tool.name);
            assert_eq!(tool.input_schema["type"], "object");
            let out = tool.output_schema.as_ref().expect("an output schema");
            assert_eq!(out["type"], "object", "{}", tool.name);
            assert!(out["properties"]["error"].is_object(), "{}", tool.name);
        }
    }
}
