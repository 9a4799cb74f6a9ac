//! The main loop: takes messages in arrival order, changes the server state on
//! notifications, answers the lifecycle itself, and runs every other
//! request on a view taken here, off the loop, at most
//! [`MAX_IN_FLIGHT`] at once. Nothing on the loop waits for work, so
//! `status`, `shutdown`, `exit`, cancels and end of input are heard while
//! requests run. It waits for the client in one case only: when the
//! client does not read its output and the writer's queue is full (the
//! backpressure of docs/robustness.md), sending waits, and input is not
//! taken until the client reads.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, Receiver};
use lsp_server::{Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    Cancel, DidChangeConfiguration, DidChangeTextDocument, DidChangeWorkspaceFolders,
    DidCloseTextDocument, DidOpenTextDocument, Initialized, Notification as _,
};
use lsp_types::request::{Initialize, Request as _, Shutdown};
use lsp_types::{MessageType, Url};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::task::AbortHandle;

use super::edge::Answer;
use super::error::{self, Result};
use super::lsp_ext;
use super::router::{self, Job};
use super::shared::{LoopEvent, Shared};
use super::state::ServerState;

/// Requests being worked on, at most; the rest wait in arrival order.
pub const MAX_IN_FLIGHT: usize = 32;
/// Requests waiting for a slot, at most; then input is not taken until
/// one starts (the reader then stops reading).
const MAX_WAITING: usize = 1024;
/// How long work already received may go on after the end of input.
const EOF_GRACE: Duration = Duration::from_secs(2);

/// Runs the server state until `exit` or end of input; whether `shutdown` came
/// first.
pub fn run(state: ServerState, input: Receiver<Message>, events: Receiver<LoopEvent>) -> bool {
    let mut main = MainLoop {
        state,
        input,
        events,
        running: HashMap::new(),
        waiting: VecDeque::new(),
        next_key: 0,
    };
    main.run();
    main.state.shut_down
}

struct MainLoop {
    state: ServerState,
    input: Receiver<Message>,
    events: Receiver<LoopEvent>,
    /// Requests at work, by the loop's own key (a client may reuse an id).
    running: HashMap<u64, (RequestId, AbortHandle, Claim)>,
    waiting: VecDeque<(u64, RequestId, Job)>,
    next_key: u64,
}

enum Flow {
    Go,
    Exit,
}

impl MainLoop {
    fn run(&mut self) {
        let mut end_of_input: Option<Instant> = None;
        loop {
            let input = if end_of_input.is_none() && self.waiting.len() < MAX_WAITING {
                self.input.clone()
            } else {
                crossbeam_channel::never()
            };
            let grace = end_of_input.map_or_else(crossbeam_channel::never, crossbeam_channel::at);
            let events = self.events.clone();
            select! {
                recv(input) -> message => match message {
                    Ok(message) => {
                        if let Flow::Exit = self.on_message(message) {
                            return;
                        }
                    }
                    // Answer what was already sent, unless it takes long
                    // (a request waiting for a client that is gone must not
                    // keep us alive).
                    Err(_) => end_of_input = Some(Instant::now() + EOF_GRACE),
                },
                recv(events) -> event => {
                    if let Ok(event) = event {
                        self.on_event(event);
                    }
                }
                recv(grace) -> _ => return,
            }
            if end_of_input.is_some() && self.running.is_empty() && self.waiting.is_empty() {
                return;
            }
        }
    }

    fn shared(&self) -> &Shared {
        &self.state.shared
    }

    fn answer(&self, id: RequestId, answer: Result<Value>) {
        self.shared().client.send(Response {
            id,
            response_result: answer,
        });
    }

    /// A handler's answer, JSON text already.
    fn answer_written(&self, id: RequestId, result: Result<Box<RawValue>>) {
        self.shared().client.send(Answer { id, result });
    }

    fn on_message(&mut self, message: Message) -> Flow {
        match message {
            Message::Request(request) => self.on_request(request),
            Message::Notification(notification) => self.on_notification(notification),
            Message::Response(response) => {
                self.shared().client.complete(response);
                Flow::Go
            }
        }
    }

