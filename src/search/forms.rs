//! Other forms of a word, for the session-level `stems` field: its English
//! and German stems (tantivy's Snowball stemmers), and its German stem
//! with `ae oe ue` read as `ä ö ü` (people type `geaendert` for
//! `geändert`; the index folds `ä` to `a`). No language detection: every
//! word gets both stemmers, which costs a few terms and finds a German
//! word in an English message too. What is indexed and what is asked go
//! through the same [`Forms::of`], so the forms meet whatever they are.

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Language, RawTokenizer, Stemmer, TextAnalyzer, TokenStream};

/// Words shorter than this are not stemmed (`is`, `as`: stems say nothing).
const SHORTEST: usize = 3;

/// The most words whose forms are remembered; past it the memory is
/// emptied (a bound on the writer's memory, not a cache to tune).
const REMEMBERED: usize = 50_000;

/// The stemmers, and the forms already computed.
pub struct Forms {
    english: TextAnalyzer,
    german: TextAnalyzer,
    known: FxHashMap<String, Vec<String>>,
}

impl Default for Forms {
    fn default() -> Self {
        Self::new()
    }
}

impl Forms {
    pub fn new() -> Self {
        let stemmer = |language| {
            TextAnalyzer::builder(RawTokenizer::default())
                .filter(Stemmer::new(language))
                .build()
        };
        Forms {
            english: stemmer(Language::English),
            german: stemmer(Language::German),
            known: FxHashMap::default(),
        }
    }

    /// The forms of `term` (a folded term, as the tokenizer makes it) in
    /// the `stems` field; none for short words, numbers and CJK.
    pub fn of(&mut self, term: &str) -> &[String] {
        if term.len() < SHORTEST || !term.bytes().all(|b| b.is_ascii_lowercase()) {
            return &[];
        }
        if !self.known.contains_key(term) {
            if self.known.len() >= REMEMBERED {
                self.known.clear();
            }
            let mut forms = vec![stem(&mut self.english, term), stem(&mut self.german, term)];
            if let Some(plain) = umlauts(term) {
                forms.push(stem(&mut self.german, &plain));
            }
            forms.sort_unstable();
            forms.dedup();
            self.known.insert(term.to_string(), forms);
        }
        self.known.get(term).map_or(&[], Vec::as_slice)
    }
}

fn stem(analyzer: &mut TextAnalyzer, term: &str) -> String {
    let mut stream = analyzer.token_stream(term);
    if stream.advance() {
        stream.token().text.clone()
    } else {
        term.to_string()
    }
}

/// `term` with `ae oe ue` as the folded umlauts `a o u`, when it has one.
fn umlauts(term: &str) -> Option<String> {
    if !(term.contains("ae") || term.contains("oe") || term.contains("ue")) {
        return None;
    }
    Some(
        term.replace("ae", "a")
            .replace("oe", "o")
            .replace("ue", "u"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(term: &str) -> Vec<String> {
        Forms::new().of(term).to_vec()
    }

    fn meet(a: &str, b: &str) -> bool {
        let (a, b) = (forms(a), forms(b));
        a.iter().any(|f| b.contains(f))
    }

    #[test]
    fn inflected_forms_meet() {
        assert!(meet("trailers", "trailer"));
        assert!(meet("indexing", "indexed"));
        assert!(meet("proposed", "proposes"));
        assert!(meet("aenderungen", "anderung"));
        assert!(!meet("index", "render"));
    }

    #[test]
    fn umlauts_typed_as_two_letters_meet_the_folded_ones() {
        // `geändert` is indexed folded as `geandert`.
        assert!(meet("geaendert", "geandert"));
        assert!(meet("groesse", "grosse"));
        assert!(meet("pruefung", "prufung"));
    }

    #[test]
    fn short_words_numbers_and_cjk_have_no_forms() {
        assert!(forms("is").is_empty());
        assert!(forms("12").is_empty());
        assert!(forms("東京").is_empty());
    }
}
