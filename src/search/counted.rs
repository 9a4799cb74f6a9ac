//! How a session document's `words` and `stems` reach tantivy: one plain
//! string of `count term` entries, one a line (`3indexing\n1trailer\n`),
//! read back by [`Counted`], which hands each term to the index `count`
//! times. A pre-tokenized value would say the same, but tantivy's own
//! document keeps one as JSON: serializing it, and parsing it again in
//! the indexing thread, was a tenth of a first index, and the documents
//! waiting in the writer's queue held every term several times over
//! (docs/performance.md "Indexing once").

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The name the reader is registered under in the index.
pub const NAME: &str = "hydra_counted";

/// The most times an entry's term is handed out: a count is one digit.
const MOST: u32 = 9;

/// Appends the entry of `term` counted `count` times (1 to 9) to `out`.
/// A term with a line break cannot be an entry, and no term of the
/// tokenizer has one (a line break ends a word): it is left out.
pub fn push(out: &mut String, term: &str, count: u32) {
    if term.is_empty() || term.contains('\n') || count == 0 {
        return;
    }
    let digit = char::from_digit(count.min(MOST), 10).unwrap_or('1');
    out.push(digit);
    out.push_str(term);
    out.push('\n');
}

/// The tokenizer of the `words` and `stems` fields: entries written by
/// [`push`] back as terms, each its count times.
#[derive(Clone, Default)]
pub struct Counted {
    token: Token,
}

/// The terms of one value, handed out in order.
pub struct CountedStream<'a> {
    rest: &'a str,
    token: &'a mut Token,
    left: u32,
}

impl Tokenizer for Counted {
    type TokenStream<'a> = CountedStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CountedStream<'a> {
        self.token.position = usize::MAX;
        CountedStream {
            rest: text,
            token: &mut self.token,
            left: 0,
        }
    }
}

impl TokenStream for CountedStream<'_> {
    fn advance(&mut self) -> bool {
        // Positions are not indexed in these fields; they only count up.
        self.token.position = self.token.position.wrapping_add(1);
        if self.left > 0 {
            self.left -= 1;
            return true;
        }
        loop {
            let Some((entry, rest)) = self.rest.split_once('\n') else {
                self.rest = "";
                return false;
            };
            self.rest = rest;
            let mut chars = entry.chars();
            let count = chars.next().and_then(|c| c.to_digit(10)).unwrap_or(0);
            let term = chars.as_str();
            if count == 0 || term.is_empty() {
                continue; // not an entry of `push`: nothing to count
            }
            self.token.text.clear();
            self.token.text.push_str(term);
            self.token.offset_from = 0;
            self.token.offset_to = 0;
            self.token.position_length = 1;
            self.left = count - 1;
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut counted = Counted::default();
        let mut stream = counted.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn entries_come_back_each_their_count_times() {
        let mut text = String::new();
        push(&mut text, "indexing", 3);
        push(&mut text, "東京", 1);
        push(&mut text, "build.rs", 12);
        assert_eq!(text, "3indexing\n1東京\n9build.rs\n");
        let got = terms(&text);
        assert_eq!(got.iter().filter(|t| *t == "indexing").count(), 3);
        assert_eq!(got.iter().filter(|t| *t == "東京").count(), 1);
        assert_eq!(got.iter().filter(|t| *t == "build.rs").count(), 9);
        assert_eq!(got.len(), 13);
    }

    #[test]
    fn what_is_not_an_entry_gives_no_term() {
        let mut text = String::new();
        push(&mut text, "", 2);
        push(&mut text, "two\nlines", 2);
        push(&mut text, "none", 0);
        assert!(text.is_empty());
        assert_eq!(terms("x\n0zero\n\n2ok\ntail-without-newline"), ["ok", "ok"]);
        assert!(terms("").is_empty());
    }
}
