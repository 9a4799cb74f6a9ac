//! One input line judged as JSON-RPC before the SDK sees it: a message the
//! SDK can take as it is, an error answer, or nothing.
//!
//! The SDK parses what it is given into one untagged enum, so a request
//! whose params do not fit their method falls through to its "custom
//! request" and is answered −32601, and some shapes are not answered at
//! all. Here every request with an id gets its answer: −32700 (id `null`)
//! for a line that is not UTF-8 or not JSON, −32600 for what is not a
//! request (with the id when it has a usable one), −32602 when the params
//! do not fit the method. The SDK's own request types are the schema.

use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, ClientRequest, ErrorData, InitializeRequest,
    JsonRpcMessage, ListResourceTemplatesRequest, ListResourcesRequest, ListToolsRequest,
    NumberOrString, PingRequest, ReadResourceRequest, RequestId, ServerJsonRpcMessage,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::mcp::text::short;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What one line is.
#[derive(Debug)]
pub enum Incoming {
    /// A message for the SDK.
    Message(ClientJsonRpcMessage),
    /// Not one: this is its answer.
    Refused(ServerJsonRpcMessage),
    /// Nothing to pass on and nothing to answer (a blank line, a
    /// notification or response that is not a message).
    Skipped,
}

/// Judges one line (without its line end).
pub fn classify(line: &[u8]) -> Incoming {
    let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Skipped;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return refuse(
            None,
            ErrorData::parse_error("Parse error: the line is not UTF-8", None),
        );
    };
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        Err(e) => {
            return refuse(
                None,
                ErrorData::parse_error(format!("Parse error: {e}"), None),
            )
        }
    };
    let Value::Object(object) = value else {
        return invalid(None, "a message is a JSON object");
    };
    let id = match object.get("id") {
        None => Id::Absent,
        Some(id) => usable_id(id).map_or(Id::Unusable, Id::Usable),
    };
    match (object.get("method"), id) {
        (Some(Value::String(_)), Id::Absent) => pass_or_skip(object),
        (Some(Value::String(method)), Id::Usable(id)) => {
            let method = method.clone();
            request(object, id, &method, text)
        }
        (Some(_), Id::Usable(id)) => invalid(Some(id), "\"method\" must be a string"),
        (Some(_), Id::Absent) => invalid(None, "\"method\" must be a string"),
        (_, Id::Unusable) => invalid(None, "\"id\" must be a string or an integer"),
        // A response is never answered, a malformed one least of all.
        (None, _) if object.contains_key("result") || object.contains_key("error") => {
            pass_or_skip(object)
        }
        (None, Id::Usable(id)) => invalid(Some(id), "a request needs a \"method\""),
        (None, Id::Absent) => invalid(None, "a request needs a \"method\""),
    }
}

enum Id {
    Absent,
    Usable(RequestId),
    Unusable,
}

/// A request id as MCP allows it: a string or an integer (the SDK holds
/// one in an `i64`).
fn usable_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::String(s) => Some(NumberOrString::String(s.as_str().into())),
        Value::Number(n) => n.as_i64().map(NumberOrString::Number),
        _ => None,
    }
}

fn request(object: Map<String, Value>, id: RequestId, method: &str, text: &str) -> Incoming {
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return invalid(Some(id), "\"jsonrpc\" must be \"2.0\"");
    }
    if object
        .get("params")
        .is_some_and(|p| !p.is_object() && !p.is_null())
    {
        return refuse(
            Some(id),
            ErrorData::invalid_params("Invalid params: \"params\" must be an object", None),
        );
    }
    let check = typed_check(method);
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(JsonRpcMessage::Request(r)) if matches!(r.request, ClientRequest::CustomRequest(_)) => {
            match check {
                // A method served here fell through to the SDK's custom
                // request: its params do not fit the method's type.
                Some(check) => bad_params(id, method, check(text)),
                None => Incoming::Message(JsonRpcMessage::Request(r)),
            }
        }
        Ok(message) => Incoming::Message(message),
        Err(e) => match check {
            Some(check) => bad_params(id, method, check(text)),
            None => invalid(
                Some(id),
                &format!("not a request: {}", short(&e.to_string())),
            ),
        },
    }
}

fn bad_params(id: RequestId, method: &str, why: Option<String>) -> Incoming {
    let why = why.unwrap_or_else(|| "they do not fit the method".to_string());
    refuse(
        Some(id),
        ErrorData::invalid_params(
            format!("Invalid params for {}: {}", short(method), short(&why)),
            None,
        ),
    )
}

/// Why `text` is not a `T` (`None` when it is one).
type Check = fn(&str) -> Option<String>;

fn check<T: DeserializeOwned>(text: &str) -> Option<String> {
    serde_json::from_str::<T>(text).err().map(|e| e.to_string())
}

/// The check of a method's params, for the methods this server serves (any
/// other is the SDK's −32601). Only run once a request failed: the line is
/// read a second time then.
fn typed_check(method: &str) -> Option<Check> {
    Some(match method {
        "initialize" => check::<InitializeRequest>,
        "ping" => check::<PingRequest>,
        "resources/list" => check::<ListResourcesRequest>,
        "resources/templates/list" => check::<ListResourceTemplatesRequest>,
        "resources/read" => check::<ReadResourceRequest>,
        "tools/list" => check::<ListToolsRequest>,
        "tools/call" => check::<CallToolRequest>,
        _ => return None,
    })
}

