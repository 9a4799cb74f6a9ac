//! `sessionReference/search`: the full-text search of docs/search.md over
//! the request's view of the stores. The search itself is
//! [`crate::search`]; a malformed query is −32602 with its reason, and
//! search turned off is RequestFailed (`SESSION_REFERENCE_INVALID_CONFIG`)
//! saying so.

use std::sync::Arc;

use super::blocking;
use crate::reference::candidates::check_limit;
use crate::search::{self, ParsedQuery, SearchOptions, SessionHit};
use crate::server::error::{self, Result};
use crate::server::index::View;
use crate::server::lsp_ext::{self, CustomRequest};
use crate::server::shared::Shared;
use crate::server::snapshot::Snapshot;
use crate::store::StoreSpec;

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
/// `workspace/symbol` lists); an error when search is off.
pub async fn run(
    snapshot: &Snapshot,
    query: &str,
    limit: usize,
    cwd: Option<String>,
) -> Result<Vec<SessionHit>> {
    if let Some(off) = snapshot.search_off() {
        return Err(error::request_failed(
            &crate::reference::ReferenceError::invalid_config(format!("session-reference: {off}")),
        ));
    }
    let parsed = search::parse_query(query).map_err(|e| error::invalid_params(e.to_string()))?;
    let view = snapshot.sessions().await;
    run_on(
        snapshot.shared.clone(),
        view,
        snapshot.stores(),
        parsed,
        limit,
        cwd,
    )
    .await
}

/// Searches the sessions of `view`, read from `stores`, off the async
/// workers (what completion's body matches run too, with no request).
pub async fn run_on(
    shared: Arc<Shared>,
    view: Arc<View>,
    stores: Vec<StoreSpec>,
    parsed: ParsedQuery,
    limit: usize,
    cwd: Option<String>,
) -> Result<Vec<SessionHit>> {
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
        shared
            .search
            .search(
                &stores,
                &view.all(),
                reader.as_ref(),
                &parsed,
                options,
                cancelled,
                &mut |note| tracing::warn!("{note}"),
            )
            .map_err(|e| error::request_failed(&crate::reference::ReferenceError::read_failed(e)))
    })
    .await?
}
