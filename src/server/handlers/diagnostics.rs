//! Pushed diagnostics: debounced, computed off the async workers on a
//! snapshot of the text, dropped when a newer version overtook them.

use std::time::Duration;

use tower_lsp::lsp_types::{self as lsp, Url};

use crate::proto::to_proto;
use crate::reference::diagnostics::{diagnose, merge, DiagnosticOptions};
use crate::server::backend::Backend;
use crate::server::cache::CachedSource;

/// How long typing must pause before diagnostics are computed.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Computes and publishes `uri`'s diagnostics after `delay`, unless the
/// document changes (or is scheduled again) first.
pub fn schedule(backend: &Backend, uri: Url, delay: Duration) {
    // The ticket is taken now, in arrival order; everything after is async.
    let Some(ticket) = backend.documents.ticket(&uri) else {
        return;
    };
    let backend = backend.clone();
    tokio::spawn(async move {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        if !ticket.is_current() {
            return;
        }
        tracing::debug!("diagnosing {uri}");
        let view = backend.sessions().await;
        let Some(snapshot) = backend.documents.snapshot(&uri) else {
            return;
        };
        // Still current after the snapshot: the snapshot is this ticket's text.
        if !ticket.is_current() {
            return;
        }
        let settings = backend.settings();
        let cwd = backend.target_cwd(&uri);
        let encoding = backend.encoding();
        let version = snapshot.version;
        let work = backend.clone();
        let running = ticket.clone();
        let computed = tokio::task::spawn_blocking(move || {
            let text = snapshot.rope.to_string();
            let options = DiagnosticOptions {
                target: settings.target_session_id.as_deref(),
                max_references: settings.limits.max_references,
                max_reference_bytes: settings.limits.max_reference_bytes,
            };
            let source = CachedSource {
                view: &view,
                cache: &work.cache,
            };
            let found = merge(
                diagnose(&text, options, &source, &|| !running.is_current()),
                crate::files::diagnostics(&text, cwd.as_deref().map(std::path::Path::new)),
            );
            found
                .iter()
                .map(|d| to_proto::diagnostic(&snapshot.rope, d, encoding))
                .collect::<Vec<lsp::Diagnostic>>()
        })
        .await;
        let Ok(diagnostics) = computed else {
            tracing::error!("computing diagnostics for {uri} stopped unexpectedly");
            return;
        };
        tracing::debug!(
            "diagnostics of {uri} version {version}: {}",
            diagnostics.len()
        );
        let _publishing = ticket.publish.lock().await;
        if ticket.is_current() {
            backend
                .client
                .publish_diagnostics(uri, diagnostics, Some(version))
                .await;
        }
    });
}
