//! The custom requests (docs/lsp-extensions.md): `prepare`, `candidates`
//! (and `pickCandidates`, the same with what a picker shows and inserts),
//! and `files` over the request's snapshot and the index. (`status` never
//! waits: the main loop answers it from the session.)

use crate::server::error::Result;
use lsp_types::{Position, Range, Url};
use ropey::Rope;

use super::blocking;
use super::completion;
use crate::proto::ext;
use crate::proto::{from_proto, position};
use crate::reference::candidates::{Candidate, Target};
use crate::reference::full_snapshot::SpillStore;
use crate::reference::prepare::{prepare_text, PrepareOptions};
use crate::server::lsp_ext::{self, Request};

type Params<R> = <R as Request>::Params;
type Answer<R> = Result<<R as Request>::Result>;
use crate::server::error;
use crate::server::request_view::RequestView;

/// `sessionReference/prepare`: the prepare result for the document.
pub async fn prepare(
    request: &RequestView,
    params: Params<lsp_ext::Prepare>,
) -> Answer<lsp_ext::Prepare> {
    let text = document_text(request, &params.text_document.uri).await?;
    let view = request.sessions().await;
    let settings = request.settings.clone();
    let target = params
        .target_session_id
        .or(settings.target_session_id.clone());
    let request = request.clone();
    let prepared = blocking("prepare", move |cancelled| {
        let options = PrepareOptions {
            target: target.as_deref(),
            max_references: settings.limits.max_references,
            max_reference_bytes: settings.limits.max_reference_bytes,
        };
        let source = request.source(&view);
        let spill = request.spill().map(|s| s as &dyn SpillStore);
        prepare_text(&text, options, &source, spill, cancelled)
    })
    .await?;
    let prepared = prepared.map_err(|e| error::request_failed(&e))?;
    Ok(match params.format {
        lsp_ext::PrepareFormat::Json => lsp_ext::PrepareResult::Prepared(prepared.into()),
        lsp_ext::PrepareFormat::Text => lsp_ext::PrepareResult::Text(lsp_ext::PreparedText {
            text: prepared.text_form(),
        }),
        lsp_ext::PrepareFormat::Markdown => {
            let wire: ext::Prepared = prepared.into();
            lsp_ext::PrepareResult::Markdown(lsp_ext::PreparedMarkdown {
                markdown: wire.summary_markdown(),
            })
        }
    })
}

/// `sessionReference/candidates`: ranked candidates for a query, the
/// contract's array as the core gives it.
pub async fn candidates(
    request: &RequestView,
    params: Params<lsp_ext::Candidates>,
) -> Answer<lsp_ext::Candidates> {
    let query = params.query.unwrap_or_default();
    Ok(ext::candidates(
        ranked_candidates(request, &params.text_document.uri, &query).await?,
    ))
}

/// `sessionReference/pickCandidates`: the same candidates, each with the
/// one-line mention a picker inserts, completion's detail, whether it is
/// over `maxReferences` (those last, as completion sorts them) and the
/// typed `@query` it replaces: what the editors show, decided here.
pub async fn pick_candidates(
    request: &RequestView,
    params: Params<lsp_ext::PickCandidates>,
) -> Answer<lsp_ext::PickCandidates> {
    let uri = &params.text_document.uri;
    // A picker may run on a prompt that is neither open nor saved (an
    // untitled one): then nothing is typed and nothing referenced yet.
    let text = document_text(request, uri).await.unwrap_or_default();
    let rope = Rope::from_str(&text);
    let typed = params
        .position
        .and_then(|p| typed_query(&rope, p, request.encoding));
    let query = params
        .query
        .or_else(|| typed.as_ref().map(|(_, q)| q.clone()))
        .unwrap_or_default();
    let found = ranked_candidates(request, uri, &query).await?;
    let own = request.settings.target_session_id.as_deref();
    let max = request.settings.limits.max_references;
    let referenced = completion::referenced_sessions(&text, own);
    let full = referenced.len() >= max;
    let now = completion::now_ms();
    let range = typed.map(|(r, _)| r);
    let mut picked: Vec<lsp_ext::PickerCandidate> = found
        .into_iter()
        .map(|c| {
            let over_limit = full && !referenced.contains(&c.session_id);
            let detail = completion::detail(&c, now);
            lsp_ext::PickerCandidate {
                insert_text: c.one_line_mention(),
                detail: if over_limit {
                    completion::over_limit_detail(max, &detail)
                } else {
                    detail
                },
                over_limit,
                range,
                candidate: c.into(),
            }
        })
        .collect();
    // Stable: the rank is kept within each group.
    picked.sort_by_key(|p| p.over_limit);
    Ok(picked)
}

/// The `@query` typed just before `position` (completion's rule) and its
/// range, which a picked mention replaces.
pub(super) fn typed_query(
    rope: &Rope,
    position: Position,
    encoding: position::Encoding,
) -> Option<(Range, String)> {
    let cursor = position::offset(rope, position, encoding);
    let (at, query) = completion::query_at(rope, cursor)?;
    Some((position::range(rope, at..cursor, encoding), query))
}

/// The core's candidates (reference.md §7) for the document's target.
async fn ranked_candidates(
    request: &RequestView,
    uri: &Url,
    query: &str,
) -> Result<Vec<Candidate>> {
    let view = request.sessions().await;
    let settings = &request.settings;
    let cwd = request.target_cwd(uri);
    let target = Target {
        session_id: settings.target_session_id.as_deref(),
        cwd: cwd.as_deref(),
    };
    let found = view
        .candidates(target, query, settings.limits.candidate_limit)
        .map_err(|e| error::request_failed(&e))?;
    Ok(found.items)
}

/// `sessionReference/files`: file candidates of the document's target cwd
/// (reference.md §7a), `candidateLimit` at most.
pub async fn files(
    request: &RequestView,
    params: Params<lsp_ext::Files>,
) -> Answer<lsp_ext::Files> {
    let cwd = request.target_cwd(&params.text_document.uri);
    let limit = request.settings.limits.candidate_limit as u64;
    let query = params.query.unwrap_or_default();
    let list = blocking("file candidates", move |_| {
        crate::files::candidates(cwd.as_deref().map(std::path::Path::new), &query, limit)
    })
    .await?
    .map_err(|e| error::request_failed(&e))?;
    Ok(ext::file_candidates(list.items))
}

/// The open document's text (as the request saw it), else the file's when
/// the URI is a readable `file:` URI.
pub(super) async fn document_text(request: &RequestView, uri: &Url) -> Result<String> {
    if let Some(doc) = request.document(uri) {
        return Ok(doc.rope.to_string());
    }
    let Some(path) = from_proto::file_path_buf(uri) else {
        return Err(error::invalid_params(format!(
            "{uri} is not open and not a file: URI"
        )));
    };
    // Regular files only, up to the document limit: `file:///dev/zero`
    // fails at once.
    let read = tokio::task::spawn_blocking(move || crate::config::document::read_file(&path)).await;
    match read {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(e)) => Err(error::invalid_params(format!(
            "{uri} is not open and cannot be read: {e}"
        ))),
        Err(_) => Err(error::internal("reading the document")),
    }
}
