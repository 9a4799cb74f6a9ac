//! Completion's body matches (docs/search.md "Language server"): after
//! the contract's candidates for an `@query` of [`MIN_QUERY_CHARS`] or
//! more, at most [`MAX_ITEMS`] sessions whose messages match it and that
//! the candidates did not list, each marked as such (`labelDetails`
//! "in messages", `data.match` `"body"`) with its best snippet as the
//! detail. The contract's items are untouched: these only come after.
//!
//! Completion never waits for a search: the answer is one already
//! finished for this query ([`BodySearches`]), else a search is started
//! here, in the background, and the caller marks its list incomplete.

use std::collections::HashSet;
use std::sync::Arc;

use lsp_types::*;
use serde_json::json;

use super::place::describe;
use crate::reference::one_line::one_line;
use crate::search::{self, SessionHit};
use crate::server::body_searches::Key;
use crate::server::request_view::RequestView;

/// Shorter queries match too much to say anything.
pub const MIN_QUERY_CHARS: usize = 3;
/// Body matches listed at most.
pub const MAX_ITEMS: usize = 5;
/// Sessions searched for: enough that [`MAX_ITEMS`] remain once the
/// sessions the candidates listed by title are left out.
const SEARCH_LIMIT: usize = 25;

/// What completion can add for a query.
pub enum BodyMatches {
    /// Nothing to add: the query is short, or search is off.
    None,
    /// A search is running: the list is incomplete.
    Pending,
    /// The last answer for this query.
    Found(Arc<Vec<SessionHit>>),
}

/// The body matches for `query` typed in a document of workspace `cwd`,
/// as far as they are known now for the sessions of `generation` (the
/// request's view); starts the search when none is known.
pub fn lookup(
    request: &RequestView,
    generation: u64,
    query: &str,
    cwd: Option<&str>,
) -> BodyMatches {
    if query.chars().count() < MIN_QUERY_CHARS || request.search_off().is_some() {
        return BodyMatches::None;
    }
    let key = Key {
        query: query.to_string(),
        cwd: cwd.map(str::to_string),
        stores: request.stores(),
    };
    let found = request.body_searches().lookup(&key, generation);
    if let Some(key) = found.start {
        tokio::spawn(run(request.renewed(), key));
    }
    match found.hits {
        Some(hits) => BodyMatches::Found(hits),
        None => BodyMatches::Pending,
    }
}

/// Runs the search for `first`, then each one asked for meanwhile.
/// Each search takes the sessions as they are when it starts.
async fn run(request: RequestView, first: Key) {
    let mut next = Some(first);
    while let Some(key) = next {
        let step = request.renewed();
        let view = step.sessions().await;
        let version = view.generation;
        // A query that is no search (a quote not closed, a filter alone)
        // simply has no body matches: completion shows no error.
        let hits = match search::parse_query(&key.query) {
            Ok(parsed) => super::search_run::run_on(
                step.clone(),
                view,
                key.stores.clone(),
                parsed,
                SEARCH_LIMIT,
                key.cwd.clone(),
                None,
            )
            .await
            .unwrap_or_else(|e| {
                tracing::debug!("completion's search for {:?}: {}", key.query, e.message);
                Vec::new()
            }),
            Err(_) => Vec::new(),
        };
        next = request.body_searches().finish(key, version, hits);
    }
}

/// Where the items go and what marks them.
pub struct Placement<'a> {
    /// The query typed after the `@`.
    pub query: &'a str,
    /// From the `@` to the cursor.
    pub range: Range,
    /// The workspace of the document.
    pub cwd: Option<&'a str>,
    pub now_ms: u64,
}

/// The items for `hits`, leaving out the sessions in `listed` (the
/// candidates' items); `mark` is applied to each (maxReferences).
pub fn items(
    hits: &[SessionHit],
    listed: &HashSet<&str>,
    at: &Placement<'_>,
    mark: &dyn Fn(&mut CompletionItem, &str),
) -> Vec<CompletionItem> {
    hits.iter()
        .filter(|hit| !listed.contains(hit.session_id.as_str()))
        .take(MAX_ITEMS)
        .enumerate()
        .map(|(rank, hit)| {
            let mut it = item(hit, at);
            mark(&mut it, &hit.session_id);
            // After the candidates (`0…`, and `~0…` past maxReferences)
            // and before the files (`~~0…`), marked or not.
            let over = it.tags.is_some();
            it.sort_text = Some(format!("~|{}{rank}", if over { "~" } else { "" }));
            it
        })
        .collect()
}

fn item(hit: &SessionHit, at: &Placement<'_>) -> CompletionItem {
    let shown = one_line(hit.label());
    let same_workspace = at.cwd.is_some() && hit.cwd.as_deref() == at.cwd;
    // The message that matched, rather than the titles (which the
    // candidates match already).
    let snippet = hit
        .snippets
        .iter()
        .find(|s| s.role != "title")
        .or(hit.snippets.first())
        .map(|s| format!("“{}” · ", one_line(&s.text)))
        .unwrap_or_default();
    let agent = crate::formats::display_name(&hit.agent).unwrap_or(&hit.agent);
    let place = describe(
        hit.cwd.as_deref(),
        same_workspace,
        hit.created_at,
        at.now_ms,
    );
    CompletionItem {
        label: shown.clone(),
        label_details: Some(CompletionItemLabelDetails {
            detail: None,
            description: Some("in messages".to_string()),
        }),
        kind: Some(CompletionItemKind::REFERENCE),
        detail: Some(format!("{snippet}{agent} · {place}")),
        // Clients filter again on the text from the `@`: it matched the
        // query, though the label does not.
        filter_text: Some(format!("@{} {shown}", at.query)),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
            at.range,
            hit.one_line_mention(),
        ))),
        data: Some(json!({
            "sessionId": hit.session_id,
            "label": shown,
            "sameWorkspace": same_workspace,
            "match": "body",
        })),
        ..CompletionItem::default()
    }
}
