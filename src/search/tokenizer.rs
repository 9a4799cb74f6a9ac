//! How text becomes search terms, the same for what is indexed and what
//! is asked: words of letters and digits; code identifiers both as written
//! and by their parts (`ModuleSpec` → `module`, `spec`, and `modulespec`
//! at the first part's place; `snake_case` and `src/search/index.rs` by
//! their pieces at consecutive positions, so the parts form a phrase); CJK
//! runs as overlapping bigrams (no dictionary needed); then lower case and
//! accents folded (tantivy's own filters), and absurdly long tokens
//! dropped.

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RawTokenizer, RemoveLongFilter, TextAnalyzer, Token,
    TokenStream, Tokenizer,
};

/// The name the analyzer is registered under in the index.
pub const NAME: &str = "hydra_words";

/// Tokens longer than this (in bytes) are noise: base64, hashes, minified
/// code. Dropped, so they cannot bloat the term dictionary.
const LONGEST_TOKEN: usize = 40;

/// The full analyzer: [`Words`], long tokens dropped, lower case, accents
/// folded.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(Words::default())
        .filter(RemoveLongFilter::limit(LONGEST_TOKEN))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// One term of a query: a part of a word as the index holds it.
/// The terms of `text` grouped by the word they came from, each group the
/// word's parts in order (one part for a plain word; several form a
/// phrase). A camel-case word's joined form is left out: its parts say
/// the same as a phrase, and also match the words written apart.
pub fn word_groups(text: &str) -> Vec<Vec<String>> {
    let mut fold = folding();
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut word = usize::MAX;
    for piece in pieces(text).into_iter().filter(|p| !p.joined) {
        let mut stream = fold.token_stream(&text[piece.from..piece.to]);
        if !stream.advance() {
            continue; // too long: the index dropped it too
        }
        let term = stream.token().text.clone();
        if piece.word != word || groups.is_empty() {
            groups.push(Vec::new());
            word = piece.word;
        }
        if let Some(group) = groups.last_mut() {
            group.push(term);
        }
    }
    groups
}

/// The file names of `text`'s words whole, folded (`src/pod_build.rs` →
/// `pod_build.rs`; `v12.31.3` → `v12.31.3`), as the index holds them
/// beside their parts: a query ranks the exact name above a longer one.
pub fn file_names(text: &str) -> Vec<String> {
    let mut fold = folding();
    pieces(text)
        .into_iter()
        .filter(|p| p.name)
        .filter_map(|p| {
            let mut stream = fold.token_stream(&text[p.from..p.to]);
            stream.advance().then(|| stream.token().text.clone())
        })
        .collect()
}

/// One term folded as the index folds it (long ones dropped).
fn folding() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(RemoveLongFilter::limit(LONGEST_TOKEN))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// One token before folding: a byte range of the text, its position, the
/// word it belongs to, and whether it is a camel-case word's joined form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    from: usize,
    to: usize,
    position: usize,
    word: usize,
    joined: bool,
    /// A joined form that is a word's file name whole (`build.rs`).
    name: bool,
}

/// What a character is to the splitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Alnum,
    Cjk,
    /// Joins the parts of an identifier or a path: `_ - . / : \`.
    Connector,
    Other,
}

fn class(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Class::Alnum
        } else if matches!(c, '_' | '-' | '.' | '/' | ':' | '\\') {
            Class::Connector
        } else {
            Class::Other
        };
    }
    // Every connector is ASCII.
    if is_cjk(c) {
        Class::Cjk
    } else if c.is_alphanumeric() {
        Class::Alnum
    } else {
        Class::Other
    }
}

/// Han, kana and Hangul: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FFFF) // CJK Extensions B–F
}

/// Splits `text` into pieces (see the module's comment).
fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    pieces_into(text, &mut Vec::new(), &mut out);
    out
}

