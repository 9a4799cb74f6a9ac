//! The protocol edge: one JSON-RPC stack (lsp-server's message types and
//! channel pair) fed by our own reader and drained by our own writer.
//!
//! - [`reader`]: frames the input ([`frame`]), repairs lone surrogates
//!   ([`surrogates`]) and parses each message exactly once into an
//!   [`lsp_server::Message`] for the main loop; a bad frame is answered
//!   (−32700 or −32600) and reading resynchronises on the next header.
//! - [`writer`]: writes the messages the server sends, in order.
//! - [`ids`]: request ids lsp-server's `RequestId` cannot hold exactly,
//!   given to the main loop as stand-ins and written back as sent.
//!
//! Both channels are bounded: a client that does not read fills the
//! output channel, the main loop then waits to send, stops taking input,
//! and the reader stops reading. Nothing grows.

pub mod frame;
mod ids;
mod reader;
mod surrogates;
mod writer;

pub use ids::IdBook;
pub use reader::spawn_reader;
pub use writer::Writer;

use lsp_server::{Message, RequestId, Response, ResponseError};
use serde_json::value::RawValue;

/// Messages read but not yet taken by the main loop, at most.
pub const INPUT_MESSAGES: usize = 64;
/// Messages waiting to be written, at most (the answers of a few dozen
/// large `prepare`s; then whoever sends waits).
pub const OUTPUT_MESSAGES: usize = 32;

/// What the server writes: a message, a request's answer already written
/// as JSON, or an error about a message whose id could not be read
/// (JSON-RPC's `"id": null`, which lsp-server's `RequestId` cannot hold).
#[derive(Debug)]
pub enum Outgoing {
    Message(Message),
    Answer(Answer),
    ErrorWithoutId(ResponseError),
}

/// A request's answer whose result is JSON text already: a handler's
/// answer is serialized once, on the worker that made it, and written as
/// it is (through a `serde_json::Value` it would be built as a tree and
/// walked again: most of a large completion list's cost, issue 24).
#[derive(Debug)]
pub struct Answer {
    pub id: RequestId,
    pub result: Result<Box<RawValue>, ResponseError>,
}

impl From<Answer> for Outgoing {
    fn from(answer: Answer) -> Self {
        Outgoing::Answer(answer)
    }
}

impl From<Message> for Outgoing {
    fn from(message: Message) -> Self {
        Outgoing::Message(message)
    }
}

impl From<Response> for Outgoing {
    fn from(response: Response) -> Self {
        Outgoing::Message(Message::Response(response))
    }
}

/// The error response to a message: with its id when it had a usable one.
pub fn error_response(id: Option<RequestId>, code: i32, message: &str) -> Outgoing {
    let error = ResponseError {
        code,
        message: message.to_string(),
        data: None,
    };
    match id {
        Some(id) => Response {
            id,
            response_result: Err(error),
        }
        .into(),
        None => Outgoing::ErrorWithoutId(error),
    }
}
