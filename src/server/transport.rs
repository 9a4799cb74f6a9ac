//! The stdio edge in front of tower-lsp: framing, scheduling and
//! backpressure, so that nothing a client sends can stop the server from
//! answering `status`, `shutdown`, `exit` or end of input.
//!
//! - **Framing.** tower-lsp 0.20 reads through a `FramedRead` that ends its
//!   stream after the first frame it cannot decode, so frames are read here
//!   first. A body tower-lsp would reject gets its JSON-RPC error (−32700 or
//!   −32600) from us. Headers are searched for the next `Content-Length:`
//!   anywhere in a line, so a frame whose length was too small, or that had
//!   none, costs that frame only: reading resynchronises on the next header.
//!   Header lines are read in bounded memory; a body over [`MAX_MESSAGE`]
//!   is skipped (and answered with an error), never buffered.
//! - **Control messages** are served here, never queued behind work:
//!   `exit` ends the session at once, `shutdown` and `sessionReference/status`
//!   are answered directly (once initialized), `$/cancelRequest` removes a
//!   queued request or goes straight to tower-lsp, and responses to our own
//!   requests go straight through (a handler may be waiting for one).
//! - **Scheduling.** Everything else keeps its order in a queue; at most
//!   [`MAX_IN_FLIGHT`] requests are handed to tower-lsp at once, fewer than
//!   its concurrency level, so notifications and cancels always find a
//!   slot there.
//! - **Backpressure.** Output waits in a queue of at most [`OUTBOX_BYTES`];
//!   while it is full, no input is read (and the queue of input is bounded
//!   too). A client that does not read cannot make the server grow.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::sync::Notify;
use tower_lsp::jsonrpc::{Request, Response};

/// One framed message on its way out.
pub type Frame = Vec<u8>;

/// The most output waiting to be written before input stops being read.
pub const OUTBOX_BYTES: usize = 4 << 20;
/// Requests handed to tower-lsp and not answered yet, at most. tower-lsp
/// runs [`TOWER_CONCURRENCY`] handlers at once: the difference is kept for
/// notifications, which finish at once.
pub const MAX_IN_FLIGHT: usize = 32;
/// tower-lsp's concurrency level.
pub const TOWER_CONCURRENCY: usize = 64;
/// Messages read but not yet handed to tower-lsp, at most (then input
/// stops being read until some are).
const QUEUE_MESSAGES: usize = 1024;
/// Bytes read but not yet handed to tower-lsp, at most (one message may
/// exceed it alone).
const QUEUE_BYTES: usize = 64 << 20;
/// The largest message body read; a larger one is skipped with an error.
pub const MAX_MESSAGE: usize = 256 << 20;
/// A header line is kept to this many bytes; a longer one keeps its tail.
const MAX_HEADER_LINE: usize = 4096;

const CONTENT_LENGTH: &[u8] = b"content-length:";

const STATUS: &str = <super::lsp_ext::Status as super::lsp_ext::CustomRequest>::METHOD;

// ---------------------------------------------------------------------------
// Output

/// Frames waiting to be written to the client, bounded in bytes.
#[derive(Default)]
pub struct Outbox {
    state: Mutex<OutboxState>,
    /// A frame was queued, or the outbox closed (one consumer).
    readable: Notify,
    /// Room was made.
    room: Notify,
}

#[derive(Default)]
struct OutboxState {
    frames: VecDeque<Frame>,
    /// Bytes queued or being written.
    bytes: usize,
    closed: bool,
}