/// [`pieces`] into `out`, with `chars` for the characters: both buffers
/// are the caller's, emptied first, so a tokenizer fed message after
/// message allocates only when a text is longer than all before. Most
/// text is ASCII: its bytes are its characters, and no list of them is
/// made (writing one, 16 bytes a character, was a good part of the
/// tokenizer's time).
fn pieces_into(text: &str, chars: &mut Vec<(usize, char)>, out: &mut Vec<Piece>) {
    out.clear();
    if text.is_ascii() {
        split(&Ascii(text.as_bytes()), out);
    } else {
        chars.clear();
        chars.extend(text.char_indices());
        split(
            &Wide {
                chars,
                len: text.len(),
            },
            out,
        );
    }
}

/// A text's characters by place, and where each begins in its bytes.
trait Chars {
    fn count(&self) -> usize;
    fn at(&self, i: usize) -> char;
    /// The byte offset of character `i` (the text's length past the end).
    fn end_of(&self, i: usize) -> usize;
}

/// An ASCII text: character `i` is byte `i`.
struct Ascii<'a>(&'a [u8]);

impl Chars for Ascii<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn at(&self, i: usize) -> char {
        char::from(self.0[i])
    }
    fn end_of(&self, i: usize) -> usize {
        i.min(self.0.len())
    }
}

/// Any other text, by its decoded characters.
struct Wide<'a> {
    chars: &'a [(usize, char)],
    len: usize,
}

impl Chars for Wide<'_> {
    fn count(&self) -> usize {
        self.chars.len()
    }
    fn at(&self, i: usize) -> char {
        self.chars[i].1
    }
    fn end_of(&self, i: usize) -> usize {
        self.chars.get(i).map_or(self.len, |&(at, _)| at)
    }
}

fn split(chars: &impl Chars, out: &mut Vec<Piece>) {
    let n = chars.count();
    let class_at = |i: usize| class(chars.at(i));
    let end_of = |i: usize| chars.end_of(i);
    let mut position = 0;
    let mut word = 0;
    let mut i = 0;
    while i < n {
        match class_at(i) {
            Class::Cjk => {
                let start = i;
                while i < n && class_at(i) == Class::Cjk {
                    i += 1;
                }
                if i - start == 1 {
                    out.push(piece(end_of(start), end_of(i), position, word));
                    position += 1;
                } else {
                    for k in start..i - 1 {
                        out.push(piece(end_of(k), end_of(k + 2), position, word));
                        position += 1;
                    }
                }
                word += 1;
            }
            Class::Alnum => {
                // A word: alphanumeric segments joined by single runs of
                // connectors (`a_b`, `x::y`, `src/lib.rs`).
                // Where its file name (after the last `/` or `\\`) begins:
                // its first character, its first position, its segments.
                let mut name = (i, position, 0usize);
                loop {
                    let start = i;
                    while i < n && class_at(i) == Class::Alnum {
                        i += 1;
                    }
                    segment(chars, start, i, &mut position, word, out);
                    name.2 += 1;
                    let mut j = i;
                    while j < n && class_at(j) == Class::Connector {
                        j += 1;
                    }
                    if j > i && j < n && class_at(j) == Class::Alnum {
                        if (i..j).any(|k| matches!(chars.at(k), '/' | '\\')) {
                            name = (j, position, 0);
                        }
                        i = j;
                    } else {
                        break;
                    }
                }
                // The file name whole (`pod_build.rs`, `build.rs`,
                // `v12.31.3`), at its first part's place: an exact name
                // outranks a longer one that ends in it.
                if name.2 > 1 {
                    out.push(Piece {
                        joined: true,
                        name: true,
                        ..piece(end_of(name.0), end_of(i), name.1, word)
                    });
                }
                word += 1;
            }
            Class::Connector | Class::Other => i += 1,
        }
    }
}

fn piece(from: usize, to: usize, position: usize, word: usize) -> Piece {
    Piece {
        from,
        to,
        position,
        word,
        joined: false,
        name: false,
    }
}

