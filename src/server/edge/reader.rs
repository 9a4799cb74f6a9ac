//! The reader thread: frames the input, repairs lone surrogates, parses
//! each message once into an [`lsp_server::Message`] and hands it to the
//! main loop. Every frame that cannot be a message is answered here, so
//! the main loop only ever sees messages.

use std::io::{BufReader, Read};
use std::sync::Arc;

use crossbeam_channel::Sender;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response, ResponseError};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

use super::frame::{read_frame, Input, MAX_MESSAGE};
use super::ids::IdBook;
use super::surrogates::replace_lone_surrogates;
use super::{error_response, Outgoing};

/// A message's members, read once. (`id` is kept as its JSON text, so
/// any number or string is answered as sent: see [`IdBook`].)
#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Box<RawValue>>,
    #[serde(default)]
    method: Option<Value>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// A member that is there, `null` included (`Option` alone reads `null`
/// as absent).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Reads `input` on a thread of its own until end of input (or until the
/// main loop is gone): messages go to `inbox`, errors about bad frames to
/// `outbox`. The inbox's sender is dropped at the end, which is how the
/// main loop learns of end of input.
pub fn spawn_reader(
    input: impl Read + Send + 'static,
    inbox: Sender<Message>,
    outbox: Sender<Outgoing>,
    ids: Arc<IdBook>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("lsp-reader".to_string())
        .spawn(move || read_messages(input, &inbox, &outbox, &ids))
        .map(drop)
}

fn read_messages(
    input: impl Read,
    inbox: &Sender<Message>,
    outbox: &Sender<Outgoing>,
    ids: &IdBook,
) {
    let mut input = BufReader::with_capacity(1 << 16, input);
    loop {
        let answer = match read_frame(&mut input) {
            Input::End => return,
            Input::BadHeader => Err(error_response(
                None,
                ErrorCode::ParseError as i32,
                "Parse error: missing or bad Content-Length",
            )),
            Input::TooLarge(length) => Err(error_response(
                None,
                ErrorCode::ParseError as i32,
                &format!(
                    "Parse error: a {length}-byte message is over the {MAX_MESSAGE}-byte limit"
                ),
            )),
            Input::Message(body) => decode(body, ids),
        };
        let delivered = match answer {
            Ok(message) => inbox.send(message).is_ok(),
            Err(error) => outbox.send(error).is_ok(),
        };
        if !delivered {
            return;
        }
    }
}

/// The message in `body`, or the error response it gets.
fn decode(mut body: Vec<u8>, ids: &IdBook) -> Result<Message, Outgoing> {
    let repaired = replace_lone_surrogates(&mut body);
    if repaired > 0 {
        tracing::debug!("{repaired} lone surrogates in a message read as U+FFFD");
    }
    let envelope = match serde_json::from_slice::<Envelope>(&body) {
        Ok(envelope) => envelope,
        Err(_) => return Err(rejection(&body)),
    };
    let version_ok = matches!(&envelope.jsonrpc, Some(Value::String(v)) if v == "2.0");
    let invalid = |id: Option<RequestId>, why: &str| {
        Err(error_response(
            id,
            ErrorCode::InvalidRequest as i32,
            &format!("Invalid request: {why}"),
        ))
    };
    let params = envelope.params.unwrap_or(Value::Null);
    match (envelope.method, envelope.id) {
        (Some(method), Some(raw)) => {
            // A request: its id is echoed as sent, or it is unusable.
            let Ok(id) = ids.intake(raw) else {
                return invalid(None, "the id must be a number or a string");
            };
            match method {
                Value::String(method) if version_ok => {
                    Ok(Message::Request(Request { id, method, params }))
                }
                Value::String(_) => invalid(Some(id), "\"jsonrpc\" must be \"2.0\""),
                _ => invalid(Some(id), "\"method\" must be a string"),
            }
        }
        (Some(Value::String(method)), None) if version_ok => Ok(Message::Notification(
            cancel_of_stand_in(Notification { method, params }, ids),
        )),
        (Some(Value::String(_)), None) => invalid(None, "\"jsonrpc\" must be \"2.0\""),
        (Some(_), None) => invalid(None, "\"method\" must be a string"),
        (None, raw) => {
            // A response to one of the server's requests, whose ids are
            // the server's own: read plainly.
            let id = raw.and_then(|raw| serde_json::from_str::<RequestId>(raw.get()).ok());
            let result = match (envelope.result, envelope.error) {
                (_, Some(error)) => serde_json::from_value::<ResponseError>(error).map(Err),
                (Some(result), None) => Ok(Ok(result)),
                (None, None) => return invalid(id, "a message needs a \"method\" or a result"),
            };
            match (id, result) {
                (Some(id), Ok(response_result)) if version_ok => Ok(Message::Response(Response {
                    id,
                    response_result,
                })),
                (id, _) => invalid(id, "not a response"),
            }
        }
    }
}

