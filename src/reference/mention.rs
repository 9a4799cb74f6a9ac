//! Mentions in prompt text (reference.md §2).
//!
//! A hand-written scanner with exactly the semantics of the ECMAScript regex
//!
//! ```text
//! /@\[((?:\\.|[^\\\]])*)\]\((hydra-session:[^\s)]*)\)|(hydra-session:[A-Za-z0-9_-]+)/gu
//! ```
//!
//! That regex never needs to backtrack: a label ends at the first unescaped
//! `]`, a URI at the first white space or `)`, so one forward pass decides
//! every match. Scans that start inside a failed label would stop where that
//! label stopped (they are in step after the `[`), so the scanner remembers
//! that point and stays linear on adversarial input such as many `@[` with
//! no `]`. Likewise a URI scan that ran into white space or the end of the
//! text without a `)` fails for every later URI start up to that point
//! (they stop at the same place), so `"@[a](hydra-session:" × n` is linear
//! too.

use std::borrow::Cow;
use std::ops::Range;

use super::error::ReferenceError;
use super::one_line::one_line;
use super::uri::{self, DecodeError, SCHEME};

/// One match of the mention regex, valid or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention<'a> {
    /// The whole match: `@[label](uri)` or the bare URI.
    pub span: Range<usize>,
    /// The URI inside the match.
    pub uri_span: Range<usize>,
    /// The label as written (still escaped); `None` for a bare URI.
    pub raw_label: Option<&'a str>,
    pub uri: &'a str,
}

impl Mention<'_> {
    pub fn is_bare(&self) -> bool {
        self.raw_label.is_none()
    }

    /// The label with each `\x` unescaped to `x` (`None` for a bare URI).
    pub fn label(&self) -> Option<String> {
        self.raw_label.map(unescape_label)
    }

    /// Decodes the URI.
    pub fn decode(&self) -> Result<String, DecodeError> {
        uri::decode(self.uri)
    }

    /// What [`parse`] puts after the `@` for this mention (its label, or
    /// the id of a bare URI); `None` when the URI is not canonical.
    pub fn readable_label(&self) -> Option<String> {
        let id = self.decode().ok()?;
        Some(self.label().unwrap_or(id))
    }
}

/// Mentions found one at a time, each only when it starts before a given
/// offset: a reader that needs only the start of a long text (a title)
/// scans no further than that.
pub struct Mentions<'a>(Scanner<'a, 'static>);

impl<'a> Mentions<'a> {
    pub fn new(text: &'a str) -> Self {
        Self(Scanner::new(text))
    }

    /// The next mention, if one starts before `limit` (it may end past
    /// it). `None` leaves the scan where it was: a later call with a
    /// greater limit goes on from there.
    pub fn next_before(&mut self, limit: usize) -> Option<Mention<'a>> {
        self.0.limit = limit.min(self.0.text.len());
        let found = self.0.next();
        self.0.limit = self.0.text.len();
        found
    }
}

/// A session reference taken from text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub session_id: String,
    pub label: String,
}

/// Readable text (each mention replaced by `@label`) and its references in
/// order of appearance, duplicates kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedText {
    pub text: String,
    pub references: Vec<Reference>,
}

/// Every match of the mention regex, left to right.
pub fn scan(text: &str) -> Vec<Mention<'_>> {
    Scanner::new(text).collect()
}

/// The scan was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanCancelled;

/// Like [`scan`], polling `cancelled` every [`CANCEL_STRIDE`] candidate
/// positions, so a cancelled request stops scanning within a few
/// milliseconds even on a document of many megabytes.
pub fn scan_cancellable<'a>(
    text: &'a str,
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<Mention<'a>>, ScanCancelled> {
    let mut scanner = Scanner::new(text);
    scanner.cancelled = Some(cancelled);
    let found: Vec<Mention<'a>> = scanner.by_ref().collect();
    if scanner.was_cancelled {
        Err(ScanCancelled)
    } else {
        Ok(found)
    }
}