/// The parts of one alphanumeric segment `chars[start..end]` split at its
/// case changes (`ModuleSpec`, `HTTPServer`, `parseJSON`), then its joined
/// form when it had more than one part.
fn segment(
    chars: &impl Chars,
    start: usize,
    end: usize,
    position: &mut usize,
    word: usize,
    out: &mut Vec<Piece>,
) {
    let end_of = |i: usize| chars.end_of(i);
    let first = *position;
    let mut part_start = start;
    let digits_from = version_digits(chars, start, end);
    for k in start + 1..end {
        let (prev, here) = (chars.at(k - 1), chars.at(k));
        let next_lower = k + 1 < end && chars.at(k + 1).is_lowercase();
        let boundary = (prev.is_lowercase() && here.is_uppercase())
            || (prev.is_uppercase() && here.is_uppercase() && next_lower)
            || Some(k) == digits_from;
        if boundary {
            out.push(piece(end_of(part_start), end_of(k), *position, word));
            *position += 1;
            part_start = k;
        }
    }
    out.push(piece(end_of(part_start), end_of(end), *position, word));
    *position += 1;
    if *position - first > 1 {
        out.push(Piece {
            joined: true,
            ..piece(end_of(start), end_of(end), first, word)
        });
    }
}

/// Where the digits of a segment of letters then digits begin (`v12`,
/// `rc1`, `E0382`, `sha256`): a version or a code is found without its
/// prefix (`v12.31.3` by `12.31.3`). Only one change from letters to
/// digits: a hash (`a3f9c2`) stays one term, not a dozen.
fn version_digits(chars: &impl Chars, start: usize, end: usize) -> Option<usize> {
    let digits = (start..end).find(|&k| chars.at(k).is_ascii_digit())?;
    let letters = (start..digits).all(|k| chars.at(k).is_alphabetic());
    let numbers = (digits..end).all(|k| chars.at(k).is_ascii_digit());
    (digits > start && letters && numbers).then_some(digits)
}

/// The tokenizer tantivy runs: [`pieces`] as tokens.
#[derive(Clone, Default)]
pub struct Words {
    /// The tokens of the last text, and past them those of longer texts
    /// before: their strings are written over, not allocated again for
    /// every token of every message.
    tokens: Vec<Token>,
    /// The splitter's buffers, kept for the same reason.
    chars: Vec<(usize, char)>,
    pieces: Vec<Piece>,
}

/// The most pieces (and characters, and tokens) the buffers of [`Words`]
/// keep between texts: about 2 MB.
const KEEP: usize = 16_384;

/// The tokens of one text, handed out in order.
pub struct WordStream<'a> {
    tokens: &'a mut [Token],
    next: usize,
}

