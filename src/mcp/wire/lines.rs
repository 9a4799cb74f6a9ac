//! Newline-delimited input in bounded memory: the one place the MCP byte
//! stream is cut into lines.
//!
//! The service loop polls its transport's `receive` inside a `select!`, so
//! a read may be dropped half way: everything read so far lives here, not
//! in the future, and the next call goes on with the same line.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// What one call of [`Lines::next`] gave.
#[derive(Debug)]
pub enum Line {
    /// A whole line is in [`Lines::current`] (its `\n` and `\r` removed).
    Complete,
    /// A line over the limit began; it is skipped to its end, never kept.
    TooLong,
    /// End of input (an unterminated last line is not a message).
    End,
    Failed(std::io::Error),
}

pub struct Lines<R> {
    input: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    /// The previous call returned [`Line::Complete`]: its line is dropped
    /// at the start of the next.
    delivered: bool,
    /// Inside a line over the limit, until its `\n`.
    skipping: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub fn new(input: R, max: usize) -> Self {
        Self {
            input: BufReader::with_capacity(1 << 16, input),
            line: Vec::new(),
            max,
            delivered: false,
            skipping: false,
        }
    }

    /// The line of the last [`Line::Complete`].
    pub fn current(&self) -> &[u8] {
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    /// Reads on to the end of the next line. Cancel-safe: no byte is taken
    /// from the input without being kept (or skipped) here first.
    pub async fn next(&mut self) -> Line {
        if self.delivered {
            self.line.clear();
            self.delivered = false;
        }
        loop {
            let buffer = match self.input.fill_buf().await {
                Ok(buffer) => buffer,
                Err(e) => return Line::Failed(e),
            };
            if buffer.is_empty() {
                return Line::End;
            }
            let newline = memchr::memchr(b'\n', buffer);
            let take = newline.map_or(buffer.len(), |at| at + 1);
            let ends = newline.is_some();
            // Decided and applied with no await in between, so a dropped
            // call loses nothing.
            let mut too_long = false;
            if self.skipping {
                self.skipping = !ends;
            } else if self.line.len().saturating_add(take) > self.max {
                self.line.clear();
                self.skipping = !ends;
                too_long = true;
            } else {
                self.line.extend_from_slice(&buffer[..take]);
            }
            self.input.consume(take);
            if too_long {
                return Line::TooLong;
            }
            if ends && !self.skipping && !self.line.is_empty() {
                self.delivered = true;
                return Line::Complete;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<Result<Vec<u8>, &'static str>> {
        let mut lines = Lines::new(input, max);
        let mut out = Vec::new();
        loop {
            match lines.next().await {
                Line::Complete => out.push(Ok(lines.current().to_vec())),
                Line::TooLong => out.push(Err("too long")),
                Line::End => return out,
                Line::Failed(_) => panic!("a slice cannot fail"),
            }
        }
    }

    #[tokio::test]
    async fn lines_are_cut_at_newlines_and_a_long_one_is_skipped_whole() {
        let input = b"{\"a\":1}\r\n0123456789abcdef\nok\nunterm";
        assert_eq!(
            all(input, 10).await,
            vec![
                Ok(b"{\"a\":1}".to_vec()),
                Err("too long"),
                Ok(b"ok".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn a_long_line_longer_than_the_buffer_costs_itself_only() {
        let mut input = vec![b'x'; 300_000];
        input.extend_from_slice(b"\nnext\n");
        assert_eq!(
            all(&input, 1000).await,
            vec![Err("too long"), Ok(b"next".to_vec())]
        );
    }
}
