//! What the index's scanner keeps of a Copilot Chat state: its shape (every
//! object's keys, every array's length, every value's type), so a later
//! entry resolves or fails exactly as on the whole state, but no text it
//! never reads. A long session's answers, thinking and tool output are
//! megabytes; the scanner keeps the id, the title and the first prompts.

use serde_json::{Map, Value};

/// Where a value sits, as far as the scanner reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Root,
    Requests,
    Request,
    Message,
    /// `sessionId`, `customTitle`: kept whole.
    Kept,
    /// A request's text (`message`, or `message.text`), kept while the
    /// session has no title from a prompt yet.
    Prompt,
    Elsewhere,
}

impl At {
    fn step(self, key: Option<&str>) -> At {
        match (self, key) {
            (At::Root, Some("sessionId" | "customTitle")) => At::Kept,
            (At::Root, Some("requests")) => At::Requests,
            (At::Requests, None) => At::Request,
            (At::Request, Some("message")) => At::Message,
            (At::Message, Some("text")) => At::Prompt,
            (At::Kept, _) => At::Kept,
            _ => At::Elsewhere,
        }
    }
}

/// Thins the value an entry brings before it is applied; `prompts` keeps
/// requests' texts.
pub fn thin_entry(entry: &mut Map<String, Value>, prompts: bool) {
    let at = match entry.get("k") {
        Some(Value::Array(steps)) => steps
            .iter()
            .fold(At::Root, |at, step| at.step(step.as_str())),
        _ => At::Root,
    };
    let appends = entry.get("kind").and_then(Value::as_u64) == Some(2);
    match entry.get_mut("v") {
        Some(Value::Array(items)) if appends => {
            let at = at.step(None);
            for item in items {
                thin_value(item, at, prompts);
            }
        }
        Some(v) => thin_value(v, at, prompts),
        None => {}
    }
}

/// Thins one member of a whole document.
pub fn thin_member(key: &str, value: &mut Value, prompts: bool) {
    thin_value(value, At::Root.step(Some(key)), prompts);
}

fn thin_value(value: &mut Value, at: At, prompts: bool) {
    match value {
        Value::String(text) => {
            let keep = at == At::Kept || (prompts && matches!(at, At::Message | At::Prompt));
            if !keep {
                // Still a string: a later path into it fails as before.
                *text = String::new();
            }
        }
        Value::Array(items) => {
            let at = at.step(None);
            for item in items {
                thin_value(item, at, prompts);
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                thin_value(item, at.step(Some(key)), prompts);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn thinned(entry: Value, prompts: bool) -> Value {
        let Value::Object(mut map) = entry else {
            unreachable!()
        };
        thin_entry(&mut map, prompts);
        Value::Object(map)
    }

    #[test]
    fn the_shape_stays_and_only_what_the_scanner_reads_keeps_its_text() {
        let full = json!({"kind": 0, "v": {"sessionId": "s", "customTitle": "T", "requests": [
            {"message": {"text": "ask", "parts": [{"text": "ask"}]}, "response": [{"value": "long"}]},
            {"message": "plain"}
        ], "inputState": {"inputText": "draft", "n": 3}}});
        assert_eq!(
            thinned(full.clone(), true),
            json!({"kind": 0, "v": {"sessionId": "s", "customTitle": "T", "requests": [
                {"message": {"text": "ask", "parts": [{"text": ""}]}, "response": [{"value": ""}]},
                {"message": "plain"}
            ], "inputState": {"inputText": "", "n": 3}}})
        );
        assert_eq!(
            thinned(full, false)["v"]["requests"],
            json!([{"message": {"text": "", "parts": [{"text": ""}]}, "response": [{"value": ""}]}, {"message": ""}])
        );
        let push = json!({"kind": 2, "k": ["requests"], "v": [{"message": {"text": "next"}}]});
        assert_eq!(thinned(push.clone(), true), push);
        let title = json!({"kind": 1, "k": ["customTitle"], "v": "Named"});
        assert_eq!(thinned(title.clone(), false), title);
        let answer = json!({"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": "x"}]});
        assert_eq!(thinned(answer, true)["v"], json!([{"value": ""}]));
    }
}