impl Outbox {
    fn lock(&self) -> MutexGuard<'_, OutboxState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the queued output is under [`OUTBOX_BYTES`].
    pub async fn wait_room(&self) {
        loop {
            let notified = self.room.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let state = self.lock();
                if state.bytes < OUTBOX_BYTES || state.closed {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Queues `frame` once there is room.
    pub async fn send(&self, frame: Frame) {
        self.wait_room().await;
        let mut state = self.lock();
        if state.closed {
            return;
        }
        state.bytes += frame.len();
        state.frames.push_back(frame);
        drop(state);
        self.readable.notify_one();
    }

    /// No more frames: the writer ends once the queue is written.
    pub fn close(&self) {
        self.lock().closed = true;
        self.readable.notify_one();
        self.room.notify_waiters();
    }

    async fn next(&self) -> Option<Frame> {
        loop {
            {
                let mut state = self.lock();
                if let Some(frame) = state.frames.pop_front() {
                    return Some(frame);
                }
                if state.closed {
                    return None;
                }
            }
            self.readable.notified().await;
        }
    }

    fn written(&self, len: usize) {
        let mut state = self.lock();
        state.bytes = state.bytes.saturating_sub(len);
        drop(state);
        self.room.notify_waiters();
    }
}

/// Writes frames to `output` until the outbox is closed and empty.
pub async fn write_output<O>(mut output: O, outbox: &Outbox)
where
    O: AsyncWrite + Unpin,
{
    while let Some(frame) = outbox.next().await {
        let ok = output.write_all(&frame).await.is_ok() && output.flush().await.is_ok();
        outbox.written(frame.len());
        if !ok {
            // The client is gone: nothing more can be written, and nobody
            // may wait for room.
            outbox.close();
            return;
        }
    }
}

// ---------------------------------------------------------------------------
// Input queue

/// What the edge needs from the server behind it.
pub trait Control: Send + Sync {
    /// `initialize` has been handled.
    fn initialized(&self) -> bool;
    /// `shutdown` has been handled.
    fn shut_down(&self) -> bool;
    /// Marks the server shut down.
    fn shutdown(&self);
    /// The `sessionReference/status` result.
    fn status(&self) -> Value;
}

struct Queued {
    body: Vec<u8>,
    /// The request id (its JSON text); `None` for a notification.
    id: Option<String>,
}

#[derive(Default)]
struct InboxState {
    queue: VecDeque<Queued>,
    bytes: usize,
    /// Requests handed to tower-lsp and not answered, by id (a count, in
    /// case a client reuses an id).
    in_flight: HashMap<String, usize>,
    in_flight_total: usize,
    closed: bool,
}

/// Messages on their way to tower-lsp, in order, and the requests it is
/// working on.
#[derive(Default)]
pub struct Inbox {
    state: Mutex<InboxState>,
    changed: Notify,
}

impl Inbox {
    fn lock(&self) -> MutexGuard<'_, InboxState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until `ready` holds of the state (re-checked on every change).
    async fn wait(&self, ready: impl Fn(&InboxState) -> bool) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if ready(&self.lock()) {
                return;
            }
            notified.await;
        }
    }

    async fn push(&self, queued: Queued) {
        self.wait(|s| {
            s.closed
                || s.queue.is_empty()
                || (s.queue.len() < QUEUE_MESSAGES && s.bytes < QUEUE_BYTES)
        })
        .await;
        let mut state = self.lock();
        state.bytes += queued.body.len();
        state.queue.push_back(queued);
        drop(state);
        self.changed.notify_waiters();
    }

    /// Removes the queued request `id`; whether it was queued.
    fn remove(&self, id: &str) -> bool {
        let mut state = self.lock();
        let Some(at) = state.queue.iter().position(|q| q.id.as_deref() == Some(id)) else {
            return false;
        };
        if let Some(removed) = state.queue.remove(at) {
            state.bytes -= removed.body.len();
        }
        drop(state);
        self.changed.notify_waiters();
        true
    }

    /// Whether the front message may go to tower-lsp now: a notification,
    /// or a request while fewer than [`MAX_IN_FLIGHT`] are in flight.
    fn front_may_go(state: &InboxState) -> bool {
        state
            .queue
            .front()
            .is_some_and(|q| q.id.is_none() || state.in_flight_total < MAX_IN_FLIGHT)
    }

    /// Waits until the front message may go (`true`) or the inbox closed.
    async fn wait_ready(&self) -> bool {
        self.wait(|s| s.closed || Self::front_may_go(s)).await;
        !self.lock().closed
    }

    /// Takes the front message if it may go now, counting a request as in
    /// flight.
    fn try_pop(&self) -> Option<Vec<u8>> {
        let mut state = self.lock();
        if state.closed || !Self::front_may_go(&state) {
            return None;
        }
        let queued = state.queue.pop_front()?;
        state.bytes -= queued.body.len();
        if let Some(id) = queued.id {
            *state.in_flight.entry(id).or_default() += 1;
            state.in_flight_total += 1;
        }
        drop(state);
        self.changed.notify_waiters();
        Some(queued.body)
    }

    /// tower-lsp answered request `id`.
    fn answered(&self, id: &str) {
        let mut state = self.lock();
        let Some(count) = state.in_flight.get_mut(id) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            state.in_flight.remove(id);
        }
        state.in_flight_total -= 1;
        drop(state);
        self.changed.notify_waiters();
    }

