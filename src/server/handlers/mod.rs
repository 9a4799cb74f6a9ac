//! One file per LSP feature. Handlers take the LSP request, call the core
//! on plain text and byte offsets, and convert at the edge.

pub mod code_action;
pub mod completion;
pub mod custom;
pub mod diagnostics;
pub mod hover;
pub mod links;
mod markdown;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tower_lsp::jsonrpc::Result;

use super::backend::Backend;
use super::error;
use crate::model::Session;
use crate::reference::prepare::{retain_snapshot, unknown_session, RetainedSource};
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
) -> Result<std::result::Result<RetainedSource, ReferenceError>> {
    let budget = backend.settings().limits.max_reference_bytes;
    let backend = backend.clone();
    let (session, label) = (session.clone(), label.to_string());
    let view = backend.index.view();
    blocking(what, move |cancelled| {
        let reader = view
            .reader
            .as_deref()
            .ok_or_else(|| unknown_session(session.id()))?;
        let snapshot = backend
            .cache
            .read(reader, &session, &label, Some(budget), cancelled)?;
        retain_snapshot(snapshot, &label, budget)
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
