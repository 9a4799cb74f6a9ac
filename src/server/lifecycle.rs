//! The server's lifecycle: initialize, settings, workspace folders,
//! document sync, and following the store index (with its progress report).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tower_lsp::lsp_types::notification::Progress;
use tower_lsp::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp::lsp_types::*;

use super::backend::{Backend, ClientFlags};
use super::capabilities::capabilities;
use super::handlers::diagnostics;
use super::index::IndexEvent;
use super::logging;
use super::settings::SECTION;
use super::workspace::Workspace;
use crate::proto::position::Encoding;

/// How long a `workspace/configuration` pull waits for the client.
const PULL_PATIENCE: Duration = Duration::from_secs(10);

/// The shortest time between two diagnostics refreshes caused by the store.
const STORE_REFRESH: Duration = Duration::from_millis(500);

impl Backend {
    pub fn on_initialize(&self, params: InitializeParams) -> InitializeResult {
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        let utf8 = offered.is_some_and(|kinds| kinds.contains(&PositionEncodingKind::UTF8));
        let encoding = if utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        if let Ok(mut slot) = self.encoding.write() {
            *slot = encoding;
        }
        let flags = ClientFlags {
            configuration: params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.configuration)
                .unwrap_or(false),
            work_done_progress: params
                .capabilities
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
        };
        if let Ok(mut slot) = self.flags.write() {
            *slot = flags;
        }
        #[allow(deprecated)] // `rootUri` is still what older clients send.
        let workspace = Workspace::new(
            params.workspace_folders.as_deref(),
            params.root_uri.as_ref(),
        );
        if let Ok(mut slot) = self.workspace.write() {
            *slot = workspace;
        }
        if let Some(options) = &params.initialization_options {
            if let Err(message) = self.apply_settings(options) {
                if let Ok(mut slot) = self.rejected_options.lock() {
                    *slot = Some(message);
                }
            }
        }
        self.initialized.store(true, Ordering::SeqCst);
        capabilities(encoding)
    }

    pub async fn on_initialized(&self) {
        if let Some(mut events) = self.index_events.lock().ok().and_then(|mut e| e.take()) {
            let backend = self.clone();
            tokio::spawn(async move { backend.follow_index(&mut events).await });
        }
        self.ensure_index();
        // Git ignore rules of the workspace, compiled before the first
        // file completion needs them (off the async workers).
        if let Some(first) = self.workspace.read().ok().and_then(|w| w.first_folder()) {
            tokio::task::spawn_blocking(move || crate::files::warm(&first));
        }
        let rejected = self.rejected_options.lock().ok().and_then(|mut r| r.take());
        if let Some(message) = rejected {
            self.client
                .show_message(MessageType::WARNING, message)
                .await;
        }
        let flags = self.flags.read().map(|f| *f).unwrap_or_default();
        if flags.work_done_progress && self.index.is_indexing() {
            let backend = self.clone();
            tokio::spawn(async move { backend.report_indexing().await });
        }
    }

    /// A work-done progress from now until the first index is built.
    async fn report_indexing(&self) {
        let token = NumberOrString::String("hydra-session/index".to_string());
        let create = WorkDoneProgressCreateParams {
            token: token.clone(),
        };
        if self
            .client
            .send_request::<WorkDoneProgressCreate>(create)
            .await
            .is_err()
        {
            return;
        }
        let begin = WorkDoneProgressBegin {
            title: "Indexing sessions".to_string(),
            cancellable: Some(false),
            message: Some(self.index.roots().join(", ")),
            percentage: None,
        };
        self.progress(&token, WorkDoneProgress::Begin(begin)).await;
        self.index.ready().await;
        let count = self.index.view().len();
        let end = WorkDoneProgressEnd {
            message: Some(format!("{count} sessions")),
        };
        self.progress(&token, WorkDoneProgress::End(end)).await;
    }

    async fn progress(&self, token: &NumberOrString, value: WorkDoneProgress) {
        let params = ProgressParams {
            token: token.clone(),
            value: ProgressParamsValue::WorkDone(value),
        };
        self.client.send_notification::<Progress>(params).await;
    }

    /// Reports store warnings, and refreshes diagnostics when the sessions
    /// change: at once, then at most once per [`STORE_REFRESH`]. Logs that
    /// are being written change often; restarting the debounce on every
    /// append would keep diagnostics from ever being published.
    async fn follow_index(&self, events: &mut mpsc::UnboundedReceiver<IndexEvent>) {
        while let Some(event) = events.recv().await {
            let mut changed = self.on_index_event(event).await;
            while changed {
                self.refresh_diagnostics();
                changed = false;
                let until = tokio::time::Instant::now() + STORE_REFRESH;
                loop {
                    match tokio::time::timeout_at(until, events.recv()).await {
                        Ok(Some(event)) => changed |= self.on_index_event(event).await,
                        Ok(None) => return,
                        Err(_) => break,
                    }
                }
            }
        }
    }

    /// Handles one index event; whether the sessions changed.
    async fn on_index_event(&self, event: IndexEvent) -> bool {
        match event {
            IndexEvent::Notes(notes) => {
                for note in &notes {
                    tracing::debug!("{note}");
                }
                for message in logging::note_messages(&notes) {
                    tracing::warn!("{message}");
                    self.client.log_message(MessageType::WARNING, message).await;
                }
                false
            }
            IndexEvent::Changed => true,
        }
    }

    fn refresh_diagnostics(&self) {
        for uri in self.documents.uris() {
            diagnostics::schedule(self, uri, diagnostics::DEBOUNCE);
        }
    }

    pub fn on_shutdown(&self) {
        self.shut_down.store(true, Ordering::SeqCst);
    }

    pub fn on_did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.documents.open(doc.uri.clone(), &doc.text, doc.version);
        diagnostics::schedule(self, doc.uri, Duration::ZERO);
    }

    pub fn on_did_change(&self, params: DidChangeTextDocumentParams) {
        let doc = params.text_document;
        if self.documents.change(
            &doc.uri,
            doc.version,
            &params.content_changes,
            self.encoding(),
        ) {
            diagnostics::schedule(self, doc.uri, diagnostics::DEBOUNCE);
        }
    }

    pub async fn on_did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.documents.close(&uri);
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    pub async fn on_did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let update = params.settings;
        let can_pull = self.flags.read().map(|f| f.configuration).unwrap_or(false);
        if update.is_null() && can_pull {
            // Never wait for the client inside a handler: a client that does
            // not answer would hold one of tower-lsp's slots per pull.
            self.pull_configuration();
            return;
        }
        self.apply_settings_or_warn(&update).await;
    }

    /// Pulls section `hydraSession` in the background: one pull at a time
    /// (asks made meanwhile are folded into one more pull), each given up
    /// after [`PULL_PATIENCE`].
    fn pull_configuration(&self) {
        if self.pulling.swap(true, Ordering::SeqCst) {
            self.pull_again.store(true, Ordering::SeqCst);
            return;
        }
        let backend = self.clone();
        tokio::spawn(async move {
            loop {
                backend.pull_again.store(false, Ordering::SeqCst);
                let item = ConfigurationItem {
                    scope_uri: None,
                    section: Some(SECTION.to_string()),
                };
                let pulled =
                    tokio::time::timeout(PULL_PATIENCE, backend.client.configuration(vec![item]))
                        .await;
                match pulled {
                    Ok(Ok(mut values)) if !values.is_empty() => {
                        let update = values.swap_remove(0);
                        backend.apply_settings_or_warn(&update).await;
                    }
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => tracing::warn!("cannot pull the {SECTION} settings: {e}"),
                    Err(_) => tracing::warn!(
                        "the client did not answer workspace/configuration within {PULL_PATIENCE:?}"
                    ),
                }
                if !backend.pull_again.load(Ordering::SeqCst) {
                    backend.pulling.store(false, Ordering::SeqCst);
                    // An ask that came after the check but before the flag
                    // was cleared started no pull of its own: take it now.
                    if !backend.pull_again.load(Ordering::SeqCst)
                        || backend.pulling.swap(true, Ordering::SeqCst)
                    {
                        return;
                    }
                }
            }
        });
    }

    async fn apply_settings_or_warn(&self, update: &Value) {
        if let Err(message) = self.apply_settings(update) {
            self.client
                .show_message(MessageType::WARNING, message)
                .await;
        }
    }

    /// Validates and applies a settings update as a whole; the message to
    /// show when it is rejected.
    fn apply_settings(&self, update: &Value) -> Result<(), String> {
        let current = self.settings();
        let next = current
            .updated(update)
            .map_err(|e| format!("hydra-session: settings not applied: {}", e.message))?;
        if next == current {
            return Ok(());
        }
        if let Ok(mut slot) = self.settings.write() {
            *slot = next.clone();
        }
        if next.log_level != current.log_level {
            if let Some(level) = &next.log_level {
                logging::set_level(level);
            }
        }
        if next.store != current.store && self.index.is_started() {
            self.start_index();
        }
        self.refresh_diagnostics();
        Ok(())
    }

    pub fn on_did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        if let Ok(mut workspace) = self.workspace.write() {
            for folder in &params.event.removed {
                workspace.remove(&folder.uri);
            }
            for folder in &params.event.added {
                workspace.add(&folder.uri);
            }
        }
    }
}

impl super::transport::Control for Backend {
    fn initialized(&self) -> bool {
        self.initialized.load(Ordering::SeqCst)
    }

    fn shut_down(&self) -> bool {
        self.shut_down.load(Ordering::SeqCst)
    }

    fn shutdown(&self) {
        self.on_shutdown();
    }

    fn status(&self) -> Value {
        serde_json::to_value(self.status_now()).unwrap_or(Value::Null)
    }
}