    /// Waits until nothing is queued or in flight.
    pub async fn idle(&self) {
        self.wait(|s| s.queue.is_empty() && s.in_flight_total == 0)
            .await;
    }

    pub fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_waiters();
    }
}

// ---------------------------------------------------------------------------
// The edge

/// How reading the input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputEnd {
    Exit,
    Eof,
}

/// The routing fields of a message, read without building its params.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// A member that is present (even `null`) is `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Reads messages from `input` until `exit` or end of input: serves the
/// control messages, queues the rest for [`dispatch`]; stops reading while
/// the outbox is full.
pub async fn forward_input<I, S>(
    input: I,
    server: &tokio::sync::Mutex<S>,
    inbox: &Inbox,
    outbox: &Outbox,
    control: &dyn Control,
) -> InputEnd
where
    I: AsyncRead + Unpin,
    S: AsyncWrite + Unpin,
{
    let mut input = tokio::io::BufReader::with_capacity(1 << 16, input);
    loop {
        // Backpressure: no new input while output is not drained.
        outbox.wait_room().await;
        let body = match read_frame(&mut input).await {
            Input::End => return InputEnd::Eof,
            Input::BadHeader => {
                outbox
                    .send(error_frame(
                        Value::Null,
                        -32700,
                        "Parse error: missing or bad Content-Length",
                    ))
                    .await;
                continue;
            }
            Input::TooLarge(length) => {
                let message = format!(
                    "Parse error: a {length}-byte message is over the {MAX_MESSAGE}-byte limit"
                );
                outbox
                    .send(error_frame(Value::Null, -32700, &message))
                    .await;
                continue;
            }
            Input::Message(body) => body,
        };
        let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(&body) else {
            if let Some(error) = reject(&body) {
                outbox.send(error).await;
            }
            continue;
        };
        let method = envelope.method.as_deref().map(str::to_string);
        let id = envelope.id.clone();
        let null_params = envelope.params.is_some_and(|p| p.get() == "null");
        let cancel_id = match method.as_deref() {
            Some("$/cancelRequest") => envelope
                .params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .and_then(|p| p.get("id").cloned()),
            _ => None,
        };
        drop(envelope);
        // `"params": null` (Eglot and LSP4IJ send it with `shutdown`) is
        // read as no params.
        let body = if null_params {
            without_params(body)
        } else {
            body
        };
        match (method.as_deref(), id) {
            (Some("exit"), None) => return InputEnd::Exit,
            // An answer to one of our requests: a handler may be waiting.
            (None, Some(_)) => {
                if let Some(error) = reject(&body) {
                    outbox.send(error).await;
                } else if !write_frame(server, &body).await {
                    return InputEnd::Eof;
                }
            }
            (Some("$/cancelRequest"), None) => {
                let queued = cancel_id
                    .as_ref()
                    .is_some_and(|id| inbox.remove(&id.to_string()));
                if queued {
                    if let Some(id) = cancel_id {
                        outbox
                            .send(error_frame(id, -32800, "Request cancelled"))
                            .await;
                    }
                } else if reject(&body).is_none() && !write_frame(server, &body).await {
                    return InputEnd::Eof;
                }
            }
            (Some(method), Some(id)) if control.shut_down() => {
                // After `shutdown` only `exit` is served (LSP 3.17).
                let _ = method;
                outbox
                    .send(error_frame(
                        id,
                        -32600,
                        "Invalid request: the server is shut down",
                    ))
                    .await;
            }
            (Some(_), None) if control.shut_down() => {}
            (Some("shutdown"), Some(id)) if control.initialized() => {
                control.shutdown();
                outbox.send(result_frame(id, Value::Null)).await;
            }
            (Some(method), Some(id)) if method == STATUS && control.initialized() => {
                outbox.send(result_frame(id, control.status())).await;
            }
            (_, id) => {
                if let Some(error) = reject(&body) {
                    outbox.send(error).await;
                    continue;
                }
                let id = id.map(|id| id.to_string());
                inbox.push(Queued { body, id }).await;
            }
        }
    }
}

