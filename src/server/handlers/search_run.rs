//! The search the faces of the language server share: a request's
//! (`sessionReference/search`, `workspace/symbol`) and completion's body
//! matches. On its own so that completion, which starts body matches, does
//! not depend on the search request's handler (and so on `custom`).

use std::sync::Arc;

use super::blocking;
use crate::live::View;
use crate::search::{self, Followed, ParsedQuery, SearchOptions, SessionHit};
use crate::server::error::{self, Result};
use crate::server::request_view::RequestView;
use crate::store::StoreSpec;

/// The sessions matching `query`, `cwd`'s first (also what
/// `workspace/symbol` lists); an error when search is off.
pub async fn run(
    request: &RequestView,
    query: &str,
    limit: usize,
    cwd: Option<String>,
) -> Result<Vec<SessionHit>> {
    if let Some(off) = request.search_off() {
        return Err(error::request_failed(
            &crate::reference::ReferenceError::invalid_config(format!("session-reference: {off}")),
        ));
    }
    let parsed = search::parse_query(query).map_err(|e| error::invalid_params(e.to_string()))?;
    let view = request.sessions().await;
    run_on(
        request.clone(),
        view,
        request.stores(),
        parsed,
        limit,
        cwd,
        Some(search::WAIT_FOR_BUILD),
    )
    .await
}

/// Searches the sessions of `view`, read from `stores`, off the async
/// workers (what completion's body matches run too, with no request and
/// no `wait`: they never wait for another process's build of the index).
pub async fn run_on(
    request: RequestView,
    view: Arc<View>,
    stores: Vec<StoreSpec>,
    parsed: ParsedQuery,
    limit: usize,
    cwd: Option<String>,
    wait: Option<std::time::Duration>,
) -> Result<Vec<SessionHit>> {
    let idle = request.search_handle();
    let found = blocking("search", move |cancelled| {
        let reader = view
            .reader
            .clone()
            .ok_or_else(|| error::internal("search"))?;
        let exists = |id: &str| view.get(id).is_some();
        let session = |id: &str| view.get(id);
        let options = SearchOptions {
            limit,
            workspace: cwd.as_deref(),
            now_ms: search::now_ms(),
            exists: Some(&exists),
            texts: Some(crate::search::Texts {
                session: &session,
                reader: reader.as_ref(),
            }),
        };
        let followed = Followed {
            specs: &stores,
            state: Some(view.generation),
            sessions: view.sessions(),
            reader: reader.as_ref(),
        };
        request
            .search_index()
            .search(&followed, &parsed, options, cancelled, wait, &mut |note| {
                tracing::warn!("{note}")
            })
            .map_err(|e| search_failed(&e))
    })
    .await?;
    // What the searches read of the index is let go once they stop.
    let search = idle.index().searched();
    tokio::spawn(async move {
        tokio::time::sleep(LET_GO_AFTER).await;
        drop(tokio::task::spawn_blocking(move || {
            idle.index().let_go_if_idle(search)
        }));
    });
    found
}

/// How long after the last search the index's pages are let go.
const LET_GO_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// A search that could not run (the index broken beyond repair, a full
/// disk): RequestFailed with the reason as it is, not as the failure to
/// read one session (`SESSION_REFERENCE_READ_FAILED` is still its code).
fn search_failed(e: &search::SearchError) -> lsp_server::ResponseError {
    use crate::reference::{ErrorCode, ReferenceError};
    error::request_failed(&ReferenceError::new(
        ErrorCode::ReadFailed,
        format!("session-reference: {e}"),
    ))
}
