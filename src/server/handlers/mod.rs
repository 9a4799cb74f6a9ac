//! One file per LSP feature. Handlers take the LSP request, call the core
//! on plain text and byte offsets, and convert at the edge.

pub mod code_action;
pub mod completion;
pub mod custom;
pub mod diagnostics;
pub mod files;
pub mod hover;
pub mod links;
mod markdown;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tower_lsp::jsonrpc::Result;

use super::backend::Backend;
use super::cache::CachedSource;
use super::error;
use crate::model::Session;
use crate::reference::budget::Budget;
use crate::reference::prepare::{retain_snapshot, settle_budget, unknown_session, RetainedSource};
use crate::reference::ReferenceError;

/// Sets the flag when dropped: tower-lsp cancels a request by dropping its
/// future, and this is how the blocking work behind it hears of it.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Runs `work` on the blocking pool with a cancel flag that turns true when
/// the awaiting request is dropped.
/// Reads `session` through the snapshot cache and fits it into the budget,
/// off the async workers: what hover and the completion preview show.
pub async fn retained_source(
    backend: &Backend,
    session: &Session,
    label: &str,
    what: &str,
) -> Result<std::result::Result<(RetainedSource, Budget), ReferenceError>> {
    let settings = backend.settings();
    let backend = backend.clone();
    let (session, label) = (session.clone(), label.to_string());
    let view = backend.index.view();
    blocking(what, move |cancelled| {
        let source = CachedSource {
            view: &view,
            cache: &backend.cache,
        };
        // The same budget `prepare` would settle, from the index.
        let budget = settle_budget(
            settings.limits.max_reference_bytes,
            settings.limits.max_references,
            settings.target_session_id.as_deref(),
            &source,
            cancelled,
        )?;
        let reader = view
            .reader
            .as_deref()
            .ok_or_else(|| unknown_session(session.id()))?;
        let snapshot =
            backend
                .cache
                .read(reader, &session, &label, Some(budget.bytes), cancelled)?;
        retain_snapshot(snapshot, &label, budget.bytes).map(|s| (s, budget))
    })
    .await
}

pub async fn blocking<T, F>(what: &str, work: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&(dyn Fn() -> bool + Sync)) -> T + Send + 'static,
{
    let flag = Arc::new(AtomicBool::new(false));
    let _cancel_on_drop = CancelOnDrop(flag.clone());
    let task = tokio::task::spawn_blocking(move || work(&|| flag.load(Ordering::SeqCst)));
    task.await.map_err(|_| error::internal(what))
}