/// Hands queued messages to tower-lsp, in order, keeping at most
/// [`MAX_IN_FLIGHT`] requests there. Returns when the inbox closes or
/// tower-lsp stops reading.
pub async fn dispatch<S>(server: &tokio::sync::Mutex<S>, inbox: &Inbox)
where
    S: AsyncWrite + Unpin,
{
    while inbox.wait_ready().await {
        // Take the message while holding the pipe, so a cancel that finds
        // it no longer queued reaches tower-lsp after it.
        let mut pipe = server.lock().await;
        let Some(body) = inbox.try_pop() else {
            continue;
        };
        let framed = frame(&body);
        if pipe.write_all(&framed).await.is_err() || pipe.flush().await.is_err() {
            return;
        }
    }
}

async fn write_frame<S>(server: &tokio::sync::Mutex<S>, body: &[u8]) -> bool
where
    S: AsyncWrite + Unpin,
{
    let mut pipe = server.lock().await;
    pipe.write_all(&frame(body)).await.is_ok() && pipe.flush().await.is_ok()
}

/// Copies tower-lsp's frames to the outbox, whole, noting its answers.
pub async fn forward_output<S>(server: S, inbox: &Inbox, outbox: &Outbox)
where
    S: AsyncRead + Unpin,
{
    let mut server = tokio::io::BufReader::new(server);
    while let Input::Message(body) = read_frame(&mut server).await {
        if let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(&body) {
            if let (None, Some(id)) = (&envelope.method, &envelope.id) {
                inbox.answered(&id.to_string());
            }
        }
        outbox.send(frame(&body)).await;
    }
}

// ---------------------------------------------------------------------------
// Framing

/// What one read from the input gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    Message(Vec<u8>),
    /// A header block without a usable `Content-Length`; skipped.
    BadHeader,
    /// A body over [`MAX_MESSAGE`]; skipped.
    TooLarge(usize),
    End,
}

/// Reads one frame. The `Content-Length` header is found even after
/// garbage on its line (the rest of a frame whose length was too small, a
/// body sent without headers), so one bad frame never desynchronises the
/// stream for good.
pub async fn read_frame<R: AsyncBufRead + Unpin>(input: &mut R) -> Input {
    let mut length: Option<Option<usize>> = None;
    let mut headers = false;
    let mut line = Vec::new();
    loop {
        match read_header_line(input, &mut line).await {
            Ok(true) => {}
            Ok(false) | Err(_) => return Input::End,
        }
        let text = trim_line_end(&line);
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            if headers {
                // Headers without a Content-Length: the body cannot be
                // found; the next header resynchronises.
                return Input::BadHeader;
            }
            // Blank lines between frames are tolerated.
            continue;
        }
        headers = true;
        if let Some(value) = content_length(text) {
            length = Some(value);
        }
    }
    let Some(Some(length)) = length else {
        return Input::BadHeader;
    };
    if length > MAX_MESSAGE {
        // Skip the body without keeping it.
        let skipped = tokio::io::copy(&mut input.take(length as u64), &mut tokio::io::sink()).await;
        return match skipped {
            Ok(n) if n == length as u64 => Input::TooLarge(length),
            _ => Input::End,
        };
    }
    // Grow with the data actually sent: a lying Content-Length must not
    // make us allocate it up front.
    let mut body = Vec::with_capacity(length.min(1 << 20));
    match input.take(length as u64).read_to_end(&mut body).await {
        Ok(n) if n == length => Input::Message(body),
        _ => Input::End,
    }
}

/// Reads one line (to `\n`) into `line`, keeping at most
/// [`MAX_HEADER_LINE`] bytes: a longer line keeps its tail, where a header
/// that follows garbage is. `Ok(false)` at end of input.
async fn read_header_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<bool> {
    line.clear();
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(false);
        }
        let (take, done) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        line.extend_from_slice(&buffer[..take]);
        input.consume(take);
        if line.len() > MAX_HEADER_LINE {
            let cut = line.len() - MAX_HEADER_LINE / 2;
            line.drain(..cut);
        }
        if done {
            return Ok(true);
        }
    }
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\r' | b'\n') {
        end -= 1;
    }
    &line[..end]
}

