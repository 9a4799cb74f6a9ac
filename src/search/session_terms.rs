//! What a session document holds of its messages for the session-level
//! match: every term of every message (and of the titles), counted once
//! per message that holds it (at most [`SESSION_TF`]), and the same for
//! the terms' other forms ([`Forms`]). Given to tantivy as tokens, so the
//! session's text is neither copied nor stored a second time.

use std::collections::HashMap;

use tantivy::tokenizer::{PreTokenizedString, TextAnalyzer, Token, TokenStream};

use super::forms::Forms;
use super::schema::SESSION_TF;
use super::tokenizer;

/// The `words` and `stems` of a session whose texts (each message, the
/// titles) are `texts`.
pub fn of<'a>(
    texts: impl Iterator<Item = &'a str>,
    forms: &mut Forms,
) -> (PreTokenizedString, PreTokenizedString) {
    let mut analyzer: TextAnalyzer = tokenizer::analyzer();
    let mut words: HashMap<String, u32> = HashMap::new();
    let mut in_message: Vec<String> = Vec::new();
    for text in texts {
        in_message.clear();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            in_message.push(stream.token().text.clone());
        }
        in_message.sort_unstable();
        in_message.dedup();
        for term in in_message.drain(..) {
            let count = words.entry(term).or_insert(0);
            *count = (*count + 1).min(SESSION_TF);
        }
    }
    let mut stems: HashMap<String, u32> = HashMap::new();
    for (term, &count) in &words {
        for form in forms.of(term) {
            let slot = stems.entry(form.clone()).or_insert(0);
            *slot = (*slot + count).min(SESSION_TF);
        }
    }
    (tokens(words), tokens(stems))
}

/// Each term `count` times, in a stable order (positions are not kept).
fn tokens(counts: HashMap<String, u32>) -> PreTokenizedString {
    let mut terms: Vec<(String, u32)> = counts.into_iter().collect();
    terms.sort_unstable();
    let mut out = Vec::new();
    for (term, count) in terms {
        for _ in 0..count {
            out.push(Token {
                offset_from: 0,
                offset_to: 0,
                position: out.len(),
                text: term.clone(),
                position_length: 1,
            });
        }
    }
    PreTokenizedString {
        text: String::new(),
        tokens: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_count_once_per_message_and_stems_follow() {
        let mut forms = Forms::new();
        let texts = [
            "Indexing the trailers",
            "indexing again, indexing",
            "build.rs",
        ];
        let (words, stems) = of(texts.into_iter(), &mut forms);
        let count =
            |p: &PreTokenizedString, t: &str| p.tokens.iter().filter(|k| k.text == t).count();
        assert_eq!(count(&words, "indexing"), 2);
        assert_eq!(count(&words, "trailers"), 1);
        assert_eq!(count(&words, "build.rs"), 1);
        assert_eq!(count(&stems, "index"), 2);
        assert_eq!(count(&stems, "trailer"), 1);
    }
}
