//! `sessionReference/search`: the full-text search of docs/search.md over
//! the request's view of the stores. The search itself is
//! [`crate::search`]; a malformed query is −32602 with its reason.

use super::blocking;
use crate::reference::candidates::check_limit;
use crate::search::{self, Followed, SearchOptions, SessionHit};
use crate::server::error::{self, Result};
use crate::server::lsp_ext::{self, CustomRequest};
use crate::server::snapshot::Snapshot;

/// Sessions listed when the request names no limit.
const DEFAULT_LIMIT: u64 = 10;

pub async fn search(
    snapshot: &Snapshot,
    params: <lsp_ext::Search as CustomRequest>::Params,
) -> Result<<lsp_ext::Search as CustomRequest>::Result> {
    let limit = check_limit(params.limit.unwrap_or(DEFAULT_LIMIT))
        .map_err(|e| error::invalid_params(e.message))?;
    let cwd = params
        .text_document
        .and_then(|d| snapshot.target_cwd(&d.uri));
    run(snapshot, &params.query, limit, cwd).await
}

/// The sessions matching `query`, `cwd`'s first (also what
/// `workspace/symbol` lists).
pub async fn run(
    snapshot: &Snapshot,
    query: &str,
    limit: usize,
    cwd: Option<String>,
) -> Result<Vec<SessionHit>> {
    let parsed = search::parse_query(query).map_err(|e| error::invalid_params(e.to_string()))?;
    let view = snapshot.sessions().await;
    let stores = snapshot.stores();
    let shared = snapshot.shared.clone();
    blocking("search", move |cancelled| {
        let reader = view
            .reader
            .clone()
            .ok_or_else(|| error::internal("search"))?;
        let exists = |id: &str| view.get(id).is_some();
        let options = SearchOptions {
            limit,
            workspace: cwd.as_deref(),
            now_ms: search::now_ms(),
            exists: Some(&exists),
        };
        let followed = Followed {
            specs: &stores,
            state: Some(view.generation),
            sessions: &|| view.all(),
            reader: reader.as_ref(),
        };
        shared
            .search
            .search(&followed, &parsed, options, cancelled, &mut |note| {
                tracing::warn!("{note}")
            })
            .map_err(|e| error::request_failed(&crate::reference::ReferenceError::read_failed(e)))
    })
    .await?
}
