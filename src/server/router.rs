//! The route table: every LSP request and custom request the server
//! serves maps to one handler in [`handlers`](super::handlers), run on the
//! request's snapshot. (The main loop answers the lifecycle requests and
//! `sessionReference/status` itself.)

use std::future::Future;
use std::pin::Pin;

use lsp_types::request::{
    CodeActionRequest, Completion, DocumentLinkRequest, HoverRequest, Request,
    ResolveCompletionItem, WorkspaceSymbolRequest,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::error::{self, Result};
use super::handlers::{
    code_action, completion, custom, hover, links, publish, search, workspace_symbol,
};
use super::lsp_ext::{self, CustomRequest};
use super::snapshot::Snapshot;

/// A request's work, not started yet: the main loop runs it when a slot
/// is free.
pub type Job = Pin<Box<dyn Future<Output = Result<Value>> + Send>>;

/// The job for `method`, or its invalid-params error; `None` when no
/// handler serves `method`.
pub fn route(method: &str, params: Value, snapshot: Snapshot) -> Option<Result<Job>> {
    Some(match method {
        Completion::METHOD => job(params, snapshot, |s, p| async move {
            completion::completion(&s, p).await
        }),
        ResolveCompletionItem::METHOD => job(params, snapshot, |s, p| async move {
            completion::resolve(&s, p).await
        }),
        HoverRequest::METHOD => job(
            params,
            snapshot,
            |s, p| async move { hover::hover(&s, p).await },
        ),
        CodeActionRequest::METHOD => job(params, snapshot, |s, p| async move {
            code_action::code_action(&s, p).await
        }),
        DocumentLinkRequest::METHOD => job(params, snapshot, |s, p| async move {
            links::document_link(&s, p).await
        }),
        lsp_ext::Prepare::METHOD => job(params, snapshot, |s, p| async move {
            custom::prepare(&s, p).await
        }),
        lsp_ext::Candidates::METHOD => job(params, snapshot, |s, p| async move {
            custom::candidates(&s, p).await
        }),
        lsp_ext::PickCandidates::METHOD => job(params, snapshot, |s, p| async move {
            custom::pick_candidates(&s, p).await
        }),
        lsp_ext::Files::METHOD => job(params, snapshot, |s, p| async move {
            custom::files(&s, p).await
        }),
        lsp_ext::Search::METHOD => job(params, snapshot, |s, p| async move {
            search::search(&s, p).await
        }),
        lsp_ext::Publish::METHOD => job(params, snapshot, |s, p| async move {
            publish::publish(&s, p).await
        }),
        WorkspaceSymbolRequest::METHOD => job(params, snapshot, |s, p| async move {
            workspace_symbol::workspace_symbol(&s, p).await
        }),
        _ => return None,
    })
}

/// Reads the params now (so bad params are answered at once, holding no
/// slot) and wraps the handler's answer as JSON.
fn job<P, R, F, Fut>(params: Value, snapshot: Snapshot, handler: F) -> Result<Job>
where
    P: DeserializeOwned,
    R: Serialize,
    F: FnOnce(Snapshot, P) -> Fut,
    Fut: Future<Output = Result<R>> + Send + 'static,
{
    let params: P = serde_json::from_value(params)
        .map_err(|e| error::invalid_params(format!("Invalid params: {e}")))?;
    let work = handler(snapshot, params);
    Ok(Box::pin(async move {
        let answer = work.await?;
        serde_json::to_value(answer).map_err(|_| error::internal("writing the answer"))
    }))
}
