//! The sessions that match only when their messages are taken together
//! (or a word by another form of it, or with a typo): after the sessions
//! with every word in one message, which rank first (mod.rs). Their
//! snippets come from the messages that hold most of the words.

use std::collections::{HashMap, HashSet};

use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermSetQuery};
use tantivy::{DocAddress, Searcher, Term};

use super::columns::{Columns, Place};
use super::error::SearchError;
use super::forms::Forms;
use super::matching::{may_have_typos, message_words, session_query};
use super::query::{words_query, ParsedQuery};
use super::schema::Fields;
use super::{SearchOptions, SNIPPETS};

/// A session found across its messages: id, score, the messages for its
/// snippets.
pub type Across = (String, f32, Vec<Place>);

/// At most `options.limit` sessions matching `parsed` across their
/// messages and not in `seen`, best first, with the documents of their
/// snippets. Typos are tried only when nothing matches without them.
pub fn sessions(
    searcher: &Searcher,
    fields: &Fields,
    parsed: &ParsedQuery,
    seen: &HashSet<String>,
    wanted: usize,
    options: &SearchOptions<'_>,
) -> Result<Vec<Across>, SearchError> {
    let mut forms = Forms::new();
    let mut typos = false;
    let mut top = run(
        searcher,
        &*session_query(parsed, fields, &mut forms, false),
        wanted,
    )?;
    if top.is_empty() && seen.is_empty() && may_have_typos(parsed) {
        typos = true;
        top = run(
            searcher,
            &*session_query(parsed, fields, &mut forms, true),
            wanted,
        )?;
    }
    let mut ids = Columns::new(searcher, fields);
    let mut found: Vec<(String, f32)> = Vec::new();
    for (score, address) in top {
        let Some(id) = ids.session(address) else {
            continue;
        };
        if seen.contains(&id) || options.exists.is_some_and(|exists| !exists(&id)) {
            continue;
        }
        found.push((id, score));
    }
    // A quoted phrase must sit in one message (or the titles).
    for &at in &parsed.quoted {
        let (Some(phrase), false) = (parsed.required.get(at), found.is_empty()) else {
            continue;
        };
        let keep = holding(searcher, fields, &found, phrase, &mut ids)?;
        found.retain(|(id, _)| keep.contains(id));
    }
    found.truncate(options.limit);
    let shown = message_words(parsed, fields, &mut forms, typos);
    let mut best = best_messages(searcher, fields, &found, &shown, &mut ids)?;
    let mut out = Vec::with_capacity(found.len());
    for (id, score) in found {
        // Each word the best message holds adds [`ONE_MESSAGE`]: words in
        // one message rank first here too.
        let (words, addresses) = best.remove(&id).unwrap_or_default();
        let places = addresses.into_iter().map(|a| ids.place(a)).collect();
        out.push((id, score + ONE_MESSAGE * words, places));
    }
    Ok(out)
}

fn run(
    searcher: &Searcher,
    query: &dyn Query,
    wanted: usize,
) -> Result<Vec<(f32, DocAddress)>, SearchError> {
    Ok(searcher.search(query, &TopDocs::with_limit(wanted).order_by_score())?)
}

/// Which of the sessions `found` hold `phrase` in one document.
fn holding(
    searcher: &Searcher,
    fields: &Fields,
    found: &[(String, f32)],
    phrase: &[String],
    ids: &mut Columns<'_>,
) -> Result<HashSet<String>, SearchError> {
    let sessions = found
        .iter()
        .map(|(id, _)| Term::from_field_text(fields.session, id));
    let text_term = |t: &str| Term::from_field_text(fields.text, t);
    let query = BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(TermSetQuery::new(sessions)) as Box<dyn Query>,
        ),
        (Occur::Must, words_query(phrase, &text_term)),
    ]);
    let docs = searcher.search(&query, &DocSetCollector)?;
    Ok(docs
        .into_iter()
        .filter_map(|address| ids.session(address))
        .collect())
}

/// What each word in a session's best message adds to its score.
const ONE_MESSAGE: f32 = 2.0;

/// Messages read for the snippets of the sessions found across their
/// messages, at most (the best ones: a bound on a session of thousands).
const MESSAGES_READ: usize = 1_000;

/// For each session of `found`: how many of the query's words its best
/// message holds, and its best messages (for snippets). One search over
/// all of them, so a prefix's or a typo's expansion is made once.
fn best_messages(
    searcher: &Searcher,
    fields: &Fields,
    found: &[(String, f32)],
    shown: &[Box<dyn Query>],
    ids: &mut Columns<'_>,
) -> Result<HashMap<String, (f32, Vec<DocAddress>)>, SearchError> {
    let mut out: HashMap<String, (f32, Vec<DocAddress>)> = HashMap::new();
    if shown.is_empty() || found.is_empty() {
        return Ok(out);
    }
    let sessions = found
        .iter()
        .map(|(id, _)| Term::from_field_text(fields.session, id));
    let any = shown
        .iter()
        .map(|q| (Occur::Should, q.box_clone()))
        .collect();
    let query = BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(TermSetQuery::new(sessions)) as Box<dyn Query>,
        ),
        (Occur::Must, Box::new(BooleanQuery::new(any))),
    ]);
    for (score, address) in run(searcher, &query, MESSAGES_READ)? {
        let Some(id) = ids.session(address) else {
            continue;
        };
        let (best, docs) = out.entry(id).or_default();
        *best = best.max(score);
        if docs.len() < SNIPPETS {
            docs.push(address);
        }
    }
    Ok(out)
}
