//! The route table: every LSP request and custom request the server
//! serves maps to one handler in [`handlers`](super::handlers), run on the
//! request's view. (The main loop answers the lifecycle requests and
//! `sessionReference/status` itself.)
//!
//! A route is named by its request type alone: [`Router::on`] takes the
//! method, the params' type and the answer's type from one
//! [`lsp_types::request::Request`], so a handler paired with the wrong
//! route does not compile.

use std::future::Future;
use std::pin::Pin;

use lsp_types::request::{
    CodeActionRequest, Completion, DocumentLinkRequest, HoverRequest, Request,
    ResolveCompletionItem, WorkspaceSymbolRequest,
};
use serde_json::value::RawValue;
use serde_json::Value;

use super::error::{self, Result};
use super::handlers::{
    code_action, completion, custom, hover, links, publish, search, workspace_symbol,
};
use super::lsp_ext;
use super::request_view::RequestView;

/// A request's work, not started yet: the main loop runs it when a slot
/// is free. Its answer comes out as JSON text, serialized once on the
/// worker that made it (the writer writes it as it is).
pub type Job = Pin<Box<dyn Future<Output = Result<Box<RawValue>>> + Send>>;

/// The job for `method`, or its invalid-params error; `None` when no
/// handler serves `method`.
pub fn route(method: &str, params: Value, request: RequestView) -> Option<Result<Job>> {
    Router::new(method, params, request)
        .on::<Completion, _>(|r, p| async move { completion::completion(&r, p).await })
        .on::<ResolveCompletionItem, _>(|r, p| async move { completion::resolve(&r, p).await })
        .on::<HoverRequest, _>(|r, p| async move { hover::hover(&r, p).await })
        .on::<CodeActionRequest, _>(|r, p| async move { code_action::code_action(&r, p).await })
        .on::<DocumentLinkRequest, _>(|r, p| async move { links::document_link(&r, p).await })
        .on::<lsp_ext::Prepare, _>(|r, p| async move { custom::prepare(&r, p).await })
        .on::<lsp_ext::Candidates, _>(|r, p| async move { custom::candidates(&r, p).await })
        .on::<lsp_ext::PickCandidates, _>(
            |r, p| async move { custom::pick_candidates(&r, p).await },
        )
        .on::<lsp_ext::Files, _>(|r, p| async move { custom::files(&r, p).await })
        .on::<lsp_ext::Search, _>(|r, p| async move { search::search(&r, p).await })
        .on::<lsp_ext::Publish, _>(|r, p| async move { publish::publish(&r, p).await })
        .on::<WorkspaceSymbolRequest, _>(|r, p| async move {
            workspace_symbol::workspace_symbol(&r, p).await
        })
        .finish()
}

/// One request on its way through the table: the first route whose
/// method it names makes its job.
struct Router<'a> {
    method: &'a str,
    /// Until a route takes them.
    params: Option<(Value, RequestView)>,
    job: Option<Result<Job>>,
}

impl<'a> Router<'a> {
    fn new(method: &'a str, params: Value, request: RequestView) -> Self {
        Router {
            method,
            params: Some((params, request)),
            job: None,
        }
    }

    /// Serves `R` with `handler`. Reads the params now (so bad params are
    /// answered at once, holding no slot) and writes the handler's answer
    /// as JSON text.
    fn on<R, Fut>(mut self, handler: impl FnOnce(RequestView, R::Params) -> Fut) -> Self
    where
        R: Request,
        Fut: Future<Output = Result<R::Result>> + Send + 'static,
    {
        if self.method != R::METHOD {
            return self;
        }
        let Some((params, request)) = self.params.take() else {
            return self;
        };
        self.job = Some(match serde_json::from_value::<R::Params>(params) {
            Err(e) => Err(error::invalid_params(format!("Invalid params: {e}"))),
            Ok(params) => {
                let work = handler(request, params);
                Ok(Box::pin(async move {
                    let answer = work.await?;
                    serde_json::value::to_raw_value(&answer)
                        .map_err(|_| error::internal("writing the answer"))
                }) as Job)
            }
        });
        self
    }

    fn finish(self) -> Option<Result<Job>> {
        self.job
    }
}
