//! What the server sends the client outside of answers: notifications
//! (logs, messages, diagnostics, progress) and requests whose answers the
//! main loop routes back here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

use crossbeam_channel::{Sender, TrySendError};
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
    /// For the main loop's thread: an async task calls [`Self::send_from_task`].
    pub fn send(&self, message: impl Into<Outgoing>) {
        // The writer is gone only at the end: nothing is left to tell.
        let _ = self.outbox.send(message.into());
    }

    /// As [`Self::send`], from an async task: while the output is full it
    /// waits on the blocking pool, never on one of the few async workers
    /// (a client that does not read would otherwise stop every task).
    pub async fn send_from_task(&self, message: impl Into<Outgoing>) {
        match self.outbox.try_send(message.into()) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(message)) => {
                let outbox = self.outbox.clone();
                let _ = tokio::task::spawn_blocking(move || outbox.send(message)).await;
            }
        }
    }

    pub fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(notification::<N>(params));
    }

    /// As [`Self::notify`], from an async task.
    pub async fn notify_from_task<N: lsp_types::notification::Notification>(
        &self,
        params: N::Params,
    ) {
        self.send_from_task(notification::<N>(params)).await;
    }

    pub fn log_message(&self, typ: MessageType, message: String) {
        self.notify::<notification::LogMessage>(lsp_types::LogMessageParams { typ, message });
    }

    pub fn show_message(&self, typ: MessageType, message: String) {
        self.notify::<notification::ShowMessage>(lsp_types::ShowMessageParams { typ, message });
    }

    /// From an async task (the diagnostics of a document are computed in
    /// one).
    pub async fn publish_diagnostics(
        &self,
        uri: Url,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        self.notify_from_task::<notification::PublishDiagnostics>(
            lsp_types::PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            },
        )
        .await;
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
        self.send_from_task(Message::Request(Request::new(
            id,
            R::METHOD.to_string(),
            params,
        )))
        .await;
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

fn notification<N: lsp_types::notification::Notification>(params: N::Params) -> Message {
    Message::Notification(Notification::new(N::METHOD.to_string(), params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    fn message(method: &str) -> Message {
        Message::Notification(Notification::new(method.to_string(), ()))
    }

    /// A task that sends while the output is full waits without holding its
    /// async worker: on a runtime of one thread, another task runs first.
    /// (A blocking send would stop that thread until the rescue below made
    /// room, and the order would be the other way round.)
    #[test]
    fn a_send_from_a_task_waits_off_the_async_workers() {
        let (outbox, written) = crossbeam_channel::bounded(1);
        let client = Arc::new(Client::new(outbox));
        client.send(message("fills the output"));
        let (said, order) = mpsc::channel();
        let (ran, other_ran) = mpsc::channel::<()>();
        // The writer's stand-in: makes room once the other task ran (or, as
        // a rescue for a blocking send, after a long while).
        let drainer = std::thread::spawn(move || {
            let _ = other_ran.recv_timeout(Duration::from_secs(30));
            let first = written.recv();
            let second = written.recv();
            (first.is_ok(), second.is_ok())
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let sender = {
                let (client, said) = (client.clone(), said.clone());
                tokio::spawn(async move {
                    client.send_from_task(message("waits for room")).await;
                    said.send("sent").unwrap();
                })
            };
            tokio::task::yield_now().await;
            said.send("another task ran").unwrap();
            ran.send(()).unwrap();
            sender.await.unwrap();
        });
        assert_eq!(
            order.try_iter().collect::<Vec<_>>(),
            ["another task ran", "sent"]
        );
        assert_eq!(drainer.join().unwrap(), (true, true));
    }
}
