//! The reader thread: frames the input, repairs lone surrogates, parses
//! each message once into an [`lsp_server::Message`] and hands it to the
//! main loop. Every frame that cannot be a message is answered here, so
//! the main loop only ever sees messages.

use std::io::{BufReader, Read};

use crossbeam_channel::Sender;
use lsp_server::{ErrorCode, Message, RequestId};
use serde::Deserialize;
use serde_json::Value;

use super::frame::{read_frame, Input, MAX_MESSAGE};
use super::surrogates::replace_lone_surrogates;
use super::{error_response, Outgoing};

/// A message with the version field lsp-server does not keep.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    jsonrpc: Option<String>,
    #[serde(flatten)]
    message: Message,
}

/// Reads `input` on a thread of its own until end of input (or until the
/// main loop is gone): messages go to `inbox`, errors about bad frames to
/// `outbox`. The inbox's sender is dropped at the end, which is how the
/// main loop learns of end of input.
pub fn spawn_reader(
    input: impl Read + Send + 'static,
    inbox: Sender<Message>,
    outbox: Sender<Outgoing>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("lsp-reader".to_string())
        .spawn(move || read_messages(input, &inbox, &outbox))
        .map(drop)
}

fn read_messages(input: impl Read, inbox: &Sender<Message>, outbox: &Sender<Outgoing>) {
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
            Input::Message(body) => decode(body),
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
fn decode(mut body: Vec<u8>) -> Result<Message, Outgoing> {
    let repaired = replace_lone_surrogates(&mut body);
    if repaired > 0 {
        tracing::debug!("{repaired} lone surrogates in a message read as U+FFFD");
    }
    match serde_json::from_slice::<Envelope>(&body) {
        Ok(envelope) if envelope.jsonrpc.as_deref() == Some("2.0") => Ok(envelope.message),
        Ok(envelope) => Err(error_response(
            id_of(&envelope.message),
            ErrorCode::InvalidRequest as i32,
            "Invalid request: \"jsonrpc\" must be \"2.0\"",
        )),
        Err(_) => Err(rejection(&body)),
    }
}

fn id_of(message: &Message) -> Option<RequestId> {
    match message {
        Message::Request(request) => Some(request.id.clone()),
        Message::Response(response) => Some(response.id.clone()),
        Message::Notification(_) => None,
    }
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
        decode(text.as_bytes().to_vec())
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
