//! The custom requests (docs/lsp-extensions.md): `prepare`, `candidates`
//! (and `pickCandidates`, the same with the mention a picker inserts),
//! and `files` over the request's snapshot and the index. (`status` never
//! waits: the main loop answers it from the session.)

use crate::server::error::Result;
use lsp_types::Url;

use super::blocking;
use crate::proto::ext;
use crate::proto::from_proto;
use crate::reference::candidates::{Candidate, Target};
use crate::reference::full_snapshot::SpillStore;
use crate::reference::prepare::{prepare_text, PrepareOptions};
use crate::server::lsp_ext::{self, CustomRequest};

type Params<R> = <R as CustomRequest>::Params;
type Answer<R> = Result<<R as CustomRequest>::Result>;
use crate::live::CachedSource;
use crate::server::error;
use crate::server::snapshot::Snapshot;

/// `sessionReference/prepare`: the prepare result for the document.
pub async fn prepare(
    snapshot: &Snapshot,
    params: Params<lsp_ext::Prepare>,
) -> Answer<lsp_ext::Prepare> {
    let text = document_text(snapshot, &params.text_document.uri).await?;
    let view = snapshot.sessions().await;
    let settings = snapshot.settings.clone();
    let target = params
        .target_session_id
        .or(settings.target_session_id.clone());
    let spill = snapshot.spill();
    let shared = snapshot.shared.clone();
    let prepared = blocking("prepare", move |cancelled| {
        let options = PrepareOptions {
            target: target.as_deref(),
            max_references: settings.limits.max_references,
            max_reference_bytes: settings.limits.max_reference_bytes,
        };
        let source = CachedSource {
            view: &view,
            cache: &shared.cache,
        };
        let spill = spill.as_ref().map(|s| s as &dyn SpillStore);
        prepare_text(&text, options, &source, spill, cancelled)
    })
    .await?;
    let prepared = prepared.map_err(|e| error::request_failed(&e))?;
    Ok(match params.format {
        lsp_ext::PrepareFormat::Json => lsp_ext::PrepareResult::Prepared(prepared.into()),
        lsp_ext::PrepareFormat::Text => lsp_ext::PrepareResult::Text(lsp_ext::PreparedText {
            text: prepared.text_form(),
        }),
    })
}

/// `sessionReference/candidates`: ranked candidates for a query, the
/// contract's array as the core gives it.
pub async fn candidates(
    snapshot: &Snapshot,
    params: Params<lsp_ext::Candidates>,
) -> Answer<lsp_ext::Candidates> {
    Ok(ext::candidates(ranked_candidates(snapshot, params).await?))
}

/// `sessionReference/pickCandidates`: the same candidates, each with the
/// one-line mention a picker inserts.
pub async fn pick_candidates(
    snapshot: &Snapshot,
    params: Params<lsp_ext::PickCandidates>,
) -> Answer<lsp_ext::PickCandidates> {
    let found = ranked_candidates(snapshot, params).await?;
    Ok(found.into_iter().map(Into::into).collect())
}

/// The core's candidates (reference.md §7) for the document's target.
async fn ranked_candidates(
    snapshot: &Snapshot,
    params: lsp_ext::CandidatesParams,
) -> Result<Vec<Candidate>> {
    let view = snapshot.sessions().await;
    let settings = &snapshot.settings;
    let cwd = snapshot.target_cwd(&params.text_document.uri);
    let target = Target {
        session_id: settings.target_session_id.as_deref(),
        cwd: cwd.as_deref(),
    };
    let query = params.query.unwrap_or_default();
    let found = view
        .candidates(target, &query, settings.limits.candidate_limit)
        .map_err(|e| error::request_failed(&e))?;
    Ok(found.items)
}

/// `sessionReference/files`: file candidates of the document's target cwd
/// (reference.md §7a), `candidateLimit` at most.
pub async fn files(snapshot: &Snapshot, params: Params<lsp_ext::Files>) -> Answer<lsp_ext::Files> {
    let cwd = snapshot.target_cwd(&params.text_document.uri);
    let limit = snapshot.settings.limits.candidate_limit as u64;
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
async fn document_text(snapshot: &Snapshot, uri: &Url) -> Result<String> {
    if let Some(doc) = snapshot.document(uri) {
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
