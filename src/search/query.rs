//! The query language: words (every one must match: in one message or
//! title for [`build`], across the session for `matching.rs`), `"quoted
//! phrases"` (always in one message), a prefix match on the last word while it
//! is being typed (no space after it), and the filters `agent:NAME`,
//! `cwd:PATH` (that folder or one below it), `after:DATE` (created on that
//! day or later) and `before:DATE` (created before that day), a DATE being
//! `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (UTC). A malformed query is a
//! [`QueryError`] naming what is wrong.

use std::fmt;
use std::ops::Bound;

use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, PhrasePrefixQuery, PhraseQuery,
    Query, RangeQuery, RegexQuery, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::Term;

use super::schema::{cwd_term, Fields};
use super::tokenizer::{file_names, word_groups};
use crate::reference::echo;
use crate::reference::time::parse_date;

/// A query that cannot be run, in words for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed search query: {}", self.0)
    }
}

impl std::error::Error for QueryError {}

/// A query, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    /// Each word's terms (one term, or the parts of an identifier that
    /// must come in a row) and each quoted phrase's.
    pub required: Vec<Vec<String>>,
    /// The last word, still being typed: its last term matches as a prefix.
    pub prefix: Option<Vec<String>>,
    /// Which of `required` are quoted phrases (they must match within one
    /// message; the other words may come from several).
    pub quoted: Vec<usize>,
    /// The words' file names whole (`build.rs`): an exact name ranks
    /// above a longer one ending in it.
    pub names: Vec<String>,
    pub agent: Option<String>,
    /// A folder, without its trailing `/`.
    pub cwd: Option<String>,
    /// Created at or after (epoch ms).
    pub after: Option<u64>,
    /// Created before (epoch ms).
    pub before: Option<u64>,
}

impl ParsedQuery {
    /// Every term a match may show, for snippets (`prefix`'s last one as a
    /// prefix).
    pub fn terms(&self) -> (Vec<String>, Option<String>) {
        let mut exact: Vec<String> = self.required.iter().flatten().cloned().collect();
        let mut prefix = None;
        if let Some(words) = &self.prefix {
            if let Some((last, rest)) = words.split_last() {
                exact.extend(rest.iter().cloned());
                exact.push(last.clone());
                prefix = Some(last.clone());
            }
        }
        (exact, prefix)
    }

    /// Whether anything is searched for besides the filters.
    pub fn has_words(&self) -> bool {
        !self.required.is_empty() || self.prefix.is_some()
    }
}

/// The filters, by their names.
const FILTERS: [&str; 4] = ["agent", "cwd", "after", "before"];

/// The longest query read, in bytes: what a person types or pastes is far
/// shorter, and tokenizing more only to refuse it would cost its size.
pub const MAX_QUERY_BYTES: usize = 16 << 10;

/// The most terms a query may expand to (words, identifier parts and
/// phrase words together): each is a posting list read and, in a phrase,
/// a position list held, so an identifier of 100,000 parts (`a_a_a_…`)
/// once cost hundreds of megabytes. A query over it is refused.
pub const MAX_TERMS: usize = 64;

/// Parses `text`; `agents` are the names `agent:` accepts.
pub fn parse(text: &str, agents: &[&str]) -> Result<ParsedQuery, QueryError> {
    if text.len() > MAX_QUERY_BYTES {
        return Err(QueryError(format!(
            "the query {} is too long: at most {} KiB are searched",
            echo::quoted(text),
            MAX_QUERY_BYTES >> 10
        )));
    }
    let query = parse_unbounded(text, agents)?;
    let terms = query.required.iter().map(Vec::len).sum::<usize>()
        + query.prefix.as_ref().map_or(0, Vec::len);
    if terms > MAX_TERMS {
        return Err(QueryError(format!(
            "the query has {terms} words and word parts; at most {MAX_TERMS} are searched"
        )));
    }
    Ok(query)
}

