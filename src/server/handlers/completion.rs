//! Completion of `@` mentions from the in-memory index (no log is read
//! per keystroke), and the preview added by `completionItem/resolve`.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::server::error::Result;
use lsp_types::*;
use ropey::Rope;
use serde::Deserialize;
use serde_json::json;

use super::body_matches::{self, BodyMatches, Placement};
use super::place::describe;
use super::{blocking, files, markdown, retained_source};
use crate::live::FIRST_INDEX_GRACE;
use crate::proto::position;
use crate::reference::candidates::{Candidate, Target};
use crate::reference::mention::{self, is_ecma_whitespace};
use crate::reference::one_line::one_line;
use crate::server::error;
use crate::server::request_view::RequestView;
use crate::server::settings::CompletionFiltering;

/// Characters that may come right before the `@` of a mention (besides
/// white space and the start of the line).
const OPENERS: [char; 5] = ['(', '[', '{', '"', '\''];
/// Characters a query cannot hold (besides white space).
const STOPS: [char; 5] = ['@', '[', ']', '(', ')'];

/// The `@` of the mention being typed and the query after it: server.md
/// "Completion". `None` when completion does not apply.
pub fn query_at(rope: &Rope, offset: usize) -> Option<(usize, String)> {
    let offset = offset.min(rope.len_bytes());
    let line_start = rope.line_to_byte(rope.byte_to_line(offset));
    let before: String = rope.byte_slice(line_start..offset).into();
    let at = before.rfind('@')?;
    let query = before.get(at + 1..)?;
    if query
        .chars()
        .any(|c| is_ecma_whitespace(c) || STOPS.contains(&c))
    {
        return None;
    }
    let opens = match before.get(..at)?.chars().next_back() {
        None => true,
        Some(c) => is_ecma_whitespace(c) || OPENERS.contains(&c),
    };
    opens.then(|| (line_start + at, query.to_string()))
}

pub async fn completion(
    request: &RequestView,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>> {
    let started = std::time::Instant::now();
    let uri = params.text_document_position.text_document.uri;
    let Some(doc) = request.document(&uri) else {
        return Ok(None);
    };
    let encoding = request.encoding;
    let cursor = position::offset(&doc.rope, params.text_document_position.position, encoding);
    // Sessions where a session mention is being typed (not for a query that
    // asks for files only), then files where a file mention is.
    let session_query = query_at(&doc.rope, cursor).filter(|(_, query)| !files::files_only(query));
    let file_query = files::query_at(&doc.rope, cursor);
    if session_query.is_none() && file_query.is_none() {
        return Ok(None);
    }
    let settings = &request.settings;
    let server_filters = settings.completion_filtering == CompletionFiltering::Server;
    let cwd = request.target_cwd(&uri);
    let mut items = Vec::new();
    let mut is_incomplete = false;
    if let Some((at, query)) = session_query {
        // During a slow first index, what is indexed so far (incomplete).
        // The main loop started the index before taking this request.
        let (view, ready) = request.sessions_within(FIRST_INDEX_GRACE).await;
        is_incomplete |= !ready;
        let target = Target {
            session_id: settings.target_session_id.as_deref(),
            cwd: cwd.as_deref(),
        };
        let found = view
            .candidates(target, &query, settings.limits.candidate_limit)
            .map_err(|e| error::request_failed(&e))?;
        let range = position::range(&doc.rope, at..cursor, encoding);
        let now = now_ms();
        let width = found.items.len().to_string().len();
        // At maxReferences, only a session already referenced can be added.
        let max = settings.limits.max_references;
        let referenced = referenced_sessions(&doc.rope.to_string(), target.session_id);
        let full = referenced.len() >= max;
        let mark = |it: &mut CompletionItem, id: &str| {
            if full && !referenced.iter().any(|r| r == id) {
                over_limit(it, max);
            }
        };
        items.extend(found.items.iter().enumerate().map(|(rank, c)| {
            let mut it = item(c, rank, width, range, now);
            mark(&mut it, &c.session_id);
            it
        }));
        is_incomplete |= found.incomplete;
        // Then sessions whose messages match (docs/search.md), never
        // waited for: incomplete while their search runs.
        match body_matches::lookup(request, view.generation, &query, cwd.as_deref()) {
            BodyMatches::None => {}
            BodyMatches::Pending => is_incomplete = true,
            BodyMatches::Found(hits) => {
                let listed = found.items.iter().map(|c| c.session_id.as_str()).collect();
                let at = Placement {
                    query: &query,
                    range,
                    cwd: cwd.as_deref(),
                    now_ms: now,
                };
                items.extend(body_matches::items(&hits, &listed, &at, &mark));
            }
        }
        if server_filters {
            keep_as_filtered(&mut items, &format!("@{query}"));
        }
    }
    if let Some((at, query)) = file_query {
        let limit = settings.limits.candidate_limit as u64;
        let typed = format!("@{query}");
        let list = blocking("file completion", move |_| {
            crate::files::candidates(cwd.as_deref().map(std::path::Path::new), &query, limit)
        })
        .await?
        .map_err(|e| error::request_failed(&e))?;
        let range = position::range(&doc.rope, at..cursor, encoding);
        let mut found = files::completion_items(&list, range);
        if server_filters {
            keep_as_filtered(&mut found, &typed);
        }
        items.extend(found);
        is_incomplete |= list.incomplete;
    }
    // A prefix-filtering client asks again as the query grows only when
    // the list is incomplete.
    is_incomplete |= server_filters;
    tracing::trace!(
        "completion: {} items in {:?}",
        items.len(),
        started.elapsed()
    );
    Ok(Some(CompletionResponse::List(CompletionList {
        is_incomplete,
        items,
    })))
}

/// `completionFiltering: "server"`: what was typed from the `@` to the
/// cursor as the filter text of every item, so a client keeping the items
/// whose `filterText` starts with what was typed keeps them all, in the
/// server's order.
fn keep_as_filtered(items: &mut [CompletionItem], typed: &str) {
    for item in items {
        item.filter_text = Some(typed.to_string());
    }
}

/// What `resolve` needs, carried in the item.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ItemData {
    session_id: String,
    label: String,
    #[serde(default)]
    same_workspace: bool,
}

