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

/// The `words` and `stems` values ([`counted`] entries) of a session
/// whose texts (each message, the titles) are `texts`.
pub fn of<'a>(texts: impl Iterator<Item = &'a str>, forms: &mut Forms) -> (String, String) {
    let mut analyzer: TextAnalyzer = tokenizer::analyzer();
    // Per term: the messages that hold it (at most SESSION_TF), and the
    // last message it was counted in (a term counts once per message).
    let mut words: FxHashMap<String, (u32, u32)> = FxHashMap::default();
    for (message, text) in (1u32..).zip(texts) {
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let term = stream.token().text.as_str();
            match words.get_mut(term) {
                Some((count, last)) => {
                    if *last != message {
                        *last = message;
                        *count = (*count + 1).min(SESSION_TF);
                    }
                }
                None => {
                    words.insert(term.to_string(), (1, message));
                }
            }
        }
    }
    // Sorted, so a session's values are the same whatever the hash order.
    let mut sorted: Vec<(String, u32)> = words.into_iter().map(|(t, (c, _))| (t, c)).collect();
    sorted.sort_unstable();
    let mut stems: FxHashMap<String, u32> = FxHashMap::default();
    let mut words_out = String::new();
    for (term, count) in &sorted {
        counted::push(&mut words_out, term, *count);
        // A form that is the word itself is in `words` already: the
        // query asks `words` for every form too (matching.rs), so `stems`
        // holds only the forms that differ (most words of a session are
        // their own stem; their copies were a fifth of the index).
        for form in forms.of(term).iter().filter(|f| *f != term) {
            match stems.get_mut(form.as_str()) {
                Some(slot) => *slot = (*slot + count).min(SESSION_TF),
                None => {
                    stems.insert(form.clone(), *count);
                }
            }
        }
    }
    let mut sorted: Vec<(String, u32)> = stems.into_iter().collect();
    sorted.sort_unstable();
    let mut stems_out = String::new();
    for (form, count) in &sorted {
        counted::push(&mut stems_out, form, *count);
    }
    (words_out, stems_out)
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::Tokenizer;

    use super::*;

    /// How many times the index is given `term` from a value of `of`.
    fn count(value: &str, term: &str) -> usize {
        let mut reader = counted::Counted::default();
        let mut stream = reader.token_stream(value);
        let mut n = 0;
        while stream.advance() {
            n += usize::from(stream.token().text == term);
        }
        n
    }

    #[test]
    fn terms_count_once_per_message_and_stems_follow() {
        let mut forms = Forms::new();
        let texts = [
            "Indexing the trailers",
            "indexing again, indexing",
            "build.rs",
        ];
        let (words, stems) = of(texts.into_iter(), &mut forms);
        assert_eq!(count(&words, "indexing"), 2);
        assert_eq!(count(&words, "trailers"), 1);
        assert_eq!(count(&words, "build.rs"), 1);
        assert_eq!(count(&stems, "index"), 2);
        assert_eq!(count(&stems, "trailer"), 1);
        // `build` is its own stem: `words` holds it, `stems` does not.
        let (words, stems) = of(["build"].into_iter(), &mut forms);
        assert_eq!(count(&words, "build"), 1);
        assert_eq!(count(&stems, "build"), 0);
    }

    #[test]
    fn a_term_in_many_messages_counts_at_most_session_tf() {
        let mut forms = Forms::new();
        let texts = vec!["rounding"; 20];
        let (words, stems) = of(texts.into_iter(), &mut forms);
        assert_eq!(count(&words, "rounding"), SESSION_TF as usize);
        assert_eq!(count(&stems, "round"), SESSION_TF as usize);
    }
}
