//! A whole-JSON document whose bulk is one array, read as its bytes come
//! with the array's elements handed on as they complete: Cline's
//! `ui_messages.json` (the document is the array, written compact on one
//! line) and Continue's session (`{"sessionId": …, "history": [ … ], …}`,
//! the array one member). Beside [`super::document::Members`], which
//! parses each top-level member whole from lines: here the document is fed
//! in chunks of any size (a compact document has no line end at all), and
//! only one element is ever held, so memory does not grow with it.

use serde_json::{Map, Value};

use super::strings::Strings;

/// What [`Elements::feed`] hands on.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// A top-level member of an object document (never the streamed one).
    Member(String, Value),
    /// The next element of the array: the document's, or the streamed
    /// member's.
    Element(Value),
    /// The streamed member's array closed (`]` seen).
    ArrayEnd,
    /// A piece whose text is complete but is no JSON: the document does
    /// not parse.
    Malformed,
    /// A piece whose text is not valid UTF-8.
    NotUtf8,
}

/// What the document is, once its first byte is seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Array,
    Object,
}

/// Splits the bytes of one JSON document into [`Piece`]s.
#[derive(Debug, Clone, Default)]
pub struct Elements {
    /// The object member whose array value is streamed (Continue's
    /// `history`); `None` for an array document.
    streamed: Option<&'static str>,
    root: Option<Root>,
    /// Nesting depth: 1 inside the document, 2 inside the streamed array.
    depth: u32,
    /// Inside the streamed member's array.
    streaming: bool,
    strings: Strings,
    /// The root closed: nothing more is read.
    pub closed: bool,
    /// The current piece's text so far.
    pending: Vec<u8>,
    /// The text does not start with the bracket asked for (`[` for an
    /// array document, `{` for an object).
    pub failed: bool,
}

impl Elements {
    /// A splitter of an array document.
    pub fn array() -> Self {
        Self::default()
    }

    /// A splitter of an object document whose member `streamed`, when its
    /// value is an array, is handed on element by element.
    pub fn object_streaming(streamed: &'static str) -> Self {
        Self {
            streamed: Some(streamed),
            ..Self::default()
        }
    }

    /// Whether a piece is being read (the document is cut inside it when
    /// the bytes end here).
    pub fn is_inside_piece(&self) -> bool {
        !self.pending.iter().all(u8::is_ascii_whitespace) || self.strings.is_inside()
    }

