//! `workspace/symbol`: sessions whose titles or messages match the query,
//! one symbol per session — name the title, container `agent · workspace ·
//! date`, location the session's log — so the editors' symbol pickers find
//! sessions by content. An empty query lists nothing (every editor sends
//! one first).

use lsp_types::{
    Location, SymbolInformation, SymbolKind, Url, WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use crate::reference::one_line::one_line;
use crate::reference::time;
use crate::search::SessionHit;
use crate::server::error::Result;
use crate::server::snapshot::Snapshot;

/// Symbols listed at most.
const LIMIT: usize = 50;

pub async fn workspace_symbol(
    snapshot: &Snapshot,
    params: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>> {
    if params.query.trim().is_empty() {
        return Ok(Some(WorkspaceSymbolResponse::Flat(Vec::new())));
    }
    let hits = super::search::run(snapshot, &params.query, LIMIT, None).await?;
    let view = snapshot.sessions().await;
    let symbols = hits
        .iter()
        .filter_map(|hit| {
            let session = view.get(&hit.session_id)?;
            let target = view.reader.as_ref()?.link_target(&session)?;
            Some(symbol(hit, Url::parse(&target).ok()?))
        })
        .collect();
    Ok(Some(WorkspaceSymbolResponse::Flat(symbols)))
}

#[allow(deprecated)] // `deprecated` is a field every SymbolInformation has.
fn symbol(hit: &SessionHit, uri: Url) -> SymbolInformation {
    SymbolInformation {
        name: one_line(hit.label()),
        kind: SymbolKind::FILE,
        tags: None,
        deprecated: None,
        location: Location {
            uri,
            range: Default::default(),
        },
        container_name: Some(format!(
            "{} · {} · {}",
            hit.agent,
            one_line(hit.cwd.as_deref().unwrap_or("-")),
            time::date(hit.created_at)
        )),
    }
}
