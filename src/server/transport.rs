//! Content-Length framing in front of tower-lsp, so bad input never stops
//! the server.
//!
//! tower-lsp 0.20 reads through a `FramedRead` that ends its stream after
//! the first frame it cannot decode: one malformed message would end the
//! session. So frames are read here first; each body that tower-lsp would
//! reject gets its JSON-RPC error (ParseError −32700 or InvalidRequest
//! −32600) from us, and only valid messages are passed on. Output is
//! re-framed too, so our error responses never split one of tower-lsp's.

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::sync::mpsc;
use tower_lsp::jsonrpc::{Request, Response};

/// One framed message on its way out.
pub type Frame = Vec<u8>;

/// What one read from the input gave.
enum Input {
    Message(Vec<u8>),
    /// A frame whose headers made no sense; skipped.
    BadHeader,
    End,
}

/// Copies valid messages from `input` to `server`; answers the others
/// through `out`. Returns at end of input (or when the server is gone).
pub async fn forward_input<I, S>(input: I, mut server: S, out: mpsc::UnboundedSender<Frame>)
where
    I: AsyncRead + Unpin,
    S: AsyncWrite + Unpin,
{
    let mut input = BufReader::with_capacity(1 << 16, input);
    loop {
        let body = match read_frame(&mut input).await {
            Input::End => return,
            Input::BadHeader => {
                let _ = out.send(error_frame(
                    Value::Null,
                    -32700,
                    "Parse error: missing or bad Content-Length",
                ));
                continue;
            }
            Input::Message(body) => body,
        };
        if let Some(error) = reject(&body) {
            let _ = out.send(error);
            continue;
        }
        if server.write_all(&frame(&body)).await.is_err() || server.flush().await.is_err() {
            return;
        }
    }
}

/// Copies the server's frames to `out`, whole.
pub async fn forward_output<S>(server: S, out: mpsc::UnboundedSender<Frame>)
where
    S: AsyncRead + Unpin,
{
    let mut server = BufReader::new(server);
    while let Input::Message(body) = read_frame(&mut server).await {
        if out.send(frame(&body)).is_err() {
            return;
        }
    }
}

/// Writes frames to `output` until every sender is gone.
pub async fn write_output<O>(mut output: O, mut frames: mpsc::UnboundedReceiver<Frame>)
where
    O: AsyncWrite + Unpin,
{
    while let Some(frame) = frames.recv().await {
        if output.write_all(&frame).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

async fn read_frame<R: AsyncBufRead + Unpin>(input: &mut R) -> Input {
    let mut length: Option<Option<usize>> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return Input::End,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            // Blank lines between frames are tolerated.
            continue;
        }
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(value.trim().parse::<usize>().ok());
            }
        }
    }
    let Some(Some(length)) = length else {
        return Input::BadHeader;
    };
    let mut body = vec![0; length];
    match input.read_exact(&mut body).await {
        Ok(_) => Input::Message(body),
        Err(_) => Input::End,
    }
}

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

fn error_frame(id: Value, code: i64, message: &str) -> Frame {
    let body = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": id});
    frame(body.to_string().as_bytes())
}

fn frame(body: &[u8]) -> Frame {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}