/// `$/cancelRequest` of a request that has a stand-in id names the
/// stand-in, so the main loop finds it.
fn cancel_of_stand_in(mut notification: Notification, ids: &IdBook) -> Notification {
    if notification.method == "$/cancelRequest" {
        if let Some(stand_in) = notification
            .params
            .get("id")
            .and_then(|id| ids.stand_in(id))
        {
            if let Ok(id) = serde_json::to_value(stand_in) {
                notification.params["id"] = id;
            }
        }
    }
    notification
}

/// The error for a body that is not a message: −32700 when it is not JSON,
/// else −32600 with its id when it has one a response can carry. (Only
/// this error path reads the body a second time.)
fn rejection(body: &[u8]) -> Outgoing {
    match serde_json::from_slice::<Value>(body) {
        Err(_) => error_response(None, ErrorCode::ParseError as i32, "Parse error"),
        Ok(value) => {
            let id = value
                .get("id")
                .cloned()
                .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
            error_response(id, ErrorCode::InvalidRequest as i32, "Invalid request")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(text: &str) -> Result<Message, Outgoing> {
        decode(text.as_bytes().to_vec(), &IdBook::default())
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        let request = decoded(r#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}"#);
        assert!(
            matches!(&request, Ok(Message::Request(r)) if r.method == "shutdown" && r.params.is_null())
        );
        let notification = decoded(r#"{"jsonrpc":"2.0","method":"exit"}"#);
        assert!(matches!(notification, Ok(Message::Notification(_))));
        let response = decoded(r#"{"jsonrpc":"2.0","id":"a","result":null}"#);
        assert!(matches!(response, Ok(Message::Response(_))));
    }

    #[test]
    fn bad_bodies_get_their_error() {
        let code = |text: &str| match decoded(text) {
            Err(Outgoing::ErrorWithoutId(e)) => (e.code, None),
            Err(Outgoing::Message(Message::Response(r))) => {
                (r.response_result.unwrap_err().code, Some(r.id))
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(code("{]}"), (-32700, None));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":5,"method":"initialize"}"#),
            (-32600, Some(RequestId::from(5)))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":6,"method":7}"#),
            (-32600, Some(RequestId::from(6)))
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0"}"#), (-32600, None));
    }

    #[test]
    fn ids_a_request_id_cannot_hold_stand_in_or_are_refused() {
        let ids = IdBook::default();
        let big = decode(
            br#"{"jsonrpc":"2.0","id":4294967296,"method":"shutdown"}"#.to_vec(),
            &ids,
        );
        let Ok(Message::Request(request)) = big else {
            panic!("{big:?}")
        };
        assert_eq!(ids.answered(&request.id).unwrap().get(), "4294967296");
        for id in ["null", "true", "{}", "[]"] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
            let refused = decode(body.into_bytes(), &ids);
            assert!(
                matches!(&refused, Err(Outgoing::ErrorWithoutId(e)) if e.code == -32600),
                "{id}: {refused:?}"
            );
        }
        let cancel = decode(
            br#"{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover"}"#.to_vec(),
            &ids,
        );
        let Ok(Message::Request(hover)) = cancel else {
            panic!("{cancel:?}")
        };
        let cancel = decode(
            br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1.5}}"#.to_vec(),
            &ids,
        );
        let Ok(Message::Notification(n)) = cancel else {
            panic!("{cancel:?}")
        };
        assert_eq!(
            serde_json::from_value::<RequestId>(n.params["id"].clone()).unwrap(),
            hover.id
        );
    }

    #[test]
    fn a_lone_surrogate_is_read_as_the_replacement_character() {
        let message = decoded(
            r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"hello\ud83d World"}}"#,
        );
        let Ok(Message::Notification(n)) = message else {
            panic!("{message:?}")
        };
        assert_eq!(n.params["text"], "hello\u{FFFD} World");
    }
}
