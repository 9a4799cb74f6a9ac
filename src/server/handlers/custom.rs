//! The custom requests (docs/lsp-extensions.md): `prepare`, `candidates`
//! and `status` over the document's current text and the index.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{TextDocumentIdentifier, Url};

use super::blocking;
use crate::reference::candidates::Target;
use crate::reference::prepare::{prepare_text, PrepareOptions};
use crate::server::backend::Backend;
use crate::server::cache::CachedSource;
use crate::server::{error, from_proto};

pub const PREPARE: &str = "sessionReference/prepare";
pub const CANDIDATES: &str = "sessionReference/candidates";
pub const STATUS: &str = "sessionReference/status";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepareParams {
    pub text_document: TextDocumentIdentifier,
    /// Overrides the `targetSessionId` setting for this call.
    #[serde(default)]
    pub target_session_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidatesParams {
    pub text_document: TextDocumentIdentifier,
    #[serde(default)]
    pub query: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Status {
    pub store: String,
    pub sessions: usize,
    pub indexing: bool,
}

impl Backend {
    /// `sessionReference/prepare`: the prepare result for the document.
    pub async fn prepare(&self, params: PrepareParams) -> Result<Value> {
        let text = self.document_text(&params.text_document.uri).await?;
        let view = self.sessions().await;
        let settings = self.settings();
        let target = params.target_session_id.or(settings.target_session_id);
        let backend = self.clone();
        let prepared = blocking("prepare", move |cancelled| {
            let options = PrepareOptions {
                target: target.as_deref(),
                max_references: settings.limits.max_references,
                max_reference_bytes: settings.limits.max_reference_bytes,
            };
            let source = CachedSource {
                view: &view,
                cache: &backend.cache,
            };
            prepare_text(&text, options, &source, cancelled)
        })
        .await?;
        let prepared = prepared.map_err(|e| error::request_failed(&e))?;
        serde_json::to_value(prepared)
            .map_err(|_| error::internal("serialising the prepare result"))
    }

    /// `sessionReference/candidates`: ranked candidates for a query.
    pub async fn candidates(&self, params: CandidatesParams) -> Result<Value> {
        let view = self.sessions().await;
        let settings = self.settings();
        let cwd = self.target_cwd(&params.text_document.uri);
        let target = Target {
            session_id: settings.target_session_id.as_deref(),
            cwd: cwd.as_deref(),
        };
        let query = params.query.unwrap_or_default();
        let found = view
            .candidates(target, &query, settings.limits.candidate_limit)
            .map_err(|e| error::request_failed(&e))?;
        serde_json::to_value(found.items).map_err(|_| error::internal("serialising candidates"))
    }

    /// `sessionReference/status`: the store, its session count, and whether
    /// it is being indexed.
    /// (Served by the transport once initialized; this route answers before.)
    pub async fn status(&self, _params: Value) -> Result<Status> {
        Ok(self.status_now())
    }

    /// The status, at once (it never waits for the index).
    pub fn status_now(&self) -> Status {
        // Before indexing starts, the store it will index.
        let store = if self.index.is_started() {
            self.index.root().to_path_buf()
        } else {
            self.store_path()
        };
        Status {
            store: store.display().to_string(),
            sessions: self.index.view().sessions.len(),
            indexing: self.index.is_indexing() || !self.index.is_started(),
        }
    }

    /// The open document's text, else the file's when the URI is a readable
    /// `file:` URI.
    async fn document_text(&self, uri: &Url) -> Result<String> {
        if let Some(doc) = self.documents.snapshot(uri) {
            return Ok(doc.rope.to_string());
        }
        let Some(path) = from_proto::file_path_buf(uri) else {
            return Err(error::invalid_params(format!(
                "{uri} is not open and not a file: URI"
            )));
        };
        // Regular files only, up to the document limit: `file:///dev/zero`
        // fails at once.
        let read = tokio::task::spawn_blocking(move || crate::document::read_file(&path)).await;
        match read {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => Err(error::invalid_params(format!(
                "{uri} is not open and cannot be read: {e}"
            ))),
            Err(_) => Err(error::internal("reading the document")),
        }
    }
}
