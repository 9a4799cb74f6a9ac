//! Pushed diagnostics: debounced, computed off the async workers on a
//! snapshot of the text, dropped when a newer version overtook them.

use std::time::Duration;

use lsp_types::{self as lsp, Url};

use crate::proto::to_proto;
use crate::reference::diagnostics::{diagnose, merge, DiagnosticOptions};
use crate::server::debounce;
use crate::server::documents::Ticket;
use crate::server::request_view::RequestView;

/// How long typing must pause before diagnostics are computed.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Computes and publishes `uri`'s diagnostics after `delay` on the
/// snapshot taken when they were scheduled, unless the document changes
/// (or is scheduled again) first: then the ticket is no longer current and
/// a newer run has the newer text ([`debounce::after_pause`], tested on a
/// paused clock).
pub fn schedule(request: RequestView, uri: Url, ticket: Ticket, delay: Duration) {
    let Some(document) = request.document(&uri) else {
        return;
    };
    debounce::after_pause(ticket, delay, move |ticket| async move {
        tracing::debug!("diagnosing {uri}");
        let view = request.sessions().await;
        if !ticket.is_current() {
            return;
        }
        let settings = request.settings.clone();
        let cwd = request.target_cwd(&uri);
        let encoding = request.encoding;
        let version = document.version;
        let worker = request.clone();
        let running = ticket.clone();
        let computed = tokio::task::spawn_blocking(move || {
            let text = document.rope.to_string();
            let options = DiagnosticOptions {
                target: settings.target_session_id.as_deref(),
                max_references: settings.limits.max_references,
                max_reference_bytes: settings.limits.max_reference_bytes,
            };
            let source = worker.background_source(&view);
            let found = merge(
                diagnose(&text, options, &source, &|| !running.is_current()),
                crate::files::diagnostics(&text, cwd.as_deref().map(std::path::Path::new)),
            );
            found
                .iter()
                .map(|d| to_proto::diagnostic(&document.rope, d, encoding))
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
            request
                .client()
                .publish_diagnostics(uri, diagnostics, Some(version))
                .await;
            // Only now: a "fetching" diagnostic is out before the fetch
            // that ends it can refresh it (a dropped run leaves its queue
            // to the run that replaced it).
            request.start_fetches();
        }
    });
}