/// How many candidate positions the scanner visits between two polls of
/// its cancel flag.
const CANCEL_STRIDE: u32 = 4096;
/// How many bytes one URI scan reads between two polls of the cancel flag.
const CANCEL_BYTES: usize = 64 * 1024;

/// Parses text; the first invalid URI fails the whole parse.
pub fn parse(text: &str) -> Result<ParsedText, ReferenceError> {
    let mut references = Vec::new();
    let text = replace_mentions(text, |mention| {
        let session_id = uri::decode_reference(mention.uri)?;
        let label = mention.label().unwrap_or_else(|| session_id.clone());
        references.push(Reference {
            session_id,
            label: label.clone(),
        });
        Ok(Some(label))
    })?;
    Ok(ParsedText {
        text: text.into_owned(),
        references,
    })
}

/// `text` with each canonical mention read as `@label` (a bare URI as
/// `@id`), exactly as [`parse`] renders it; any other text, a mention whose
/// URI is malformed or noncanonical included, stays as it is. For a title
/// taken from a prompt, where markup would only be noise.
pub fn readable(text: &str) -> Cow<'_, str> {
    let never_fails = replace_mentions(text, |mention| {
        Ok::<_, std::convert::Infallible>(mention.readable_label())
    });
    match never_fails {
        Ok(text) => text,
        Err(never) => match never {},
    }
}

/// `text` with each mention for which `label` gives `Some` replaced by
/// `@` and that label; borrowed when there is none.
fn replace_mentions<'t, E>(
    text: &'t str,
    mut label: impl FnMut(&Mention<'t>) -> Result<Option<String>, E>,
) -> Result<Cow<'t, str>, E> {
    let mut out = String::new();
    let mut copied_to = 0;
    for mention in Scanner::new(text) {
        let Some(label) = label(&mention)? else {
            continue;
        };
        if out.is_empty() {
            out.reserve(text.len());
        }
        out.push_str(&text[copied_to..mention.span.start]);
        out.push('@');
        out.push_str(&label);
        copied_to = mention.span.end;
    }
    if copied_to == 0 {
        return Ok(Cow::Borrowed(text));
    }
    out.push_str(&text[copied_to..]);
    Ok(Cow::Owned(out))
}

/// `@[escape(label ?? id)](encode(id))`.
pub fn format(session_id: &str, label: Option<&str>) -> String {
    let label = label.unwrap_or(session_id);
    let mut out = String::with_capacity(label.len() + session_id.len() * 2 + 24);
    out.push_str("@[");
    for c in label.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push_str("](");
    out.push_str(&uri::encode(session_id));
    out.push(')');
    out
}

/// The mention the product writes for a person or an editor to insert
/// (completion, `--format mention`, quick fixes, pickers): [`format`] with
/// the one-line rule applied to the label, the id when nothing is left.
/// `parse` reads it back as that one-line label and the same id.
pub fn format_one_line(session_id: &str, label: &str) -> String {
    format(session_id, Some(&one_line_label(session_id, label)))
}

/// `label` under the one-line rule, the id when nothing is left: the label
/// of a mention the product writes, and what a list shows of it.
pub fn one_line_label(session_id: &str, label: &str) -> String {
    let label = one_line(label);
    if label.is_empty() {
        session_id.to_string()
    } else {
        label
    }
}

