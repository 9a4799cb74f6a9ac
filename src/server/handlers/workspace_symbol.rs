//! `workspace/symbol`: sessions whose titles or messages match the query,
//! one symbol per session — name the title, container `agent · workspace ·
//! date`, location the session's log — so the editors' symbol pickers find
//! sessions by content. An empty query lists nothing (every editor sends
//! one first). With search off, or its index unusable now (a full disk),
//! the sessions whose id, cwd or title match (the contract's candidates)
//! are listed instead: the picker still finds sessions by name.

use lsp_types::{
    Location, SymbolInformation, SymbolKind, Url, WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use crate::reference::candidates::Target;
use crate::reference::one_line::one_line;
use crate::reference::time;
use crate::server::error::{self, Result};
use crate::server::request_view::RequestView;

/// Symbols listed at most.
const LIMIT: usize = 50;

pub async fn workspace_symbol(
    request: &RequestView,
    params: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>> {
    if params.query.trim().is_empty() {
        return Ok(Some(WorkspaceSymbolResponse::Flat(Vec::new())));
    }
    let view = request.sessions().await;
    let Some(reader) = view.reader.as_ref() else {
        return Ok(Some(WorkspaceSymbolResponse::Flat(Vec::new())));
    };
    let place = |id: &str| {
        let session = view.get(id)?;
        let uri = Url::parse(&reader.link_target(&session)?).ok()?;
        Some((session.locator.format, uri))
    };
    let searched = match request.search_off() {
        Some(_) => None,
        None => match super::search_run::run(request, &params.query, LIMIT, None).await {
            Ok(hits) => Some(hits),
            Err(e) if error::is_invalid_params(&e) => return Err(e),
            // The index cannot be used now (a full disk): the picker
            // still finds sessions by name, as with search off.
            Err(e) => {
                tracing::debug!("workspace/symbol without search: {}", e.message);
                None
            }
        },
    };
    let symbols = match searched {
        Some(hits) => hits
            .iter()
            .filter_map(|hit| {
                let (_, uri) = place(&hit.session_id)?;
                let name = one_line(hit.label());
                Some(symbol(
                    name,
                    &hit.agent,
                    hit.cwd.as_deref(),
                    hit.created_at,
                    uri,
                ))
            })
            .collect(),
        None => {
            let target = Target {
                session_id: request.settings.target_session_id.as_deref(),
                cwd: None,
            };
            let found = view
                .candidates(target, &params.query, LIMIT)
                .map_err(|e| error::request_failed(&e))?;
            found
                .items
                .iter()
                .filter_map(|c| {
                    let (agent, uri) = place(&c.session_id)?;
                    Some(symbol(
                        c.shown_label(),
                        agent,
                        c.cwd.as_deref(),
                        c.created_at,
                        uri,
                    ))
                })
                .collect()
        }
    };
    Ok(Some(WorkspaceSymbolResponse::Flat(symbols)))
}

#[allow(deprecated)] // `deprecated` is a field every SymbolInformation has.
fn symbol(
    name: String,
    agent: &str,
    cwd: Option<&str>,
    created_at: u64,
    uri: Url,
) -> SymbolInformation {
    SymbolInformation {
        name,
        kind: SymbolKind::FILE,
        tags: None,
        deprecated: None,
        location: Location {
            uri,
            range: Default::default(),
        },
        container_name: Some(format!(
            "{agent} · {} · {}",
            one_line(cwd.unwrap_or("-")),
            time::date(created_at)
        )),
    }
}
