//! A JSON text, read as a stream, copied with every string cut to a
//! bounded prefix (issue 27 item 14): what a listing needs of a message
//! row — its roles, flags and the first words of its text — without ever
//! holding its body. A 100 MB text part lists from its first `cap` bytes.
//!
//! Only strings are cut (at a character, never inside an escape); the
//! rest is copied, white space between values dropped, so the result
//! parses as the original would, to the same shape. A string whose kept prefix is only white space keeps being
//! read until its first other character (a title is never taken from
//! blanks that stand before the words). The whole copy is bounded too:
//! past `budget` bytes the value reads as unreadable, as a row that is
//! not JSON does.

use std::io::{self, BufRead, BufReader, Read};

/// How much of a string a listing keeps: what a title is taken from.
pub const STRING_CAP: usize = crate::formats::text::TITLE_SOURCE_MAX;

/// The most one row's shrunk JSON may take: strings cut, a row past it
/// is all structure (a hostile one), never a message a person wrote.
pub const ROW_BUDGET: usize = 32 << 20;

/// What [`shrink`] read.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Shrunk {
    /// The copy; `None` when it would pass the budget.
    pub text: Option<String>,
    /// The bytes read from the input.
    pub read: u64,
}

/// Copies the JSON text of `input`, each string cut to its first `cap`
/// bytes, the copy at most `budget` bytes.
pub fn shrink(input: impl Read, cap: usize, budget: usize) -> io::Result<Shrunk> {
    let mut reader = BufReader::with_capacity(64 << 10, input);
    let mut out: Vec<u8> = Vec::new();
    let mut read = 0u64;
    let mut string: Option<Cut> = None;
    // An escape begun at the end of one buffer and ended in the next.
    let mut escape: Vec<u8> = Vec::new();
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        let len = chunk.len();
        let mut at = 0;
        while at < len {
            match &mut string {
                None => {
                    // Outside strings: copied up to the next string, its
                    // white space (never significant there) dropped.
                    let end = memchr::memchr(b'"', &chunk[at..]).map_or(len, |i| at + i + 1);
                    out.extend(
                        chunk[at..end]
                            .iter()
                            .filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')),
                    );
                    if chunk[end - 1] == b'"' {
                        string = Some(Cut::new());
                    }
                    at = end;
                }
                Some(cut) if !escape.is_empty() => {
                    // Finish an escape split across buffers.
                    escape.push(chunk[at]);
                    at += 1;
                    if escape_done(&escape) {
                        cut.keep(&mut out, &escape, cap, true);
                        escape.clear();
                    }
                }
                Some(cut) => {
                    let rest = &chunk[at..];
                    let Some(i) = memchr::memchr2(b'"', b'\\', rest) else {
                        cut.keep(&mut out, rest, cap, false);
                        at = len;
                        continue;
                    };
                    cut.keep(&mut out, &rest[..i], cap, false);
                    at += i;
                    if chunk[at] == b'"' {
                        out.push(b'"');
                        string = None;
                        at += 1;
                    } else {
                        let whole = escape_len(&chunk[at..]);
                        match whole {
                            Some(n) => {
                                cut.keep(&mut out, &chunk[at..at + n], cap, true);
                                at += n;
                            }
                            None => {
                                escape.extend_from_slice(&chunk[at..]);
                                at = len;
                            }
                        }
                    }
                }
            }
            if out.len() > budget {
                return Ok(Shrunk { text: None, read });
            }
        }
        read += len as u64;
        reader.consume(len);
    }
    let text = match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(Shrunk {
        text: Some(text),
        read,
    })
}

/// The length of the escape at the start of `bytes` (`\n`, `\uXXXX`),
/// when it is all there.
fn escape_len(bytes: &[u8]) -> Option<usize> {
    let n = match bytes.get(1)? {
        b'u' => 6,
        _ => 2,
    };
    (bytes.len() >= n).then_some(n)
}

fn escape_done(escape: &[u8]) -> bool {
    escape_len(escape) == Some(escape.len())
}

/// The string being copied: how much is kept, whether it is only white
/// space so far, whether it is full.
struct Cut {
    kept: usize,
    blank: bool,
    full: bool,
}

impl Cut {
    fn new() -> Self {
        Cut {
            kept: 0,
            blank: true,
            full: false,
        }
    }