fn unescape_label(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // Inside a matched label every `\` escapes a following
            // non-line-terminator character.
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// ECMAScript line terminators (what `.` does not match).
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// ECMAScript `\s` (WhiteSpace and LineTerminator; not U+0085).
pub fn is_ecma_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

struct Scanner<'a, 'c> {
    text: &'a str,
    pos: usize,
    /// Candidates are looked for before this offset only (`text.len()`
    /// but for [`Mentions::next_before`]).
    limit: usize,
    cancelled: Option<&'c dyn Fn() -> bool>,
    was_cancelled: bool,
    /// Candidate positions visited since the last poll of `cancelled`.
    since_poll: u32,
    /// Any `@[` whose label would start at or before this offset is known
    /// to fail (it is in step with a label scan that already failed here).
    failed_label_end: usize,
    /// Any URI starting at or before this offset is known to fail: a URI
    /// scan from an earlier start stopped here, at white space or the end of
    /// the text, and every later start stops at the same place.
    failed_uri_end: usize,
}

impl<'a> Scanner<'a, '_> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            pos: 0,
            limit: text.len(),
            cancelled: None,
            was_cancelled: false,
            since_poll: 0,
            failed_label_end: 0,
            failed_uri_end: 0,
        }
    }

    /// Tries the Markdown alternative at `at` (where `text[at] == '@'`).
    fn markdown_at(&mut self, at: usize) -> Option<Mention<'a>> {
        let bytes = self.text.as_bytes();
        if bytes.get(at + 1) != Some(&b'[') {
            return None;
        }
        let label_start = at + 2;
        if label_start <= self.failed_label_end {
            return None;
        }
        let label_end = match self.label_end(label_start) {
            Ok(end) => end,
            Err(stopped) => {
                self.failed_label_end = stopped;
                return None;
            }
        };
        let rest = &self.text[label_end..];
        let uri_start = label_end + 2;
        let matched = rest.starts_with("](")
            && uri_start > self.failed_uri_end
            && self.text[uri_start..].starts_with(SCHEME);
        if matched {
            match self.uri_end(uri_start) {
                Ok(uri_end) => {
                    return Some(Mention {
                        span: at..uri_end + 1,
                        uri_span: uri_start..uri_end,
                        raw_label: Some(&self.text[label_start..label_end]),
                        uri: &self.text[uri_start..uri_end],
                    });
                }
                Err(stopped) => self.failed_uri_end = stopped,
            }
        }
        self.failed_label_end = label_end;
        None
    }

    /// The offset of the `)` closing the URI that starts at `from`, or
    /// `Err(offset)` of the white space (or the end of the text) where the
    /// URI pattern `[^\s)]*` stopped without one.
    fn uri_end(&mut self, from: usize) -> Result<usize, usize> {
        let mut next_poll = from + CANCEL_BYTES;
        for (i, c) in self.text[from..].char_indices() {
            if c == ')' {
                return Ok(from + i);
            }
            if is_ecma_whitespace(c) {
                return Err(from + i);
            }
            // One URI scan may cross the whole text: poll on the way.
            if from + i >= next_poll {
                next_poll += CANCEL_BYTES;
                if self.poll_cancelled() {
                    return Err(self.text.len());
                }
            }
        }
        Err(self.text.len())
    }

    /// Whether the scan was cancelled (then it ends: nothing more is found).
    fn poll_cancelled(&mut self) -> bool {
        if self.cancelled.is_some_and(|cancelled| cancelled()) {
            self.was_cancelled = true;
        }
        self.was_cancelled
    }

    /// Where the label starting at `from` ends (the offset of its closing
    /// `]`), or `Err(offset)` where the label pattern stopped without one.
    fn label_end(&self, from: usize) -> Result<usize, usize> {
        let bytes = self.text.as_bytes();
        let mut at = from;
        loop {
            let Some(found) = memchr::memchr2(b']', b'\\', &bytes[at..]) else {
                return Err(bytes.len());
            };
            at += found;
            if bytes[at] == b']' {
                return Ok(at);
            }
            // `\\.`: the backslash escapes one character that is not a line
            // terminator; otherwise the label cannot go on.
            match self.text[at + 1..].chars().next() {
                Some(c) if !is_line_terminator(c) => at += 1 + c.len_utf8(),
                _ => return Err(at),
            }
        }
    }

    /// Tries the bare alternative at `at`.
    fn bare_at(&self, at: usize) -> Option<Mention<'a>> {
        let rest = self.text[at..].strip_prefix(SCHEME)?;
        let payload_len = rest
            .bytes()
            .take_while(|&b| uri::is_base64url_byte(b))
            .count();
        if payload_len == 0 {
            return None;
        }
        let end = at + SCHEME.len() + payload_len;
        Some(Mention {
            span: at..end,
            uri_span: at..end,
            raw_label: None,
            uri: &self.text[at..end],
        })
    }
}