/// The value of the last `Content-Length:` header in `line` (ASCII case
/// insensitive, anywhere in the line): `Some(None)` when it is not a
/// number, `None` when there is no such header.
fn content_length(line: &[u8]) -> Option<Option<usize>> {
    let lower = line.to_ascii_lowercase();
    let at = memchr::memmem::rfind(&lower, CONTENT_LENGTH)?;
    let value = &line[at + CONTENT_LENGTH.len()..];
    let value = std::str::from_utf8(value).ok().map(str::trim);
    Some(value.and_then(|v| v.parse::<usize>().ok()))
}

/// Splits `bytes` into what [`read_frame`] reads from them, in order (for
/// the fuzz target and tests).
#[doc(hidden)]
pub fn read_all_frames(bytes: &[u8]) -> Vec<Input> {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else {
        return Vec::new();
    };
    runtime.block_on(async {
        let mut input = bytes;
        let mut out = Vec::new();
        loop {
            match read_frame(&mut input).await {
                Input::End => return out,
                other => out.push(other),
            }
        }
    })
}

// ---------------------------------------------------------------------------
// Messages

/// The error response for a body tower-lsp would choke on, if any.
fn reject(body: &[u8]) -> Option<Frame> {
    if serde_json::from_slice::<Request>(body).is_ok()
        || serde_json::from_slice::<Response>(body).is_ok()
    {
        return None;
    }
    match serde_json::from_slice::<Value>(body) {
        Err(_) => Some(error_frame(Value::Null, -32700, "Parse error")),
        Ok(value) => {
            let id = value
                .get("id")
                .filter(|id| id.is_string() || id.is_number())
                .cloned()
                .unwrap_or(Value::Null);
            Some(error_frame(id, -32600, "Invalid request"))
        }
    }
}

/// `body` without its `"params": null`.
fn without_params(body: Vec<u8>) -> Vec<u8> {
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(mut message)) => {
            message.remove("params");
            serde_json::to_vec(&message).unwrap_or(body)
        }
        _ => body,
    }
}

fn error_frame(id: Value, code: i64, message: &str) -> Frame {
    let body = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": id});
    frame(body.to_string().as_bytes())
}

fn result_frame(id: Value, result: Value) -> Frame {
    let body = json!({"jsonrpc": "2.0", "result": result, "id": id});
    frame(body.to_string().as_bytes())
}

fn frame(body: &[u8]) -> Frame {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn a_short_length_costs_one_frame() {
        let good = r#"{"jsonrpc":"2.0","id":2,"method":"x"}"#;
        let bad = r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#;
        let stream = format!(
            "Content-Length: 5\r\n\r\n{bad}{}{}",
            framed(good),
            framed(good)
        );
        let frames = read_all_frames(stream.as_bytes());
        assert_eq!(
            frames,
            vec![
                Input::Message(bad.as_bytes()[..5].to_vec()),
                Input::Message(good.as_bytes().to_vec()),
                Input::Message(good.as_bytes().to_vec()),
            ]
        );
    }

    #[test]
    fn a_missing_length_costs_one_frame() {
        let good = r#"{"jsonrpc":"2.0","id":2,"method":"x"}"#;
        let stream = format!("Content-Type: x\r\n\r\n{good}{}", framed(good));
        let frames = read_all_frames(stream.as_bytes());
        assert_eq!(
            frames,
            vec![Input::BadHeader, Input::Message(good.as_bytes().to_vec())]
        );
    }

    #[test]
    fn an_endless_header_line_is_kept_short() {
        let mut stream = vec![b'x'; 1 << 20];
        stream.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let frames = read_all_frames(&stream);
        assert_eq!(frames, vec![Input::Message(b"{}".to_vec())]);
    }

    #[test]
    fn a_huge_length_is_skipped_not_buffered() {
        let header = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1);
        let frames = read_all_frames(header.as_bytes());
        assert!(frames.is_empty(), "the body never came: end of input");
        let frames = read_all_frames(b"Content-Length: nope\r\n\r\n");
        assert_eq!(frames, vec![Input::BadHeader]);
    }

    #[test]
    fn null_params_are_removed() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}"#.to_vec();
        let out: Value = serde_json::from_slice(&without_params(body)).unwrap();
        assert_eq!(out, json!({"jsonrpc":"2.0","id":1,"method":"shutdown"}));
    }
}