    /// Keeps what of `bytes` (content, or one whole escape) fits.
    fn keep(&mut self, out: &mut Vec<u8>, bytes: &[u8], cap: usize, escape: bool) {
        if self.full || bytes.is_empty() {
            return;
        }
        let mut bytes = bytes;
        if self.blank {
            // Leading blanks are never what fills the cap: one stays.
            let blanks = if escape {
                usize::from(matches!(bytes, b"\\n" | b"\\t" | b"\\r" | b"\\u0020")) * bytes.len()
            } else {
                bytes
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                    .count()
            };
            if blanks > 0 && self.kept == 0 {
                out.push(b' ');
                self.kept = 1;
            }
            bytes = &bytes[blanks..];
            if bytes.is_empty() {
                return;
            }
            self.blank = false;
        }
        let room = cap.saturating_sub(self.kept);
        if bytes.len() <= room {
            out.extend_from_slice(bytes);
            self.kept += bytes.len();
            return;
        }
        self.full = true;
        if escape {
            return;
        }
        // Cut at a character: back off continuation bytes.
        let mut end = room;
        while end > 0 && (bytes[end] & 0xC0) == 0x80 {
            end -= 1;
        }
        out.extend_from_slice(&bytes[..end]);
        self.kept += end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, cap: usize) -> String {
        shrink(text.as_bytes(), cap, 1 << 20)
            .expect("read")
            .text
            .expect("within budget")
    }

    #[test]
    fn strings_are_cut_and_everything_else_is_copied() {
        let json = r#"{"type":"text","text":"abcdefghij","n":[1,2,{"x":true}]}"#;
        assert_eq!(
            cut(json, 4),
            r#"{"type":"text","text":"abcd","n":[1,2,{"x":true}]}"#
        );
        assert_eq!(cut(json, 100), json);
    }

    #[test]
    fn a_cut_never_splits_an_escape_or_a_character() {
        let v: serde_json::Value =
            serde_json::from_str(&cut(r#"["ab\u00e9\n\"cd", "ééé"]"#, 3)).expect("JSON");
        assert_eq!(v, serde_json::json!(["ab", "é"]));
        let v: serde_json::Value = serde_json::from_str(&cut(r#"["a\"bcdef"]"#, 3)).expect("JSON");
        assert_eq!(v, serde_json::json!(["a\""]));
    }

    #[test]
    fn leading_blanks_do_not_hide_the_words() {
        let text = format!("[\"{}\\n  Plan it\"]", " ".repeat(100_000));
        let v: serde_json::Value = serde_json::from_str(&cut(&text, 16)).expect("JSON");
        assert_eq!(v[0].as_str().map(str::trim), Some("Plan it"));
    }

    #[test]
    fn a_split_read_gives_the_same_copy() {
        /// A reader handing out one byte at a time.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let Some((first, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                buf[0] = *first;
                self.0 = rest;
                Ok(1)
            }
        }
        let json = r#"{"a":"x\u00e9\\y\"z","b":["long string here"]}"#;
        let whole = cut(json, 5);
        let split = shrink(Trickle(json.as_bytes()), 5, 1 << 20)
            .expect("read")
            .text
            .expect("within budget");
        assert_eq!(split, whole);
        let v: serde_json::Value = serde_json::from_str(&whole).expect("JSON");
        assert_eq!(v["b"][0], "long ");
    }

    #[test]
    fn white_space_between_values_is_dropped() {
        let json = format!("{{ \"a\" :{} [ 1 , \"b c\" ]\n}}", " ".repeat(1 << 20));
        let shrunk = shrink(json.as_bytes(), 16, 100).expect("read");
        assert_eq!(shrunk.text.as_deref(), Some(r#"{"a":[1,"b c"]}"#));
    }

    #[test]
    fn a_copy_past_its_budget_is_unreadable() {
        let many = format!("[{}1]", "1,".repeat(1000));
        let shrunk = shrink(many.as_bytes(), 16, 100).expect("read");
        assert_eq!(shrunk.text, None);
        let big = format!("[\"{}\"]", "x".repeat(1 << 20));
        let shrunk = shrink(big.as_bytes(), 16, 100).expect("read");
        assert_eq!(shrunk.text.as_deref(), Some("[\"xxxxxxxxxxxxxxxx\"]"));
        assert_eq!(shrunk.read, big.len() as u64);
    }
}
