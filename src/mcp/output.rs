//! What each tool answers: an object (`structuredContent`), its text block
//! the JSON of that same object, and the `outputSchema` it follows.
//!
//! Gemini CLI turns a first text block that parses as JSON into
//! `structuredContent`, and its SDK rejects one that is not an object
//! ("expected record, received array"): so every answer is an object,
//! `{"sessions": […]}` rather than `[…]`. A failure is the same object's
//! other form, `{"error": {"code", "message"}}`, with `isError` (see
//! [`super::tools::error_result`]); each schema allows both, since some
//! clients check an error's `structuredContent` too.

use std::sync::Arc;

use rmcp::model::{CallToolResult, JsonObject};
use serde_json::{json, Value};

/// The member each tool's answer holds.
pub const SESSIONS: &str = "sessions";
pub const CONTEXT: &str = "context";
pub const TEXT: &str = "text";

/// A successful answer: `{member: value}`, as structured content and as
/// its JSON text.
pub fn answer(member: &str, value: Value) -> CallToolResult {
    let mut object = serde_json::Map::new();
    object.insert(member.to_string(), value);
    CallToolResult::structured(Value::Object(object))
}

/// `list_sessions`'s sessions.
pub fn listed_sessions() -> Arc<JsonObject> {
    let session = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "agent": {"type": "string"},
            "cwd": {"type": "string"},
            "createdAt": {"type": "string", "description": "RFC 3339, UTC."},
            "uri": {"type": "string", "description": "The session's resource uri."},
            "mention": {"type": "string", "description": "The @[title](hydra-session:…) mention that cites it."}
        },
        "required": ["id", "title", "agent", "createdAt", "uri", "mention"]
    });
    schema(SESSIONS, json!({"type": "array", "items": session}))
}

/// `search_sessions`'s hits (the shape of `search --format json`).
pub fn found_sessions() -> Arc<JsonObject> {
    let snippet = json!({
        "type": "object",
        "properties": {
            "turn": {"type": "integer"},
            "role": {"type": "string"},
            "text": {"type": "string"},
            "ranges": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "integer"}},
                "description": "[start, end) in Unicode scalars into text."
            }
        },
        "required": ["turn", "role", "text", "ranges"]
    });
    let hit = json!({
        "type": "object",
        "properties": {
            "sessionId": {"type": "string"},
            "title": {"type": "string"},
            "displayTitle": {"type": "string"},
            "agent": {"type": "string"},
            "cwd": {"type": "string"},
            "createdAt": {"type": "integer", "description": "Milliseconds since the Unix epoch."},
            "mention": {"type": "string"},
            "score": {"type": "number"},
            "snippets": {"type": "array", "items": snippet}
        },
        "required": ["sessionId", "agent", "createdAt", "mention", "score", "snippets"]
    });
    schema(SESSIONS, json!({"type": "array", "items": hit}))
}

/// `read_session`'s context.
pub fn context() -> Arc<JsonObject> {
    schema(
        CONTEXT,
        json!({"type": "string", "description": "The session as bounded, untrusted snapshot context (Markdown)."}),
    )
}

/// `prepare`'s prepared message.
pub fn prepared() -> Arc<JsonObject> {
    schema(
        TEXT,
        json!({"type": "string", "description": "The referenced sessions' context, a blank line, then the readable text."}),
    )
}

/// `{member}` or `{"error"}`, nothing else.
fn schema(member: &str, value: Value) -> Arc<JsonObject> {
    let error = json!({
        "type": "object",
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"}
        },
        "required": ["code", "message"]
    });
    let mut properties = JsonObject::new();
    properties.insert(member.to_string(), value);
    properties.insert("error".to_string(), error);
    let mut object = JsonObject::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), Value::Object(properties));
    object.insert(
        "anyOf".into(),
        json!([{"required": [member]}, {"required": ["error"]}]),
    );
    object.insert("additionalProperties".into(), json!(false));
    Arc::new(object)
}