/// [`parse`] before the query's size is checked.
fn parse_unbounded(text: &str, agents: &[&str]) -> Result<ParsedQuery, QueryError> {
    let mut query = ParsedQuery::default();
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return Err(QueryError("the query is empty".into()));
    }
    // Whether the last thing read was a plain word with nothing after it.
    let mut open_word: Option<Vec<Vec<String>>> = None;
    while !rest.is_empty() {
        if let Some(groups) = open_word.take() {
            query.required.extend(groups);
        }
        if let Some(quoted) = rest.strip_prefix('"') {
            let (phrase, after) = quoted_value(quoted)?;
            let terms: Vec<String> = word_groups(phrase).into_iter().flatten().collect();
            if terms.is_empty() {
                return Err(QueryError(format!(
                    "the phrase {} has no words to search for",
                    echo::quoted(phrase)
                )));
            }
            query.quoted.push(query.required.len());
            query.required.push(terms);
            rest = after.trim_start();
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (token, after) = rest.split_at(end);
        if let Some((name, value)) = token.split_once(':').filter(|(n, _)| FILTERS.contains(n)) {
            let (value, after) = if let Some(quoted) = rest[name.len() + 1..].strip_prefix('"') {
                quoted_value(quoted)?
            } else {
                (value, after)
            };
            set_filter(&mut query, name, value, agents)?;
            rest = after.trim_start();
            continue;
        }
        let groups = word_groups(token);
        query.names.extend(file_names(token));
        rest = after.trim_start();
        if after.is_empty() {
            open_word = Some(groups);
        } else {
            query.required.extend(groups);
        }
    }
    if let Some(mut groups) = open_word {
        query.prefix = groups.pop();
        query.required.extend(groups);
    }
    if let (Some(after), Some(before)) = (query.after, query.before) {
        if after >= before {
            return Err(QueryError(
                "after: must be earlier than before: (nothing can match)".into(),
            ));
        }
    }
    if !query.has_words()
        && query.agent.is_none()
        && query.cwd.is_none()
        && query.after.is_none()
        && query.before.is_none()
    {
        return Err(QueryError(format!(
            "the query {} has no words to search for",
            echo::quoted(text)
        )));
    }
    Ok(query)
}

/// The text up to the closing `"` and what follows it.
fn quoted_value(text: &str) -> Result<(&str, &str), QueryError> {
    match text.find('"') {
        Some(end) => Ok((&text[..end], &text[end + 1..])),
        None => Err(QueryError("a quote (\") is not closed".into())),
    }
}

fn set_filter(
    query: &mut ParsedQuery,
    name: &str,
    value: &str,
    agents: &[&str],
) -> Result<(), QueryError> {
    if value.is_empty() {
        return Err(QueryError(format!("{name}: needs a value")));
    }
    let twice = || QueryError(format!("{name}: is given twice"));
    match name {
        "agent" => {
            if !agents.contains(&value) {
                return Err(QueryError(format!(
                    "unknown agent:{} (known: {})",
                    echo::short(value),
                    agents.join(", ")
                )));
            }
            if query.agent.replace(value.to_string()).is_some() {
                return Err(twice());
            }
        }
        "cwd" => {
            if query.cwd.replace(cwd_term(value).to_string()).is_some() {
                return Err(twice());
            }
        }
        _ => {
            let Some(ms) = parse_date(value) else {
                return Err(QueryError(format!(
                    "{name}:{} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)",
                    echo::short(value)
                )));
            };
            let slot = if name == "after" {
                &mut query.after
            } else {
                &mut query.before
            };
            if slot.replace(ms).is_some() {
                return Err(twice());
            }
        }
    }
    Ok(())
}

/// The tantivy query of `parsed` over messages: every word and phrase
/// must match one document (a message, or a session's titles), scored by
/// BM25, words close together and file names matched whole adding to it;
/// the filters restrict without scoring. (Sessions that hold the words
/// only across messages come after, from `matching.rs`.)
pub fn build(parsed: &ParsedQuery, fields: &Fields) -> Box<dyn Query> {
    build_near(parsed, fields, &|_| true)
}

