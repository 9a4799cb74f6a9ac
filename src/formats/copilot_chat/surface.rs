//! What a Copilot Chat session shows of its final state
//! (agent-logs-more.md "Messages", "Capacity"): each request's text, and
//! its response's markdown with inline references written as code; tool
//! calls, thinking, edits and the rest are not part of the surface.

use serde_json::Value;

/// The requests of a state, in order.
pub fn requests(state: &Value) -> &[Value] {
    state
        .get("requests")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Whether the request is hidden from the chat (older sessions).
pub fn is_hidden(request: &Value) -> bool {
    request.get("isHidden").and_then(Value::as_bool) == Some(true)
}

/// What the person asked: `message.text` (or `message` when a string).
pub fn user_text(request: &Value) -> Option<&str> {
    match request.get("message")? {
        Value::String(text) => Some(text),
        message => message.get("text")?.as_str(),
    }
}

/// The response's text: its parts concatenated without a separator (a
/// cancelled request keeps what it had streamed).
pub fn assistant_text(request: &Value) -> String {
    let mut text = String::new();
    let parts = request
        .get("response")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for part in parts {
        match part {
            Value::String(s) => text.push_str(s),
            Value::Object(map) => match map.get("kind").and_then(Value::as_str) {
                None if map.get("kind").is_none_or(Value::is_null) => {
                    if let Some(value) = map.get("value").and_then(Value::as_str) {
                        text.push_str(value);
                    }
                }
                Some("markdownContent") => {
                    let content = map.get("content");
                    let value = match content {
                        Some(Value::String(s)) => Some(s.as_str()),
                        Some(c) => c.get("value").and_then(Value::as_str),
                        None => None,
                    };
                    if let Some(value) = value {
                        text.push_str(value);
                    }
                }
                Some("inlineReference") => {
                    if let Some(name) = reference_name(part) {
                        text.push('`');
                        text.push_str(name);
                        text.push('`');
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    text
}

/// How an inline reference reads: its `name`, else the reference's name,
/// else the last segment of the file's path.
fn reference_name(part: &Value) -> Option<&str> {
    fn non_empty(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str).filter(|s| !s.is_empty())
    }
    if let Some(name) = non_empty(part.get("name")) {
        return Some(name);
    }
    let reference = part.get("inlineReference")?;
    if let Some(name) = non_empty(reference.get("name")) {
        return Some(name);
    }
    let paths = [
        reference.get("uri").and_then(|u| u.get("path")),
        reference
            .get("location")
            .and_then(|l| l.get("uri"))
            .and_then(|u| u.get("path")),
        reference.get("path"),
    ];
    paths
        .into_iter()
        .find_map(non_empty)
        .and_then(|path| path.rsplit('/').next())
        .filter(|segment| !segment.is_empty())
}

/// The context window of the model selected now (it may differ from the
/// one the requests used): a whole number from 1 on.
pub fn capacity(state: &Value) -> Option<u64> {
    state
        .pointer("/inputState/selectedModel/metadata/maxInputTokens")
        .and_then(Value::as_u64)
        .filter(|&n| n >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn markdown_and_references_make_the_answer_and_the_rest_is_not_read() {
        let request = json!({"message": {"text": "q"}, "response": [
            "a ",
            {"value": "b", "supportThemeIcons": false},
            {"kind": null, "value": "c"},
            {"kind": "markdownContent", "content": {"value": "d"}},
            {"kind": "markdownContent", "content": "e"},
            {"kind": "inlineReference", "name": "N", "inlineReference": {"name": "no"}},
            {"kind": "inlineReference", "inlineReference": {"name": "R"}},
            {"kind": "inlineReference", "inlineReference": {"uri": {"path": "/x/u.rs"}}},
            {"kind": "inlineReference", "inlineReference": {"location": {"uri": {"path": "/x/l.rs"}}}},
            {"kind": "inlineReference", "inlineReference": {"path": "/x/p.rs"}},
            {"kind": "inlineReference", "inlineReference": {"path": "/x/"}},
            {"kind": "thinking", "value": "no"},
            {"kind": "toolInvocationSerialized", "invocationMessage": "no"},
            {"kind": "progressMessage", "content": {"value": "no"}},
            7
        ]});
        assert_eq!(assistant_text(&request), "a bcde`N``R``u.rs``l.rs``p.rs`");
        assert_eq!(user_text(&request), Some("q"));
        assert_eq!(user_text(&json!({"message": "plain"})), Some("plain"));
        assert_eq!(user_text(&json!({"message": {"text": 1}})), None);
        assert!(is_hidden(&json!({"isHidden": true})));
        assert!(!is_hidden(&json!({"isHidden": "true"})));
    }

    #[test]
    fn capacity_is_the_selected_model_s_whole_input_window() {
        let with = |n: Value| json!({"inputState": {"selectedModel": {"metadata": {"maxInputTokens": n}}}});
        assert_eq!(capacity(&with(json!(127805))), Some(127805));
        assert_eq!(capacity(&with(json!(0))), None);
        assert_eq!(capacity(&with(json!(1.5))), None);
        assert_eq!(capacity(&json!({})), None);
    }
}