    fn on_request(&mut self, request: Request) -> Flow {
        let Request { id, method, params } = request;
        if method == "exit" {
            // `exit` is a notification; sent with an id it still ends the
            // server, and the id gets its answer (issue 18 item 1).
            self.answer(id, Ok(Value::Null));
            return Flow::Exit;
        }
        if self.state.shut_down {
            // After `shutdown` only `exit` is served (LSP 3.17).
            self.answer(
                id,
                Err(error::invalid_request(
                    "Invalid request: the server is shut down",
                )),
            );
            return Flow::Go;
        }
        if method.starts_with("$/") {
            // Protocol-dependent requests: none is served, and each is
            // answered so it never holds a slot (issue 18 item 1).
            self.answer(id, Err(error::method_not_found(&method)));
            return Flow::Go;
        }
        if method == Initialize::METHOD {
            let answer = if self.state.initialized {
                Err(error::invalid_request(
                    "Invalid request: already initialized",
                ))
            } else {
                params_of(params).map(|params| {
                    let result = self.state.on_initialize(params);
                    serde_json::to_value(result).unwrap_or(Value::Null)
                })
            };
            self.answer(id, answer);
            return Flow::Go;
        }
        if !self.state.initialized {
            self.answer(id, Err(error::not_initialized()));
            return Flow::Go;
        }
        match method.as_str() {
            Shutdown::METHOD => {
                self.state.shut_down = true;
                self.answer(id, Ok(Value::Null));
            }
            lsp_ext::Status::METHOD => {
                let status = serde_json::to_value(self.state.status_now());
                self.answer(id, Ok(status.unwrap_or(Value::Null)));
            }
            _ => {
                let view = self.state.request_view(document_of(&params).as_ref());
                match router::route(&method, params, view) {
                    None => self.answer(id, Err(error::method_not_found(&method))),
                    Some(Err(e)) => self.answer(id, Err(e)),
                    Some(Ok(job)) => self.enqueue(id, job),
                }
            }
        }
        Flow::Go
    }

    fn enqueue(&mut self, id: RequestId, job: Job) {
        let key = self.next_key;
        self.next_key += 1;
        self.waiting.push_back((key, id, job));
        self.start_waiting();
    }

    /// Starts waiting requests while slots are free.
    fn start_waiting(&mut self) {
        while self.running.len() < MAX_IN_FLIGHT {
            let Some((key, id, job)) = self.waiting.pop_front() else {
                return;
            };
            let claim = Claim::default();
            let answer = AnswerOnDrop {
                shared: self.state.shared.clone(),
                key,
                id: Some(id.clone()),
                claim: claim.clone(),
            };
            let task = tokio::spawn(async move {
                let mut answer = answer;
                let result = job.await;
                answer.send(result).await;
            });
            self.running.insert(key, (id, task.abort_handle(), claim));
        }
    }

    /// `$/cancelRequest`: a waiting request is dropped, a running one is
    /// aborted (its blocking work sees the cancel flag); either way it is
    /// answered RequestCancelled now and its slot is free, unless its
    /// worker has answered already (then that answer stands).
    fn cancel(&mut self, id: &RequestId) {
        if let Some(at) = self.waiting.iter().position(|(_, queued, _)| queued == id) {
            self.waiting.remove(at);
        } else if let Some(key) = self
            .running
            .iter()
            .find_map(|(key, (running, _, _))| (running == id).then_some(*key))
        {
            // The claim first: once the worker holds it, its answer is
            // made or on its way (LSP allows a result after a cancel), and
            // an abort could drop it mid-send; the worker's `Finished`
            // frees the slot. Taken here, the aborted task's drop finds it
            // gone and answers nothing.
            if !self
                .running
                .get(&key)
                .is_some_and(|(_, _, claim)| claim.take())
            {
                return;
            }
            if let Some((_, task, _)) = self.running.remove(&key) {
                task.abort();
            }
            self.start_waiting();
        } else {
            return;
        }
        self.answer(id.clone(), Err(error::cancelled()));
    }