impl<'a> Iterator for Scanner<'a, '_> {
    type Item = Mention<'a>;

    fn next(&mut self) -> Option<Mention<'a>> {
        let bytes = self.text.as_bytes();
        while self.pos < self.limit {
            if self.was_cancelled {
                self.pos = bytes.len();
                return None;
            }
            if let Some(cancelled) = self.cancelled {
                self.since_poll += 1;
                if self.since_poll >= CANCEL_STRIDE {
                    self.since_poll = 0;
                    if cancelled() {
                        self.was_cancelled = true;
                        self.pos = bytes.len();
                        return None;
                    }
                }
            }
            // Both alternatives start with an ASCII byte, never found inside
            // a multi-byte character, so byte steps visit every candidate.
            let at = self.pos + memchr::memchr2(b'@', b'h', &bytes[self.pos..self.limit])?;
            let found = if bytes[at] == b'@' {
                self.markdown_at(at)
            } else {
                self.bare_at(at)
            };
            match found {
                Some(mention) => {
                    self.pos = mention.span.end;
                    return Some(mention);
                }
                None => self.pos = at + 1,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(text: &str) -> Vec<(String, String)> {
        parse(text)
            .expect("parses")
            .references
            .into_iter()
            .map(|r| (r.session_id, r.label))
            .collect()
    }

    #[test]
    fn markdown_and_bare() {
        let parsed = parse("see @[Tax](hydra-session:ImEi) and hydra-session:ImIi.").expect("ok");
        assert_eq!(parsed.text, "see @Tax and @b.");
        assert_eq!(refs("hydra-session:ImEi"), vec![("a".into(), "a".into())]);
    }

    #[test]
    fn readable_renders_only_canonical_mentions() {
        let text = r"Continue @[Review \] the cart](hydra-session:ImEi) and hydra-session:ImIi";
        assert_eq!(readable(text), "Continue @Review ] the cart and @b");
        assert_eq!(readable(text), parse(text).expect("parses").text);
        // Malformed and noncanonical URIs, and text that is no mention,
        // stay as written; the canonical one beside them is still read.
        let mixed =
            "@[x](hydra-session:!!) @[y](hydra-session:ImEiIA) @[z](hydra-session:ImEi) @[open";
        assert_eq!(
            readable(mixed),
            "@[x](hydra-session:!!) @[y](hydra-session:ImEiIA) @z @[open"
        );
        assert!(matches!(
            readable("no mention"),
            Cow::Borrowed("no mention")
        ));
        assert!(matches!(
            readable("@[x](hydra-session:!!)"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn mentions_before_a_limit_resume_where_they_stopped() {
        let text = "ab @[x](hydra-session:ImEi) cd hydra-session:ImIi";
        let mut mentions = Mentions::new(text);
        assert_eq!(mentions.next_before(3), None);
        // One that starts before the limit is found whole.
        let first = mentions.next_before(4).map(|m| m.span);
        assert_eq!(first, Some(3..27));
        assert_eq!(mentions.next_before(30), None);
        let second = mentions.next_before(usize::MAX);
        assert_eq!(second.map(|m| m.uri), Some("hydra-session:ImIi"));
        assert_eq!(mentions.next_before(usize::MAX), None);
    }

    #[test]
    fn escaped_labels_and_line_breaks() {
        assert_eq!(
            refs(r"@[a \] b \\ c [d\]](hydra-session:ImEi)"),
            vec![("a".into(), r"a ] b \ c [d]".into())]
        );
        assert_eq!(
            refs("@[la\nbel](hydra-session:ImEi)"),
            vec![("a".into(), "la\nbel".into())]
        );
        // A backslash before a line break ends the label: only the bare URI counts.
        assert_eq!(
            refs("@[x\\\n](hydra-session:ImEi)"),
            vec![("a".into(), "a".into())]
        );
    }

    #[test]
    fn escaped_closing_bracket_turns_mention_into_prose() {
        let parsed = parse(r"escaped @[a\](hydra-session:Inoi)").expect("ok");
        assert_eq!(parsed.text, r"escaped @[a\](@z)");
    }

    #[test]
    fn punctuation_after_scheme_is_prose() {
        assert_eq!(refs("hydra-session: hydra-session:... x"), vec![]);
        assert!(parse("@[x](hydra-session:)").is_err());
        assert!(parse("@[x](hydra-session:!!)").is_err());
    }

    #[test]
    fn uri_stops_at_white_space() {
        // The URI may not hold white space, so this is no Markdown mention;
        // the bare URI inside it still counts.
        assert_eq!(
            refs("@[x](hydra-session:ImEi )"),
            vec![("a".into(), "a".into())]
        );
        assert_eq!(scan("@[x](hydra-session:ImEi\u{3000})").len(), 1);
    }

    #[test]
    fn format_round_trips() {
        let mention = format("a", Some("x]y\\z"));
        assert_eq!(mention, r"@[x\]y\\z](hydra-session:ImEi)");
        assert_eq!(refs(&mention), vec![("a".into(), "x]y\\z".into())]);
        assert_eq!(format("a", None), "@[a](hydra-session:ImEi)");
    }

    #[test]
    fn many_unclosed_labels_stay_linear() {
        let text = "@[".repeat(200_000);
        assert!(scan(&text).is_empty());
        let text = "@[\\".repeat(100_000);
        assert!(scan(&text).is_empty());
    }

    #[test]
    fn a_cancelled_scan_stops_at_its_first_poll() {
        let text = "@[a](hydra-session:".repeat(100_000);
        let polls = std::cell::Cell::new(0);
        let cancelled = || {
            polls.set(polls.get() + 1);
            true
        };
        assert_eq!(scan_cancellable(&text, &cancelled), Err(ScanCancelled));
        assert_eq!(polls.get(), 1);
        let never = || false;
        assert_eq!(
            scan_cancellable("@[a](hydra-session:ImEi)", &never).map(|m| m.len()),
            Ok(1)
        );
    }

    #[test]
    fn many_unclosed_uris_stay_linear() {
        // Issue 10 item 2: every `@[a](` started a URI scan to the end of
        // the text (26 s for 40,000 repetitions in a release build). In a
        // test build the quadratic version takes minutes; linear, well under
        // a second.
        let text = "@[a](hydra-session:".repeat(40_000);
        let started = std::time::Instant::now();
        assert!(scan(&text).is_empty());
        assert!(parse(&text).is_ok());
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        // A URI that stopped at white space: later starts fail, and a mention
        // after that white space is still found.
        let text = format!(
            "{} @[b](hydra-session:ImIi)",
            "@[a](hydra-session:".repeat(3)
        );
        let found = scan(&text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].uri, "hydra-session:ImIi");
        // A URI that fails at white space must not hide a later, closed one
        // starting after the white space.
        // (`hydra-session:x` is a bare URI of its own.)
        let text = "@[a](hydra-session:x y@[b](hydra-session:ImIi)";
        let uris: Vec<&str> = scan(text).iter().map(|m| m.uri).collect();
        assert_eq!(uris, ["hydra-session:x", "hydra-session:ImIi"]);
    }

    #[test]
    fn a_one_line_mention_parses_back_to_its_label_and_id() {
        let id = "checkout-tax";
        for (title, label) in [
            ("first line\nsecond line", "first line second line"),
            ("\x1b[2J\x1b[31mred]\\", "[2J [31mred]\\"),
            ("abc\u{202E}fed\u{200B}", "abcfed"),
            (" \n\u{2066} ", id),
        ] {
            let written = format_one_line(id, title);
            assert!(!written.contains(|c: char| c.is_control()), "{written:?}");
            let parsed = parse(&written).unwrap();
            assert_eq!(parsed.references.len(), 1, "{written:?}");
            assert_eq!(parsed.references[0].session_id, id);
            assert_eq!(parsed.references[0].label, label);
        }
    }
}
