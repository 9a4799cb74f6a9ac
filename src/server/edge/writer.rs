//! The writer thread: writes what the server sends, in order, each message
//! framed once. Its channel is bounded (see the module above).

use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, Response, ResponseError};
use serde::Serialize;
use serde_json::json;
use serde_json::value::RawValue;

use super::frame::frame;
use super::ids::IdBook;
use super::{Answer, Outgoing};

/// The running writer: stop it with [`Writer::finish`].
pub struct Writer {
    stop: Sender<()>,
    done: Receiver<()>,
}

impl Writer {
    /// Writes what arrives on `outbox` to `output` on a thread of its own.
    pub fn spawn(
        output: impl Write + Send + 'static,
        outbox: Receiver<Outgoing>,
        ids: Arc<IdBook>,
    ) -> std::io::Result<Writer> {
        let (stop, stopped) = crossbeam_channel::bounded(1);
        let (finished, done) = crossbeam_channel::bounded(1);
        std::thread::Builder::new()
            .name("lsp-writer".to_string())
            .spawn(move || {
                write_messages(output, &outbox, &stopped, &ids);
                let _ = finished.send(());
            })?;
        Ok(Writer { stop, done })
    }

    /// Writes what is queued now, then stops; waits at most `grace` (a
    /// client that does not read must not keep the process alive).
    pub fn finish(self, grace: Duration) {
        let _ = self.stop.send(());
        let _ = self.done.recv_timeout(grace);
    }
}

fn write_messages(
    output: impl Write,
    outbox: &Receiver<Outgoing>,
    stop: &Receiver<()>,
    ids: &IdBook,
) {
    let mut output = BufWriter::with_capacity(1 << 16, output);
    let mut broken = false;
    loop {
        crossbeam_channel::select! {
            recv(outbox) -> next => match next {
                Ok(message) => write_one(&mut output, message, &mut broken, ids),
                Err(_) => return,
            },
            recv(stop) -> _ => {
                while let Ok(message) = outbox.try_recv() {
                    write_one(&mut output, message, &mut broken, ids);
                }
                return;
            }
        }
    }
}

/// Writes one message; once the client is gone, messages are dropped (so
/// nobody waits for room that will never come).
fn write_one(output: &mut impl Write, message: Outgoing, broken: &mut bool, ids: &IdBook) {
    if *broken {
        return;
    }
    let written = match message {
        Outgoing::Message(Message::Response(response)) => match ids.answered(&response.id) {
            Some(raw) => write_with_id(output, &raw, &response),
            None => Message::Response(response).write(output),
        },
        Outgoing::Message(message) => message.write(output),
        Outgoing::Answer(Answer { id, result }) => match ids.answered(&id) {
            Some(raw) => write_answer(output, &*raw, result.as_ref()),
            None => write_answer(output, &id, result.as_ref()),
        },
        Outgoing::ErrorWithoutId(error) => {
            let body = json!({"jsonrpc": "2.0", "id": null, "error": error}).to_string();
            output
                .write_all(&frame(body.as_bytes()))
                .and_then(|()| output.flush())
        }
    };
    if let Err(e) = written {
        tracing::debug!("cannot write to the client: {e}");
        *broken = true;
    }
}

/// A response: its id as the client wrote it (or as lsp-server holds
/// it), and its result as a tree or as JSON text.
#[derive(Serialize)]
struct Written<'a, Id: Serialize + ?Sized, R: Serialize> {
    jsonrpc: &'static str,
    id: &'a Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ResponseError>,
}

/// A response of lsp-server's type whose request had an id it cannot
/// hold: written with the id as sent.
fn write_with_id(
    output: &mut impl Write,
    id: &RawValue,
    response: &Response,
) -> std::io::Result<()> {
    write_answer(output, id, response.response_result.as_ref())
}

fn write_answer<Id: Serialize + ?Sized, R: Serialize>(
    output: &mut impl Write,
    id: &Id,
    answer: Result<&R, &ResponseError>,
) -> std::io::Result<()> {
    let (result, error) = match answer {
        Ok(result) => (Some(result), None),
        Err(error) => (None, Some(error)),
    };
    let body = serde_json::to_vec(&Written {
        jsonrpc: "2.0",
        id,
        result,
        error,
    })
    .map_err(std::io::Error::other)?;
    output.write_all(&frame(&body))?;
    output.flush()
}