/// A notification or response: the SDK's when it parses, else dropped
/// (neither is ever answered).
fn pass_or_skip(object: Map<String, Value>) -> Incoming {
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(message @ (JsonRpcMessage::Notification(_) | JsonRpcMessage::Response(_)))
        | Ok(message @ JsonRpcMessage::Error(_)) => Incoming::Message(message),
        Ok(JsonRpcMessage::Request(_)) | Err(_) => Incoming::Skipped,
    }
}

fn invalid(id: Option<RequestId>, why: &str) -> Incoming {
    refuse(
        id,
        ErrorData::invalid_request(format!("Invalid request: {why}"), None),
    )
}

fn refuse(id: Option<RequestId>, error: ErrorData) -> Incoming {
    Incoming::Refused(ServerJsonRpcMessage::error(error, id))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer's code and id, or what else the line is.
    fn judged(line: &[u8]) -> Result<(i32, Value), &'static str> {
        match classify(line) {
            Incoming::Refused(answer) => {
                let answer = serde_json::to_value(&answer).unwrap();
                Ok((
                    answer["error"]["code"].as_i64().unwrap() as i32,
                    answer["id"].clone(),
                ))
            }
            Incoming::Message(_) => Err("message"),
            Incoming::Skipped => Err("skipped"),
        }
    }

    fn tool_call(params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#)
    }

    #[test]
    fn params_that_do_not_fit_their_method_are_invalid_params() {
        for params in [
            r#"{"name":"list_sessions","arguments":[1]}"#,
            r#"{"arguments":{}}"#,
            r#""a string""#,
            "null",
            "[1,2]",
        ] {
            assert_eq!(
                judged(tool_call(params).as_bytes()),
                Ok((-32602, Value::from(7))),
                "{params}"
            );
        }
        for params in [r#"{"uri":12}"#, "{}", r#""x""#] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{params}}}"#
            );
            assert_eq!(
                judged(line.as_bytes()),
                Ok((-32602, Value::from("r"))),
                "{params}"
            );
        }
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}"#;
        assert_eq!(judged(list.as_bytes()), Ok((-32602, Value::from(1))));
        let unknown = r#"{"jsonrpc":"2.0","id":1,"method":"no/such","params":3}"#;
        assert_eq!(judged(unknown.as_bytes()), Ok((-32602, Value::from(1))));
    }

    #[test]
    fn requests_that_fit_pass_to_the_sdk() {
        let good = tool_call(r#"{"name":"list_sessions","arguments":{"limit":"many"}}"#);
        assert!(matches!(classify(good.as_bytes()), Incoming::Message(_)));
        let bare = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        assert!(matches!(classify(bare.as_bytes()), Incoming::Message(_)));
        let custom = r#"{"jsonrpc":"2.0","id":3,"method":"no/such","params":{}}"#;
        assert!(matches!(classify(custom.as_bytes()), Incoming::Message(_)));
        let bom = b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}";
        assert!(matches!(classify(bom), Incoming::Message(_)));
    }

    #[test]
    fn lines_that_are_not_json_are_parse_errors_without_an_id() {
        assert_eq!(judged(b"not json"), Ok((-32700, Value::Null)));
        assert_eq!(judged(b"\xff\xfe{}"), Ok((-32700, Value::Null)));
        assert_eq!(judged(b"{\"id\":1,"), Ok((-32700, Value::Null)));
        assert_eq!(judged(b"   "), Err("skipped"));
    }

    #[test]
    fn what_is_not_a_request_is_invalid_with_its_id_when_usable() {
        assert_eq!(judged(b"[1,2]"), Ok((-32600, Value::Null)));
        assert_eq!(judged(b"null"), Ok((-32600, Value::Null)));
        assert_eq!(judged(b"{}"), Ok((-32600, Value::Null)));
        assert_eq!(
            judged(br#"{"jsonrpc":"2.0","id":"x"}"#),
            Ok((-32600, Value::from("x")))
        );
        assert_eq!(
            judged(br#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#),
            Ok((-32600, Value::from(5)))
        );
        assert_eq!(
            judged(br#"{"jsonrpc":"2.0","id":5,"method":7}"#),
            Ok((-32600, Value::from(5)))
        );
        for id in ["1.5", "null", "true", "{}", "[]", "18446744073709551615"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert_eq!(judged(line.as_bytes()), Ok((-32600, Value::Null)), "{id}");
        }
    }

    #[test]
    fn notifications_and_responses_are_never_answered() {
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(classify(note), Incoming::Message(_)));
        let odd = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#;
        assert!(judged(odd).is_err(), "never answered");
        let response = br#"{"jsonrpc":"2.0","id":9,"result":{}}"#;
        assert!(matches!(classify(response), Incoming::Message(_)));
        let bad_response = br#"{"jsonrpc":"2.0","id":9,"error":"x"}"#;
        assert_eq!(judged(bad_response), Err("skipped"));
    }
}
