//! The session-level match: a session matches when its messages (and
//! titles) together hold every word, read from its session document's
//! `words` and `stems` (one document per session, so a frequent word
//! costs one posting per session, not per message). A word matches as
//! written (weighing [`EXACT_BOOST`]), by another form of it (its stems),
//! while typed as a prefix (the last word), and — only when that leaves no
//! session at all — within [`typo_distance`] edits.
//!
//! Without positions, a word's parts (`snake_case`, `build.rs`) and a
//! quoted phrase only need their terms somewhere in the session here; the
//! ranking (mod.rs) puts sessions with every word in one message first,
//! and a quoted phrase is checked to sit in one message.

use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, RegexQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::Term;

use super::forms::Forms;
use super::query::{filters, regex_escape, words_query, ParsedQuery, NAME_BOOST};
use super::schema::Fields;

/// How much more a word as written weighs than its other forms.
pub const EXACT_BOOST: f32 = 2.0;
/// The score of a word matched only as a prefix (a constant: the term
/// dictionary's expansion has no BM25 of its own).
const PREFIX_SCORE: f32 = 0.5;
/// The score of a word matched only within an edit or two: below any
/// exact or stemmed match of it.
const TYPO_SCORE: f32 = 0.2;

/// How many edits a word may be off when nothing matches it as written:
/// none under five letters (too many words are one edit apart), one up to
/// seven, two from eight. Letters only: a number or a code mistyped is
/// another number.
pub fn typo_distance(term: &str) -> Option<u8> {
    let letters = term.chars().count();
    if letters < 5 || !term.chars().all(char::is_alphabetic) {
        None
    } else if letters >= 8 {
        Some(2)
    } else {
        Some(1)
    }
}

/// Whether `parsed` has a word that could match with a typo.
pub fn may_have_typos(parsed: &ParsedQuery) -> bool {
    single_words(parsed).any(|t| typo_distance(t).is_some())
}

/// The words of one term each that are not quoted phrases.
fn single_words(parsed: &ParsedQuery) -> impl Iterator<Item = &String> {
    let required = parsed
        .required
        .iter()
        .enumerate()
        .filter(|(i, _)| !parsed.quoted.contains(i))
        .map(|(_, g)| g);
    required
        .chain(parsed.prefix.iter())
        .filter_map(|g| match g.as_slice() {
            [one] => Some(one),
            _ => None,
        })
}

/// The query over session documents: every word (see the module's
/// comment), the filters; `typos` adds each word's near misses.
pub fn session_query(
    parsed: &ParsedQuery,
    fields: &Fields,
    forms: &mut Forms,
    typos: bool,
) -> Box<dyn Query> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for (i, group) in parsed.required.iter().enumerate() {
        let loose = !parsed.quoted.contains(&i);
        clauses.push((
            Occur::Must,
            group_query(group, fields, forms, loose, false, typos),
        ));
    }
    if let Some(group) = &parsed.prefix {
        clauses.push((
            Occur::Must,
            group_query(group, fields, forms, true, true, typos),
        ));
    }
    for name in &parsed.names {
        let term = term_query(fields.words, name);
        clauses.push((Occur::Should, Box::new(BoostQuery::new(term, NAME_BOOST))));
    }
    clauses.extend(filters(parsed, fields));
    Box::new(BooleanQuery::new(clauses))
}

/// One word (or the parts of one, or a quoted phrase's words, each
/// required): `loose` lets a one-term word match by its forms and typos,
/// `prefix` its last term as a prefix.
fn group_query(
    group: &[String],
    fields: &Fields,
    forms: &mut Forms,
    loose: bool,
    prefix: bool,
    typos: bool,
) -> Box<dyn Query> {
    let Some((last, rest)) = group.split_last() else {
        return Box::new(BooleanQuery::new(Vec::new()));
    };
    let mut parts: Vec<(Occur, Box<dyn Query>)> = rest
        .iter()
        .map(|t| (Occur::Must, term_query(fields.words, t)))
        .collect();
    let mut either: Vec<(Occur, Box<dyn Query>)> = vec![(
        Occur::Should,
        Box::new(BoostQuery::new(term_query(fields.words, last), EXACT_BOOST)),
    )];
    let one = rest.is_empty() && loose;
    if one {
        // `stems` holds only the forms that differ from their word; a
        // form that is a word of the session is in `words`.
        for form in forms.of(last) {
            either.push((Occur::Should, term_query(fields.stems, form)));
            if **form != **last {
                either.push((Occur::Should, term_query(fields.words, form)));
            }
        }
    }
    if prefix {
        let pattern = format!("{}.*", regex_escape(last));
        if let Ok(query) = RegexQuery::from_pattern(&pattern, fields.words) {
            let scored = ConstScoreQuery::new(Box::new(query), PREFIX_SCORE);
            either.push((Occur::Should, Box::new(scored)));
        }
    }
    if one && typos {
        if let Some(distance) = typo_distance(last) {
            let near =
                FuzzyTermQuery::new(Term::from_field_text(fields.words, last), distance, true);
            let scored = ConstScoreQuery::new(Box::new(near), TYPO_SCORE);
            either.push((Occur::Should, Box::new(scored)));
        }
    }
    parts.push((Occur::Must, Box::new(BooleanQuery::new(either))));
    Box::new(BooleanQuery::new(parts))
}

fn term_query(field: Field, term: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, term),
        IndexRecordOption::WithFreqs,
    ))
}

/// One query per word, over messages, scoring 1 where it matches: as
/// written or in parts (a phrase), by a stem that is a word itself
/// (`trailers` → `trailer`), as a prefix (the last word), and with `typos`
/// within its edits. Summed, they count the words a message holds (the
/// snippets of a session-level match, and how close it comes to one
/// message holding them all).
pub fn message_words(
    parsed: &ParsedQuery,
    fields: &Fields,
    forms: &mut Forms,
    typos: bool,
) -> Vec<Box<dyn Query>> {
    let text_term = |t: &str| Term::from_field_text(fields.text, t);
    let last = parsed.prefix.iter().map(|g| (g, true));
    let groups = parsed.required.iter().map(|g| (g, false)).chain(last);
    let mut out: Vec<Box<dyn Query>> = Vec::new();
    for (i, (group, prefix)) in groups.enumerate() {
        let loose = !parsed.quoted.contains(&i);
        let mut either: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Should, words_query(group, &text_term))];
        if let ([one], true) = (group.as_slice(), loose) {
            for form in forms.of(one) {
                if **form != **one {
                    either.push((Occur::Should, term_query(fields.text, form)));
                }
            }
            if prefix {
                let pattern = format!("{}.*", regex_escape(one));
                if let Ok(query) = RegexQuery::from_pattern(&pattern, fields.text) {
                    either.push((Occur::Should, Box::new(query)));
                }
            }
            if let (true, Some(distance)) = (typos, typo_distance(one)) {
                let near = FuzzyTermQuery::new(text_term(one), distance, true);
                either.push((Occur::Should, Box::new(near)));
            }
        }
        let any = BooleanQuery::new(either);
        out.push(Box::new(ConstScoreQuery::new(Box::new(any), 1.0)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_only_for_words_of_five_letters_or_more() {
        assert_eq!(typo_distance("tax"), None);
        assert_eq!(typo_distance("pars"), None);
        assert_eq!(typo_distance("propsed"), Some(1));
        assert_eq!(typo_distance("indexxing"), Some(2));
        assert_eq!(typo_distance("12345"), None);
        assert_eq!(typo_distance("e0382x"), None);
    }
}