/// [`build`], with words close together ranking first when `near` says
/// their terms are rare enough (the phrase's positions are read for
/// every message holding them all: for frequent words alone, a cost for
/// nothing).
pub fn build_near(
    parsed: &ParsedQuery,
    fields: &Fields,
    near_ok: &dyn Fn(&[Term]) -> bool,
) -> Box<dyn Query> {
    let text_term = |t: &str| Term::from_field_text(fields.text, t);
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for group in &parsed.required {
        clauses.push((Occur::Must, words_query(group, &text_term)));
    }
    if let Some(group) = &parsed.prefix {
        let prefix: Box<dyn Query> = match group.as_slice() {
            // One word: every term it begins (tantivy's one-term phrase
            // prefix falls back to a range that missed on a large index).
            [one] => {
                match RegexQuery::from_pattern(&format!("{}.*", regex_escape(one)), fields.text) {
                    Ok(query) => Box::new(query),
                    Err(_) => words_query(group, &text_term),
                }
            }
            _ => Box::new(PhrasePrefixQuery::new(
                group.iter().map(|t| text_term(t)).collect(),
            )),
        };
        // The word may already be complete: its exact match scores by BM25
        // (a prefix match alone has a constant score).
        let either = BooleanQuery::new(vec![
            (Occur::Should, words_query(group, &text_term)),
            (Occur::Should, prefix),
        ]);
        clauses.push((Occur::Must, Box::new(either)));
    }
    // Words close together rank first: the one-term words in the order
    // asked, within a few words of each other.
    let near: Vec<Term> = parsed
        .required
        .iter()
        .enumerate()
        .filter(|(i, _)| !parsed.quoted.contains(i))
        .map(|(_, g)| g)
        .chain(parsed.prefix.iter())
        .filter_map(|g| match g.as_slice() {
            [one] => Some(text_term(one)),
            _ => None,
        })
        .collect();
    if near.len() >= 2 && near_ok(&near) {
        let mut phrase = PhraseQuery::new(near);
        phrase.set_slop(NEAR_SLOP);
        clauses.push((
            Occur::Should,
            Box::new(BoostQuery::new(Box::new(phrase), NEAR_BOOST)),
        ));
    }
    for name in &parsed.names {
        let term = TermQuery::new(text_term(name), IndexRecordOption::WithFreqs);
        clauses.push((
            Occur::Should,
            Box::new(BoostQuery::new(Box::new(term), NAME_BOOST)),
        ));
    }
    if !parsed.has_words() {
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    clauses.extend(filters(parsed, fields));
    Box::new(BooleanQuery::new(clauses))
}

/// How much a file name matched whole adds, against its parts' phrase:
/// enough that the exact name outranks a longer one ending in it however
/// often that one is mentioned (BM25 saturates).
pub(super) const NAME_BOOST: f32 = 5.0;
/// Words at most this many positions apart count as close together.
const NEAR_SLOP: u32 = 4;
/// What words close together add.
const NEAR_BOOST: f32 = 1.0;

/// The filters of `parsed`, as clauses that restrict without scoring (on
/// message and session documents alike: both carry agent, cwd and time).
pub(super) fn filters(parsed: &ParsedQuery, fields: &Fields) -> Vec<(Occur, Box<dyn Query>)> {
    let mut clauses = Vec::new();
    let raw = |field, value: &str| -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(field, value),
            IndexRecordOption::Basic,
        ))
    };
    if let Some(agent) = &parsed.agent {
        clauses.push(filter(raw(fields.agent, agent)));
    }
    if let Some(cwd) = &parsed.cwd {
        clauses.push(filter(raw(fields.cwd_path, cwd)));
    }
    if parsed.after.is_some() || parsed.before.is_some() {
        let bound = |ms: Option<u64>, make: fn(Term) -> Bound<Term>| {
            ms.map_or(Bound::Unbounded, |ms| {
                make(Term::from_field_u64(fields.time, ms))
            })
        };
        let range = RangeQuery::new(
            bound(parsed.after, Bound::Included),
            bound(parsed.before, Bound::Excluded),
        );
        clauses.push(filter(Box::new(range)));
    }
    clauses
}

/// `text` with every character that is not a letter or a digit escaped,
/// for a regular expression that matches it literally.
pub(super) fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if !c.is_alphanumeric() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A clause that must match and adds nothing to the score.
fn filter(query: Box<dyn Query>) -> (Occur, Box<dyn Query>) {
    (Occur::Must, Box::new(ConstScoreQuery::new(query, 0.0)))
}

