//! One file per LSP feature. Handlers take the LSP request, call the core
//! on plain text and byte offsets, and convert at the edge.

mod body_matches;
pub mod code_action;
pub mod completion;
pub mod custom;
pub mod diagnostics;
pub mod files;
pub mod hover;
pub mod links;
mod markdown;
mod place;
pub mod publish;
pub mod search;
mod search_run;
pub mod workspace_symbol;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::request_view::RequestView;
use crate::server::error::Result;

use super::error;
use crate::live::View;
use crate::model::Session;
use crate::reference::budget::Budget;
use crate::reference::prepare::RetainedSource;
use crate::reference::ReferenceError;

/// Sets the flag when dropped: the main loop cancels a request by aborting
/// its task, which drops its future, and this is how the blocking work
/// behind it hears of it.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Reads `session` through the snapshot cache and fits it into the budget,
/// off the async workers: what hover and the completion preview show.
/// `view` is the one the request already read (a request reads it once).
pub async fn retained_source(
    request: &RequestView,
    view: Arc<View>,
    session: &Session,
    label: &str,
    what: &str,
) -> Result<std::result::Result<(RetainedSource, Budget), ReferenceError>> {
    let settings = request.settings.clone();
    let request = request.clone();
    let (session, label) = (session.clone(), label.to_string());
    blocking(what, move |cancelled| {
        let source = request.background_source(&view);
        let limits = (
            settings.limits.max_reference_bytes,
            settings.limits.max_references,
        );
        let target = settings.target_session_id.as_deref();
        let retained =
            crate::live::retained_of(&source, &session, &label, limits, target, cancelled);
        // What hover or a preview found missing is fetched now.
        request.start_fetches();
        retained
    })
    .await
}

/// Runs `work` on the blocking pool with a cancel flag that turns true when
/// the awaiting request is dropped.
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

/// The rope's text, copied chunk by chunk with a poll of `cancelled`
/// between chunks (`None` when cancelled): a document of many megabytes is
/// not worth copying for a request nobody waits for.
pub fn text_of(rope: &ropey::Rope, cancelled: &(dyn Fn() -> bool + Sync)) -> Option<String> {
    let mut text = String::with_capacity(rope.len_bytes());
    for (i, chunk) in rope.chunks().enumerate() {
        if i % 256 == 0 && cancelled() {
            return None;
        }
        text.push_str(chunk);
    }
    Some(text)
}