    fn on_notification(&mut self, notification: Notification) -> Flow {
        let Notification { method, params } = notification;
        if method == "exit" {
            return Flow::Exit;
        }
        if self.state.shut_down {
            return Flow::Go;
        }
        match method.as_str() {
            Cancel::METHOD => {
                if let Some(id) = params.get("id").cloned() {
                    if let Ok(id) = serde_json::from_value::<RequestId>(id) {
                        self.cancel(&id);
                    }
                }
                return Flow::Go;
            }
            // A notification named `shutdown` is no shutdown: only the
            // request is (issue 18 item 2).
            Shutdown::METHOD => {
                tracing::warn!("ignored a `shutdown` notification: shutdown is a request");
                return Flow::Go;
            }
            _ => {}
        }
        if !self.state.initialized {
            tracing::debug!("ignored {method} before initialize");
            return Flow::Go;
        }
        match method.as_str() {
            Initialized::METHOD => self.state.on_initialized(),
            DidOpenTextDocument::METHOD => {
                if let Some(params) = self.document_params(&method, params) {
                    self.state.on_did_open(params);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Some(params) = self.document_params(&method, params) {
                    self.state.on_did_change(params);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Some(params) = self.document_params(&method, params) {
                    self.state.on_did_close(params);
                }
            }
            DidChangeConfiguration::METHOD => match params_of(params) {
                Ok(params) => self.state.on_did_change_configuration(params),
                Err(e) => tracing::warn!("ignored {method}: {}", e.message),
            },
            DidChangeWorkspaceFolders::METHOD => match params_of(params) {
                Ok(params) => self.state.on_did_change_workspace_folders(params),
                Err(e) => tracing::warn!("ignored {method}: {}", e.message),
            },
            _ => tracing::debug!("ignored the notification {method}"),
        }
        Flow::Go
    }

    /// The params of a document notification; one that cannot be read is
    /// never dropped silently: the editor's text and ours would differ.
    fn document_params<P: DeserializeOwned>(&self, method: &str, params: Value) -> Option<P> {
        match params_of(params) {
            Ok(params) => Some(params),
            Err(e) => {
                let message = format!(
                    "hydra-session: {method} could not be read and was not applied ({}); \
                     the server's copy of the document may differ from the editor's",
                    e.message
                );
                tracing::warn!("{message}");
                self.shared()
                    .client
                    .log_message(MessageType::WARNING, message);
                None
            }
        }
    }

    fn on_event(&mut self, event: LoopEvent) {
        match event {
            LoopEvent::Finished { key, id, unsent } => {
                if let Some(answer) = unsent {
                    self.answer_written(id, answer);
                }
                // A cancelled request's slot was freed already.
                if self.running.remove(&key).is_some() {
                    self.start_waiting();
                }
            }
            LoopEvent::Pulled(update) => self.state.on_pulled(update),
            LoopEvent::StoreChanged => self.state.refresh_diagnostics(),
        }
    }
}

/// Who answers a running request: the worker that finished it, or the
/// main loop that cancelled it, whichever takes the claim first. So a
/// finished request is answered straight from its worker (not through the
/// main loop's thread: one wake less on every answer's way, issue 24) and
/// still answered exactly once.
#[derive(Clone, Default)]
struct Claim(Arc<AtomicBool>);

impl Claim {
    /// Whether the caller is the one to answer.
    fn take(&self) -> bool {
        !self.0.swap(true, Ordering::AcqRel)
    }
}

/// Answers a request from its worker, also when its task ends without an
/// answer (a panic, or an abort after a cancel, when the claim is the main
/// loop's), and tells the loop its slot is free: a request never holds a
/// slot, or goes unanswered, for good.
struct AnswerOnDrop {
    shared: Arc<Shared>,
    key: u64,
    id: Option<RequestId>,
    claim: Claim,
}

impl AnswerOnDrop {
    async fn send(&mut self, answer: Result<Box<RawValue>>) {
        let Some(id) = self.id.take() else {
            return;
        };
        if self.claim.take() {
            let id = id.clone();
            self.shared
                .client
                .send_from_task(Answer { id, result: answer })
                .await;
        }
        self.shared.tell(LoopEvent::Finished {
            key: self.key,
            id,
            unsent: None,
        });
    }
}

impl Drop for AnswerOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        // Dropped on a worker: the main loop writes the error (a send here
        // could wait for room in the output).
        let unsent = self
            .claim
            .take()
            .then(|| Err(error::internal("the request")));
        self.shared.tell(LoopEvent::Finished {
            key: self.key,
            id,
            unsent,
        });
    }
}

fn params_of<P: DeserializeOwned>(params: Value) -> Result<P> {
    serde_json::from_value(params)
        .map_err(|e| error::invalid_params(format!("Invalid params: {e}")))
}

/// The document a request names (`textDocument.uri`), for its request view.
fn document_of(params: &Value) -> Option<Url> {
    let uri = params.get("textDocument")?.get("uri")?.as_str()?;
    Url::parse(uri).ok()
}