/// One term, or the terms of a word or phrase in a row.
pub(super) fn words_query(group: &[String], text_term: &dyn Fn(&str) -> Term) -> Box<dyn Query> {
    match group {
        [one] => Box::new(TermQuery::new(text_term(one), IndexRecordOption::WithFreqs)),
        _ => Box::new(PhraseQuery::new(
            group.iter().map(|t| text_term(t)).collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENTS: [&str; 2] = ["claude-code", "codex"];

    fn ok(text: &str) -> ParsedQuery {
        parse(text, &AGENTS).unwrap()
    }

    fn error(text: &str) -> String {
        parse(text, &AGENTS).unwrap_err().to_string()
    }

    #[test]
    fn words_phrases_and_the_last_word_as_a_prefix() {
        let q = ok("tax \"Rounding error\" ModuleSpec che");
        assert_eq!(
            q.required,
            vec![
                vec!["tax".to_string()],
                vec!["rounding".into(), "error".into()],
                vec!["module".into(), "spec".into()]
            ]
        );
        assert_eq!(q.prefix, Some(vec!["che".to_string()]));
        // A space after the last word: it is complete.
        let q = ok("tax che ");
        assert_eq!(q.prefix, None);
        assert_eq!(q.required.len(), 2);
        // A phrase or a filter last: no prefix.
        assert_eq!(ok("\"tax rate\"").prefix, None);
        assert_eq!(ok("tax agent:codex").prefix, None);
    }

    #[test]
    fn filters_are_read() {
        let q = ok("agent:codex cwd:\"/home/ana/my shop/\" after:2025-11 before:2026 tax");
        assert_eq!(q.agent.as_deref(), Some("codex"));
        assert_eq!(q.cwd.as_deref(), Some("/home/ana/my shop"));
        assert_eq!(q.after, parse_date("2025-11-01"));
        assert_eq!(q.before, parse_date("2026-01-01"));
        assert!(q.has_words());
        // Filters alone list what they keep.
        assert!(!ok("agent:claude-code").has_words());
        // A word with a colon that is no filter is a word.
        assert_eq!(
            ok("error:E0382 x ").required,
            vec![
                vec!["error".to_string(), "e".into(), "0382".into()],
                vec!["x".into()]
            ]
        );
    }

    #[test]
    fn malformed_queries_say_what_is_wrong() {
        assert_eq!(error(""), "malformed search query: the query is empty");
        assert!(error("  ").contains("empty"));
        assert!(error("tax \"rounding").contains("not closed"));
        assert!(error("agent:gpt").contains("unknown agent:gpt (known: claude-code, codex)"));
        assert!(error("after:yesterday").contains("is not a date"));
        assert!(error("before:2025-02-30").contains("is not a date"));
        assert!(error("after:2026 before:2025").contains("earlier"));
        assert!(error("cwd: tax").contains("cwd: needs a value"));
        assert!(error("agent:codex agent:codex").contains("twice"));
        assert!(error("?! --").contains("no words"));
        assert!(error("\"!!\"").contains("no words"));
    }

    /// Issue 27 item 4: an identifier of 100,000 parts once expanded to a
    /// phrase of 100,000 terms (hundreds of megabytes); a query is bounded
    /// in bytes and in terms, and says so.
    #[test]
    fn a_query_is_bounded_in_bytes_and_in_terms() {
        let parts = |n: usize, sep: &str| vec!["a"; n].join(sep);
        let at_most = parts(MAX_TERMS, "_");
        assert_eq!(ok(&at_most).prefix.map(|p| p.len()), Some(MAX_TERMS));
        for sep in ["_", "/", " "] {
            let over = parts(MAX_TERMS + 1, sep);
            assert!(error(&over).contains("at most 64 are searched"), "{sep}");
        }
        let huge = parts(100_000, "_");
        let said = error(&huge);
        assert!(said.contains("at most 16 KiB"), "{said}");
        assert!(said.contains("(cut from 199999 bytes)"), "{said}");
        assert!(said.len() < 500);
        // Quoted phrases count too.
        let phrase = format!("\"{}\" x", parts(MAX_TERMS, " "));
        assert!(error(&phrase).contains("65 words"));
    }
}
