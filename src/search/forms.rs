//! Other forms of a word, for the session-level `stems` field: its English
//! and German stems (tantivy's Snowball stemmers), and its German stem
//! with `ae oe ue` read as `ä ö ü` (people type `geaendert` for
//! `geändert`; the index folds `ä` to `a`). No language detection: every
//! word gets both stemmers, which costs a few terms and finds a German
//! word in an English message too. What is indexed and what is asked go
//! through the same [`Forms::of`], so the forms meet whatever they are.

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;

/// Words shorter than this are not stemmed (`is`, `as`: stems say nothing).
const SHORTEST: usize = 3;

/// The most words whose forms one generation of the memory holds; two
/// are kept, so at most twice this (a bound on the writer's memory, the
/// same 50,000 words as when one memory was emptied whole; not a cache to
/// tune).
const REMEMBERED: usize = 25_000;

/// The stemmers, and the forms already computed: the words of this
/// generation and of the one before, so the words met often survive
/// when a generation fills (emptying it all at once made every frequent
/// word of a large vocabulary miss again: a fifth of a first index's CPU
/// went to stemming, docs/performance.md).
pub struct Forms {
    english: Stemmer,
    german: Stemmer,
    known: FxHashMap<Box<str>, Box<[Box<str>]>>,
    older: FxHashMap<Box<str>, Box<[Box<str>]>>,
}

impl Default for Forms {
    fn default() -> Self {
        Self::new()
    }
}

impl Forms {
    pub fn new() -> Self {
        Forms {
            english: Stemmer::create(Algorithm::English),
            german: Stemmer::create(Algorithm::German),
            known: FxHashMap::default(),
            older: FxHashMap::default(),
        }
    }

    /// The forms of `term` (a folded term, as the tokenizer makes it) in
    /// the `stems` field; none for short words, numbers and CJK.
    pub fn of(&mut self, term: &str) -> &[Box<str>] {
        if term.len() < SHORTEST || !term.bytes().all(|b| b.is_ascii_lowercase()) {
            return &[];
        }
        if !self.known.contains_key(term) {
            let forms = match self.older.remove(term) {
                Some(forms) => forms,
                None => self.compute(term),
            };
            if self.known.len() >= REMEMBERED {
                self.older = std::mem::take(&mut self.known);
            }
            self.known.insert(term.into(), forms);
        }
        self.known.get(term).map_or(&[], |forms| forms)
    }

    fn compute(&self, term: &str) -> Box<[Box<str>]> {
        let mut forms: Vec<Box<str>> = vec![
            self.english.stem(term).into(),
            self.german.stem(term).into(),
        ];
        if let Some(plain) = umlauts(term) {
            forms.push(self.german.stem(&plain).into());
        }
        forms.sort_unstable();
        forms.dedup();
        forms.into_boxed_slice()
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
        Forms::new()
            .of(term)
            .iter()
            .map(|f| f.to_string())
            .collect()
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