fn item(c: &Candidate, rank: usize, width: usize, range: Range, now: u64) -> CompletionItem {
    // What the item shows and inserts is under the one-line rule: a title
    // with a line break or a bidi override must not become a two-line
    // mention, or a label that reads as another session's.
    let shown = c.shown_label();
    // Clients filter again on the text from the `@` to the cursor: keep
    // every field the query may have matched, after the `@`.
    let mut filter = format!("@{shown}");
    for part in [
        Some(c.label.as_str()),
        Some(c.session_id.as_str()),
        c.cwd.as_deref(),
    ]
    .into_iter()
    .flatten()
    .map(one_line)
    {
        if part != shown {
            filter.push(' ');
            filter.push_str(&part);
        }
    }
    CompletionItem {
        label: shown.clone(),
        kind: Some(CompletionItemKind::REFERENCE),
        detail: Some(detail(c, now)),
        // The rank, zero-padded so it sorts as text.
        sort_text: Some(format!("{rank:0width$}")),
        filter_text: Some(filter),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
            range,
            c.one_line_mention(),
        ))),
        data: Some(
            json!({ "sessionId": c.session_id, "label": shown, "sameWorkspace": c.same_workspace }),
        ),
        ..CompletionItem::default()
    }
}

/// The distinct sessions `text` references with valid mentions, leaving
/// out its own session (server.md: the ranking of references).
pub(super) fn referenced_sessions(text: &str, own: Option<&str>) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for id in mention::scan(text)
        .into_iter()
        .filter_map(|m| m.decode().ok())
    {
        if Some(id.as_str()) != own && !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// Marks an item whose session would be one more than `max` references:
/// struck through, said in its detail, and sorted after the others.
fn over_limit(item: &mut CompletionItem, max: usize) {
    item.tags = Some(vec![CompletionItemTag::DEPRECATED]);
    item.detail = Some(over_limit_detail(
        max,
        item.detail.as_deref().unwrap_or_default(),
    ));
    item.sort_text = item.sort_text.as_ref().map(|s| format!("~{s}"));
}

/// The detail of a session over the limit (completion's and the picker's).
pub(super) fn over_limit_detail(max: usize, detail: &str) -> String {
    format!("would exceed maxReferences ({max}) · {detail}")
}

/// `agent · cwd · workspace · age`: the agent first, so a list of
/// sessions from several agents reads by who ran them.
pub(super) fn detail(c: &Candidate, now: u64) -> String {
    let described = describe(c.cwd.as_deref(), c.same_workspace, c.created_at, now);
    match crate::formats::display_name(c.format) {
        Some(agent) => format!("{agent} · {described}"),
        None => described,
    }
}

pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Adds a Markdown preview of the projected request. An item that is not
/// ours, or a session that cannot be read, comes back unchanged (or with
/// the reason as its documentation).
pub async fn resolve(request: &RequestView, mut item: CompletionItem) -> Result<CompletionItem> {
    let Some(data) = item
        .data
        .clone()
        .and_then(|d| serde_json::from_value::<ItemData>(d).ok())
    else {
        return Ok(item);
    };
    let view = request.sessions().await;
    let Some(session) = view.get(&data.session_id) else {
        return Ok(item);
    };
    let retained = retained_source(
        request,
        view.clone(),
        &session,
        &data.label,
        "the completion preview",
    )
    .await?;
    let value = match retained {
        Ok((source, _)) => markdown::preview(&session, &source, data.same_workspace),
        Err(e) => format!(
            "**{}**\n\n{}",
            markdown::escape(&data.label),
            markdown::escape(&e.message)
        ),
    };
    item.documentation = Some(Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    }));
    Ok(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> Option<(usize, String)> {
        let cursor = text.find('|').unwrap();
        let text = text.replace('|', "");
        query_at(&Rope::from_str(&text), cursor)
    }

    #[test]
    fn queries() {
        assert_eq!(query("@|"), Some((0, String::new())));
        assert_eq!(query("see @che|"), Some((4, "che".into())));
        assert_eq!(query("x\r\n(@tax|"), Some((4, "tax".into())));
        assert_eq!(query("\"@a|"), Some((1, "a".into())));
        assert_eq!(query("mail@host|"), None);
        assert_eq!(query("@a b|"), None);
        assert_eq!(query("@[a|"), None);
        assert_eq!(query("@a\n|"), None);
        assert_eq!(query("no at|"), None);
    }
}
