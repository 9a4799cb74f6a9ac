//! The custom requests (docs/lsp-extensions.md): `prepare`, `candidates`
//! (and `pickCandidates`, the same with the mention a picker inserts),
//! `files` and `status` over the document's current text and the index.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::Url;

use super::blocking;
use crate::model::StoreStatus;
use crate::proto::ext;
use crate::proto::from_proto;
use crate::reference::candidates::{Candidate, Target};
use crate::reference::full_snapshot::SpillStore;
use crate::reference::prepare::{prepare_text, PrepareOptions};
use crate::server::lsp_ext::{self, CustomRequest};

type Params<R> = <R as CustomRequest>::Params;
type Answer<R> = Result<<R as CustomRequest>::Result>;
use crate::server::backend::Backend;
use crate::server::cache::CachedSource;
use crate::server::error;

impl Backend {
    /// `sessionReference/prepare`: the prepare result for the document.
    pub async fn prepare(&self, params: Params<lsp_ext::Prepare>) -> Answer<lsp_ext::Prepare> {
        let text = self.document_text(&params.text_document.uri).await?;
        let view = self.sessions().await;
        let settings = self.settings();
        let target = params
            .target_session_id
            .or(settings.target_session_id.clone());
        let spill = self.spill(&settings);
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
        &self,
        params: Params<lsp_ext::Candidates>,
    ) -> Answer<lsp_ext::Candidates> {
        Ok(ext::candidates(self.ranked_candidates(params).await?))
    }

    /// `sessionReference/pickCandidates`: the same candidates, each with
    /// the one-line mention a picker inserts.
    pub async fn pick_candidates(
        &self,
        params: Params<lsp_ext::PickCandidates>,
    ) -> Answer<lsp_ext::PickCandidates> {
        let found = self.ranked_candidates(params).await?;
        Ok(found.into_iter().map(Into::into).collect())
    }

    /// The core's candidates (reference.md §7) for the document's target.
    async fn ranked_candidates(&self, params: lsp_ext::CandidatesParams) -> Result<Vec<Candidate>> {
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
        Ok(found.items)
    }

    /// `sessionReference/files`: file candidates of the document's target
    /// cwd (reference.md §7a), `candidateLimit` at most.
    pub async fn files(&self, params: Params<lsp_ext::Files>) -> Answer<lsp_ext::Files> {
        let cwd = self.target_cwd(&params.text_document.uri);
        let limit = self.settings().limits.candidate_limit as u64;
        let query = params.query.unwrap_or_default();
        let list = blocking("file candidates", move |_| {
            crate::files::candidates(cwd.as_deref().map(std::path::Path::new), &query, limit)
        })
        .await?
        .map_err(|e| error::request_failed(&e))?;
        Ok(ext::file_candidates(list.items))
    }

    /// `sessionReference/status`: the store, its session count, and whether
    /// it is being indexed.
    /// (Served by the transport once initialized; this route answers before.)
    pub async fn status(&self, _params: Params<lsp_ext::Status>) -> Answer<lsp_ext::Status> {
        Ok(self.status_now())
    }

    /// The status, at once: it never waits (for the index either).
    pub fn status_now(&self) -> lsp_ext::StatusResult {
        let view = self.index.view();
        // Before indexing starts, the stores it will index.
        let roots = if self.index.is_started() {
            self.index.roots()
        } else {
            self.configured_roots()
        };
        let mut stores = view.stores.clone();
        if stores.is_empty() {
            // Not indexed yet: the configured roots, nothing counted.
            stores = roots
                .iter()
                .cloned()
                .map(|path| StoreStatus {
                    path,
                    format: String::new(),
                    sessions: 0,
                    skipped_lines: 0,
                    errors: Vec::new(),
                })
                .collect();
        }
        let indexing = self.index.is_indexing() || !self.index.is_started();
        let mut status: lsp_ext::StatusResult =
            crate::model::Status::new(stores, view.len(), indexing, &view.notes).into();
        // While a changed store list is indexed, the counts are the last
        // index's but the list named is the new one.
        if let Some(first) = roots.first() {
            status.store = first.clone();
        }
        status
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
        let read =
            tokio::task::spawn_blocking(move || crate::config::document::read_file(&path)).await;
        match read {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => Err(error::invalid_params(format!(
                "{uri} is not open and cannot be read: {e}"
            ))),
            Err(_) => Err(error::internal("reading the document")),
        }
    }
}