impl Tokenizer for Words {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        // What one very long text made the buffers hold (a message of
        // 1 MiB: some 30 MB) is let go at the next text that needs far
        // less: tantivy keeps a tokenizer as long as a segment is written.
        if text.len() < KEEP && self.pieces.capacity().max(self.chars.capacity()) > KEEP {
            *self = Words::default();
        }
        pieces_into(text, &mut self.chars, &mut self.pieces);
        let pieces = &self.pieces;
        if self.tokens.len() < pieces.len() {
            self.tokens.resize_with(pieces.len(), Token::default);
        }
        for (token, p) in self.tokens.iter_mut().zip(pieces) {
            token.offset_from = p.from;
            token.offset_to = p.to;
            token.position = p.position;
            token.position_length = 1;
            token.text.clear();
            token.text.push_str(&text[p.from..p.to]);
        }
        WordStream {
            tokens: &mut self.tokens[..pieces.len()],
            next: 0,
        }
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1))]
    }

    fn token_mut(&mut self) -> &mut Token {
        let at = self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1));
        &mut self.tokens[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(term, position)` of every token of `text`.
    fn tokens(text: &str) -> Vec<(String, usize)> {
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push((stream.token().text.clone(), stream.token().position));
        }
        out
    }

    fn terms(text: &str) -> Vec<String> {
        tokens(text).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn case_and_accents_are_folded() {
        assert_eq!(terms("Café NAÏVE Straße"), ["cafe", "naive", "strasse"]);
    }

    #[test]
    fn camel_case_is_found_by_its_parts_and_as_written() {
        assert_eq!(
            tokens("the ModuleSpec here"),
            [
                ("the".into(), 0),
                ("module".into(), 1),
                ("spec".into(), 2),
                ("modulespec".into(), 1),
                ("here".into(), 3)
            ]
        );
        assert_eq!(terms("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(terms("parseJSON"), ["parse", "json", "parsejson"]);
    }

    #[test]
    fn snake_case_and_paths_are_phrases_of_their_parts() {
        assert_eq!(
            tokens("snake_case src/search/index.rs"),
            [
                ("snake".into(), 0),
                ("case".into(), 1),
                ("snake_case".into(), 0),
                ("src".into(), 2),
                ("search".into(), 3),
                ("index".into(), 4),
                ("rs".into(), 5),
                ("index.rs".into(), 4)
            ]
        );
        assert_eq!(
            word_groups("fix snake_case, ModuleSpec."),
            vec![vec!["fix"], vec!["snake", "case"], vec!["module", "spec"]]
        );
        assert_eq!(word_groups("modulespec"), vec![vec!["modulespec"]]);
    }

    /// Issue 29 item 4: `v12.31.3` is found as `12.31.3` (letters then
    /// digits split once; a hash stays whole), and a file name is a term
    /// of its own beside its parts.
    #[test]
    fn versions_lose_their_prefix_and_file_names_are_whole() {
        assert_eq!(
            tokens("v12.31.3"),
            [
                ("v".into(), 0),
                ("12".into(), 1),
                ("v12".into(), 0),
                ("31".into(), 2),
                ("3".into(), 3),
                ("v12.31.3".into(), 0)
            ]
        );
        assert_eq!(word_groups("12.31.3"), vec![vec!["12", "31", "3"]]);
        assert_eq!(terms("a3f9c2"), ["a3f9c2"]);
        assert_eq!(
            file_names("see crates/pod_build.rs and build.rs"),
            ["pod_build.rs", "build.rs"]
        );
        assert_eq!(file_names("plain words"), Vec::<String>::new());
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(terms("東京都 に"), ["東京", "京都", "に"]);
        assert_eq!(word_groups("東京都"), vec![vec!["東京", "京都"]]);
        assert_eq!(terms("검색엔진"), ["검색", "색엔", "엔진"]);
    }

    #[test]
    fn punctuation_and_long_noise_are_not_terms() {
        assert_eq!(terms("-- !! ..."), Vec::<String>::new());
        let long = "a".repeat(100);
        assert_eq!(terms(&format!("keep {long} this")), ["keep", "this"]);
        assert!(word_groups(&long).is_empty());
    }

    /// A very long text's buffers are let go at the next short text,
    /// which still splits as it should.
    #[test]
    fn a_long_texts_buffers_are_not_kept() {
        let mut words = Words::default();
        let long = "wort ".repeat(4 * KEEP);
        let mut stream = words.token_stream(&long);
        let mut n = 0;
        while stream.advance() {
            n += 1;
        }
        assert_eq!(n, 4 * KEEP);
        assert!(words.pieces.capacity() >= 4 * KEEP);
        let mut stream = words.token_stream("kurz und gut");
        let mut short = Vec::new();
        while stream.advance() {
            short.push(stream.token().text.clone());
        }
        assert_eq!(short, ["kurz", "und", "gut"]);
        assert!(words.pieces.capacity() < KEEP);
        assert!(words.tokens.capacity() < KEEP);
    }

    proptest::proptest! {
        /// The ASCII path (bytes as characters) splits as the general one.
        #[test]
        fn ascii_text_splits_as_any_text(text in "[a-zA-Z0-9_./:\\\\ ,()-]{0,80}") {
            let mut fast = Vec::new();
            split(&Ascii(text.as_bytes()), &mut fast);
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            let mut wide = Vec::new();
            split(&Wide { chars: &chars, len: text.len() }, &mut wide);
            proptest::prop_assert_eq!(fast, wide);
        }
    }
}
