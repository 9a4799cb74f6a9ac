//! What one element of `ui_messages.json` (a `ClineMessage`) is on the
//! surface (agent-logs-files-3.md "Cline … Messages").

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::unverified;
use crate::model::{Role, MAX_SAFE_INTEGER};

/// One element's meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said<'a> {
    Message(Role, Cow<'a, str>),
    /// A compact checkpoint's summary.
    Condensed(&'a str),
    /// Not on the surface (a tool, a request, a partial message, …).
    Nothing,
    /// Not an object with a string `type`: skipped and counted.
    NotUnderstood,
}

/// The element's `ts`, when a JSON integer from 0 to 2^53 − 1.
pub fn time(element: &Value) -> Option<u64> {
    element
        .get("ts")?
        .as_u64()
        .filter(|&ts| ts <= MAX_SAFE_INTEGER)
}

/// What `element` says; `first` when it is the array's first element.
pub fn said(element: &Value, first: bool) -> Said<'_> {
    let Some(object) = element.as_object() else {
        return Said::NotUnderstood;
    };
    let Some(kind) = object.get("type").and_then(Value::as_str) else {
        return Said::NotUnderstood;
    };
    if object.get("partial").and_then(Value::as_bool) == Some(true) {
        return Said::Nothing;
    }
    let text = object.get("text").and_then(Value::as_str).unwrap_or("");
    let said = match (kind, sub_kind(object, kind)) {
        ("say", "text" | "task") if first => Said::Message(Role::User, Cow::Borrowed(text)),
        ("say", "user_feedback") => Said::Message(Role::User, Cow::Borrowed(text)),
        ("say", "text" | "completion_result" | "plan_completion_result") => {
            Said::Message(Role::Assistant, Cow::Borrowed(text))
        }
        ("say", "condense_context") => {
            return unverified::condensed_summary(object).map_or(Said::Nothing, Said::Condensed)
        }
        ("ask", ask) => match unverified::asked_text(ask, text) {
            Some(text) => Said::Message(Role::Assistant, text),
            None => Said::Nothing,
        },
        _ => Said::Nothing,
    };
    match said {
        Said::Message(_, ref text) if text.trim().is_empty() => Said::Nothing,
        said => said,
    }
}

/// The `say` or `ask` of an element of that type (empty when absent).
fn sub_kind<'a>(object: &'a Map<String, Value>, kind: &str) -> &'a str {
    object.get(kind).and_then(Value::as_str).unwrap_or("")
}
