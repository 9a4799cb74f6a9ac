//! What the server sends the client outside of answers: notifications
//! (logs, messages, diagnostics, progress) and requests whose answers the
//! main loop routes back here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

use crossbeam_channel::Sender;
use lsp_server::{Message, Notification, Request, RequestId, Response, ResponseError};
use lsp_types::{notification, request, MessageType, Url};
use tokio::sync::oneshot;

use super::edge::Outgoing;

pub struct Client {
    outbox: Sender<Outgoing>,
    next_id: AtomicI32,
    /// Our requests waiting for the client's answer.
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Response>>>,
}

/// Forgets a request whose caller stopped waiting (a timeout), so an
/// answer that never comes leaves nothing behind.
struct Forget<'a>(&'a Client, RequestId);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.0.lock().remove(&self.1);
    }
}

impl Client {
    pub fn new(outbox: Sender<Outgoing>) -> Self {
        Client {
            outbox,
            next_id: AtomicI32::new(1),
            waiting: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Response>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a message; waits while the output is full (backpressure).
    pub fn send(&self, message: impl Into<Outgoing>) {
        // The writer is gone only at the end: nothing is left to tell.
        let _ = self.outbox.send(message.into());
    }

    pub fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Message::Notification(Notification::new(
            N::METHOD.to_string(),
            params,
        )));
    }

    pub fn log_message(&self, typ: MessageType, message: String) {
        self.notify::<notification::LogMessage>(lsp_types::LogMessageParams { typ, message });
    }

    pub fn show_message(&self, typ: MessageType, message: String) {
        self.notify::<notification::ShowMessage>(lsp_types::ShowMessageParams { typ, message });
    }

    pub fn publish_diagnostics(
        &self,
        uri: Url,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        self.notify::<notification::PublishDiagnostics>(lsp_types::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }

    /// Sends request `R` and waits for its answer.
    pub async fn request<R: lsp_types::request::Request>(
        &self,
        params: R::Params,
    ) -> Result<R::Result, ResponseError> {
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (answer, answered) = oneshot::channel();
        self.lock().insert(id.clone(), answer);
        let _forget = Forget(self, id.clone());
        self.send(Message::Request(Request::new(
            id,
            R::METHOD.to_string(),
            params,
        )));
        let response = answered.await.map_err(|_| ResponseError {
            code: lsp_server::ErrorCode::InternalError as i32,
            message: format!("{} was never answered", R::METHOD),
            data: None,
        })?;
        let value = response.response_result?;
        serde_json::from_value(value).map_err(|e| ResponseError {
            code: lsp_server::ErrorCode::ParseError as i32,
            message: format!("the answer to {} is not understood: {e}", R::METHOD),
            data: None,
        })
    }

    /// `workspace/configuration`.
    pub async fn configuration(
        &self,
        items: Vec<lsp_types::ConfigurationItem>,
    ) -> Result<Vec<serde_json::Value>, ResponseError> {
        self.request::<request::WorkspaceConfiguration>(lsp_types::ConfigurationParams { items })
            .await
    }

    /// An answer from the client to one of our requests (others are
    /// ignored: a client may answer late, or twice).
    pub fn complete(&self, response: Response) {
        let waiting = self.lock().remove(&response.id);
        match waiting {
            Some(answer) => {
                let _ = answer.send(response);
            }
            None => tracing::debug!("an answer to no request of ours: {}", response.id),
        }
    }
}
