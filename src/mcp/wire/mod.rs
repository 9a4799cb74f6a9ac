//! The MCP server's stdio transport: our own line reader and envelope
//! check in front of the SDK's service, and a writer of one line per
//! message.
//!
//! The SDK's own stdio transport drops a line that is not JSON and sends
//! some malformed requests nowhere, so a client could wait for ever; here
//! every line is judged first ([`envelope`]) and every request with an id
//! gets exactly one answer. What comes before `initialize` is the guard's
//! ([`super::guard`]).

mod envelope;
mod lines;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ErrorData, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use super::guard::{starts, verdict, Verdict};
use super::revision::Revisions;
use envelope::{classify, Incoming};
use lines::{Line, Lines};

type Sending = Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>;

pub struct Stdio<R, W> {
    lines: Lines<R>,
    output: Arc<Mutex<W>>,
    max_line: usize,
    revisions: Revisions,
    /// The SDK has a lifecycle (see [`super::guard`]).
    started: bool,
    /// An answer of ours being written. Kept here, not in `receive`'s
    /// future, which the service loop may drop: the answer is finished at
    /// the next call.
    sending: Option<Sending>,
}

impl<R, W> Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport over `input` and `output` for the `revisions` served;
    /// a line over `max_line` bytes is skipped (and answered).
    pub fn new(input: R, output: W, max_line: usize, revisions: Revisions) -> Self {
        Self {
            lines: Lines::new(input, max_line),
            output: Arc::new(Mutex::new(output)),
            max_line,
            revisions,
            started: false,
            sending: None,
        }
    }

    fn write(&self, message: TxJsonRpcMessage<RoleServer>) -> Sending {
        let output = self.output.clone();
        Box::pin(async move {
            let mut line = line_of(&message).map_err(std::io::Error::other)?;
            line.push(b'\n');
            let mut output = output.lock().await;
            output.write_all(&line).await?;
            output.flush().await
        })
    }

    fn answer(&mut self, message: ServerJsonRpcMessage) {
        self.sending = Some(self.write(message));
    }

    /// What a judged message becomes: passed on, or answered here.
    fn guarded(
        &mut self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        match verdict(&message, self.started, self.revisions.inline()) {
            Verdict::Pass => {
                if !self.started && starts(&message, self.revisions.supported()) {
                    self.started = true;
                }
                Some(message)
            }
            Verdict::Drop => None,
            Verdict::NotFound => {
                if let JsonRpcMessage::Request(r) = message {
                    let error = ErrorData::new(
                        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                        format!(
                            "method not found: {}",
                            super::text::short(r.request.method())
                        ),
                        None,
                    );
                    self.answer(ServerJsonRpcMessage::error(error, Some(r.id)));
                }
                None
            }
        }
    }
}

/// A message as one line of JSON. An error without an id carries
/// `"id": null`, as JSON-RPC 2.0 and the revisions this server speaks
/// want (the SDK leaves the member out, as the 2026-07-28 revision allows).
fn line_of(message: &TxJsonRpcMessage<RoleServer>) -> serde_json::Result<Vec<u8>> {
    match message {
        JsonRpcMessage::Error(e) if e.id.is_none() => serde_json::to_vec(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": e.error,
        })),
        other => serde_json::to_vec(other),
    }
}

impl<R, W> Transport<RoleServer> for Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(sending) = self.sending.as_mut() {
                // A client that is gone ends the session at the next read.
                if let Err(e) = sending.await {
                    tracing::debug!("cannot answer the client: {e}");
                }
                self.sending = None;
            }
            let incoming = match self.lines.next().await {
                Line::Complete => classify(self.lines.current()),
                Line::TooLong => Incoming::Refused(ServerJsonRpcMessage::error(
                    ErrorData::invalid_request(
                        format!("Invalid request: a line over {} bytes", self.max_line),
                        None,
                    ),
                    None,
                )),
                Line::End => return None,
                Line::Failed(e) => {
                    tracing::debug!("cannot read from the client: {e}");
                    return None;
                }
            };
            match incoming {
                Incoming::Message(message) => {
                    if let Some(message) = self.guarded(message) {
                        return Some(message);
                    }
                }
                Incoming::Refused(answer) => self.answer(answer),
                Incoming::Skipped => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.output.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_without_an_id_says_id_null() {
        let error = ServerJsonRpcMessage::error(ErrorData::parse_error("Parse error", None), None);
        let line: serde_json::Value = serde_json::from_slice(&line_of(&error).unwrap()).unwrap();
        assert_eq!(
            line,
            serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}})
        );
    }
}
