//! What a session document holds of its messages for the session-level
//! match: every term of every message (and of the titles), counted once
//! per message that holds it (at most [`SESSION_TF`]), and the same for
//! the terms' other forms ([`Forms`]) that are not the term itself. Given to tantivy as [`counted`]
//! entries: the session's text is neither copied nor stored a second
//! time, and a term is copied once per session, not once per time it is
//! written.

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{TextAnalyzer, TokenStream};

use super::counted;
use super::forms::Forms;
use super::schema::SESSION_TF;
use super::tokenizer;

/// The most distinct terms whose room the maps keep between sessions.
const KEEP: usize = 65_536;

/// What makes a session's terms, kept from one session to the next: the
/// analyzer's token buffers, the forms already computed, and the maps
/// (their capacity; they are emptied per session).
pub struct SessionTerms {
    analyzer: TextAnalyzer,
    forms: Forms,
    /// Per term: the messages that hold it (at most SESSION_TF), and the
    /// last message it was counted in (a term counts once per message).
    words: FxHashMap<Box<str>, (u32, u32)>,
    stems: FxHashMap<Box<str>, u32>,
    /// The texts added since `begin`: the number of the last one.
    texts: u32,
    /// Their bytes.
    bytes: usize,
}

impl Default for SessionTerms {
    fn default() -> Self {
        Self::new()
    }
}

impl SessionTerms {
    pub fn new() -> Self {
        SessionTerms {
            analyzer: tokenizer::analyzer(),
            forms: Forms::new(),
            words: FxHashMap::default(),
            stems: FxHashMap::default(),
            texts: 0,
            bytes: 0,
        }
    }

    /// The `words` and `stems` values ([`counted`] entries) of a session
    /// whose texts (each message, the titles) are `texts`.
    #[cfg(test)]
    pub fn of<'a>(&mut self, texts: impl Iterator<Item = &'a str>) -> (String, String) {
        self.begin();
        for text in texts {
            self.add(text);
        }
        self.finish()
    }

    /// Starts a session: its texts come one by one ([`Self::add`]), so a
    /// large session's messages need not all be held (issue 29 item 6).
    pub fn begin(&mut self) {
        self.words.clear();
        self.stems.clear();
        self.texts = 0;
        self.bytes = 0;
    }

    /// One more text of the session (a message, a title).
    pub fn add(&mut self, text: &str) {
        self.texts = self.texts.saturating_add(1);
        let message = self.texts;
        self.bytes += text.len();
        let mut stream = self.analyzer.token_stream(text);
        while stream.advance() {
            let term = stream.token().text.as_str();
            match self.words.get_mut(term) {
                Some((count, last)) => {
                    if *last != message {
                        *last = message;
                        *count = (*count + 1).min(SESSION_TF);
                    }
                }
                None => {
                    self.words.insert(term.into(), (1, message));
                }
            }
        }
    }

    /// The `words` and `stems` values ([`counted`] entries) of the texts
    /// added since [`Self::begin`]. The entries come in no particular
    /// order: neither field keeps positions, so the order changes nothing
    /// in the index.
    pub fn finish(&mut self) -> (String, String) {
        let bytes = self.bytes;
        // About a tenth of the text is distinct terms; most of a
        // session's value is written without growing the string again.
        let mut words_out = String::with_capacity(bytes / 8);
        for (term, (count, _)) in &self.words {
            counted::push(&mut words_out, term, *count);
            // A form that is the word itself is in `words` already: the
            // query asks `words` for every form too (matching.rs), so
            // `stems` holds only the forms that differ (most words of a
            // session are their own stem; their copies were a fifth of
            // the index).
            for form in self.forms.of(term).iter().filter(|f| ***f != **term) {
                match self.stems.get_mut(form) {
                    Some(slot) => *slot = (*slot + count).min(SESSION_TF),
                    None => {
                        self.stems.insert(form.clone(), *count);
                    }
                }
            }
        }
        let mut stems_out = String::with_capacity(bytes / 32);
        for (form, count) in &self.stems {
            counted::push(&mut stems_out, form, *count);
        }
        // A session of a vast vocabulary leaves its maps that large; the
        // next ones need a fraction of it.
        if self.words.capacity() > KEEP {
            self.words = FxHashMap::default();
            self.stems = FxHashMap::default();
        }
        (words_out, stems_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count `value` gives `term` (0: no entry of it).
    fn count(value: &str, term: &str) -> usize {
        value
            .lines()
            .find_map(|entry| {
                let mut chars = entry.chars();
                let digit = chars.next()?.to_digit(10)?;
                (chars.as_str() == term).then_some(digit as usize)
            })
            .unwrap_or(0)
    }

    #[test]
    fn terms_count_once_per_message_and_stems_follow() {
        let mut terms = SessionTerms::new();
        let texts = [
            "Indexing the trailers",
            "indexing again, indexing",
            "build.rs",
        ];
        let (words, stems) = terms.of(texts.into_iter());
        assert_eq!(count(&words, "indexing"), 2);
        assert_eq!(count(&words, "trailers"), 1);
        assert_eq!(count(&words, "build.rs"), 1);
        assert_eq!(count(&stems, "index"), 2);
        assert_eq!(count(&stems, "trailer"), 1);
        // `build` is its own stem: `words` holds it, `stems` does not.
        let (words, stems) = terms.of(["build"].into_iter());
        assert_eq!(count(&words, "build"), 1);
        assert_eq!(count(&stems, "build"), 0);
    }

    #[test]
    fn a_term_in_many_messages_counts_at_most_session_tf() {
        let texts = vec!["rounding"; 20];
        let (words, stems) = SessionTerms::new().of(texts.into_iter());
        assert_eq!(count(&words, "rounding"), SESSION_TF as usize);
        assert_eq!(count(&stems, "round"), SESSION_TF as usize);
    }
}