    /// Takes the next bytes of the document, handing on each piece
    /// completed in them.
    pub fn feed(&mut self, bytes: &[u8], out: &mut dyn FnMut(Piece)) {
        for &b in bytes {
            if self.failed || self.closed {
                return;
            }
            if self.root.is_none() {
                let wanted = if self.streamed.is_some() { b'{' } else { b'[' };
                match b {
                    b' ' | b'\t' | b'\r' | b'\n' => {}
                    // A byte-order mark's bytes are no JSON either.
                    _ if b == wanted => {
                        self.root = Some(if b == b'[' { Root::Array } else { Root::Object });
                        self.depth = 1;
                    }
                    _ => self.failed = true,
                }
                continue;
            }
            if self.strings.take(b) {
                self.pending.push(b);
                continue;
            }
            let at_piece_level = self.depth == 1 || (self.streaming && self.depth == 2);
            match b {
                b',' if at_piece_level => {
                    self.finish(out, false);
                    continue;
                }
                b']' | b'}' if at_piece_level => {
                    self.finish(out, false);
                    if self.depth == 2 {
                        self.streaming = false;
                        self.depth = 1;
                        out(Piece::ArrayEnd);
                    } else {
                        self.closed = true;
                    }
                    continue;
                }
                b'[' if self.depth == 1 && self.is_streamed_key() => {
                    self.pending.clear();
                    self.streaming = true;
                    self.depth = 2;
                    continue;
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            self.pending.push(b);
        }
    }

    /// The bytes have ended: a piece complete but not yet closed by `,` or
    /// a bracket (the document was cut right after it) is handed on; an
    /// incomplete one is dropped.
    pub fn end(&mut self, out: &mut dyn FnMut(Piece)) {
        if self.failed || self.closed || self.strings.is_inside() {
            return;
        }
        self.finish(out, true);
    }

    /// Whether the pending text is the streamed member's key and its `:`.
    fn is_streamed_key(&self) -> bool {
        let Some(key) = self.streamed else {
            return false;
        };
        let text = self.pending.trim_ascii();
        let Some(name) = text.strip_suffix(b":") else {
            return false;
        };
        serde_json::from_slice::<String>(name.trim_ascii()).is_ok_and(|name| name == key)
    }

    /// Parses the pending piece; `tentative` drops one that does not parse
    /// (cut short) instead of calling it malformed.
    fn finish(&mut self, out: &mut dyn FnMut(Piece), tentative: bool) {
        if self.pending.iter().all(u8::is_ascii_whitespace) {
            self.pending.clear();
            return;
        }
        let text = std::mem::take(&mut self.pending);
        if simdutf8::basic::from_utf8(&text).is_err() {
            out(Piece::NotUtf8);
            return;
        }
        let piece = if self.streaming || self.root == Some(Root::Array) {
            serde_json::from_slice::<Value>(&text)
                .ok()
                .map(Piece::Element)
        } else {
            let mut object = Vec::with_capacity(text.len() + 2);
            object.push(b'{');
            object.extend_from_slice(&text);
            object.push(b'}');
            serde_json::from_slice::<Map<String, Value>>(&object)
                .ok()
                .and_then(|map| map.into_iter().next())
                .map(|(key, value)| Piece::Member(key, value))
        };
        match piece {
            Some(piece) => out(piece),
            None if tentative => {}
            None => out(Piece::Malformed),
        }
        // The buffer's room is kept for the next piece.
        self.pending = text;
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The pieces of `text` fed in chunks of `chunk` bytes.
    fn pieces(mut splitter: Elements, text: &str, chunk: usize) -> (Vec<Piece>, bool) {
        let mut out = Vec::new();
        for part in text.as_bytes().chunks(chunk.max(1)) {
            splitter.feed(part, &mut |p| out.push(p));
        }
        splitter.end(&mut |p| out.push(p));
        (out, splitter.failed)
    }

    #[test]
    fn array_elements_come_in_any_chunks_and_without_the_closing_bracket() {
        let doc = "[\n    {\n        \"ts\": 1,\n        \"text\": \"a],\\\"\"\n    },\n    {\n        \"ts\": 2\n    }\n]";
        let want = vec![
            Piece::Element(json!({"ts": 1, "text": "a],\""})),
            Piece::Element(json!({"ts": 2})),
        ];
        for chunk in [1, 3, 7, 1000] {
            assert_eq!(pieces(Elements::array(), doc, chunk).0, want);
            let cut = &doc[..doc.len() - 1];
            assert_eq!(pieces(Elements::array(), cut, chunk).0, want);
        }
        // Compact, scalars too; a cut element is dropped.
        assert_eq!(
            pieces(Elements::array(), r#"[{"ts":1},2,"x",{"ts""#, 5).0,
            vec![
                Piece::Element(json!({"ts": 1})),
                Piece::Element(json!(2)),
                Piece::Element(json!("x"))
            ]
        );
        assert!(pieces(Elements::array(), "{}", 1).1);
        assert_eq!(
            pieces(Elements::array(), "[{\"a\" 1},{}]", 4).0[0],
            Piece::Malformed
        );
        assert_eq!(
            pieces(Elements::array(), "[\"\u{e9}\"]", 1).0,
            vec![Piece::Element(json!("\u{e9}"))]
        );
    }

    #[test]
    fn the_streamed_member_comes_element_by_element() {
        let doc = "{\n  \"sessionId\": \"s\",\n  \"history\": [\n    {\n      \"message\": {\"role\": \"user\"}\n    },\n    {\n      \"message\": {}\n    }\n  ],\n  \"title\": \"t\"\n}";
        for chunk in [1, 2, 64] {
            let (got, failed) = pieces(Elements::object_streaming("history"), doc, chunk);
            assert!(!failed);
            assert_eq!(
                got,
                vec![
                    Piece::Member("sessionId".into(), json!("s")),
                    Piece::Element(json!({"message": {"role": "user"}})),
                    Piece::Element(json!({"message": {}})),
                    Piece::ArrayEnd,
                    Piece::Member("title".into(), json!("t")),
                ]
            );
        }
        // Another member holding an array is a member whole.
        let (got, _) = pieces(
            Elements::object_streaming("history"),
            r#"{"other": [1], "history": [], "x": 1"#,
            3,
        );
        assert_eq!(
            got,
            vec![
                Piece::Member("other".into(), json!([1])),
                Piece::ArrayEnd,
                Piece::Member("x".into(), json!(1)),
            ]
        );
        assert!(pieces(Elements::object_streaming("history"), "[]", 1).1);
    }
}
