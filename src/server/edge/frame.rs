//! Content-Length framing of the input, in bounded memory, resynchronising
//! after a bad frame: the one place the byte stream is cut into messages.
//!
//! Headers are searched for the next `Content-Length:` anywhere in a line,
//! so a frame whose length was too small, or that had none, costs that
//! frame only. Header lines are kept short; a body over [`MAX_MESSAGE`] is
//! skipped, never buffered.

use std::io::{BufRead, Read};

/// The largest message body read; a larger one is skipped with an error.
pub const MAX_MESSAGE: usize = 256 << 20;
/// A header line is kept to this many bytes; a longer one keeps its tail.
const MAX_HEADER_LINE: usize = 4096;

const CONTENT_LENGTH: &[u8] = b"content-length:";

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
pub fn read_frame<R: BufRead>(input: &mut R) -> Input {
    let mut length: Option<Option<usize>> = None;
    let mut headers = false;
    let mut line = Vec::new();
    loop {
        match read_header_line(input, &mut line) {
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
        let skipped = std::io::copy(&mut input.take(length as u64), &mut std::io::sink());
        return match skipped {
            Ok(n) if n == length as u64 => Input::TooLarge(length),
            _ => Input::End,
        };
    }
    // Grow with the data actually sent: a lying Content-Length must not
    // make us allocate it up front.
    let mut body = Vec::with_capacity(length.min(1 << 20));
    match input.take(length as u64).read_to_end(&mut body) {
        Ok(n) if n == length => Input::Message(body),
        _ => Input::End,
    }
}

/// Reads one line (to `\n`) into `line`, keeping at most
/// [`MAX_HEADER_LINE`] bytes: a longer line keeps its tail, where a header
/// that follows garbage is. `Ok(false)` at end of input.
fn read_header_line<R: BufRead>(input: &mut R, line: &mut Vec<u8>) -> std::io::Result<bool> {
    line.clear();
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
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
    let mut input = bytes;
    let mut out = Vec::new();
    loop {
        match read_frame(&mut input) {
            Input::End => return out,
            other => out.push(other),
        }
    }
}

/// `body` framed for the wire.
pub fn frame(body: &[u8]) -> Vec<u8> {
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
}
