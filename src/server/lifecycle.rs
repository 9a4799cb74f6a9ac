//! The session's lifecycle, on the main loop: initialize, settings,
//! workspace folders and document sync. Each handler changes the session
//! at once, in arrival order; what takes time is started in the
//! background ([`background`](super::background)).

use std::time::Duration;

use lsp_types::*;
use serde_json::Value;

use super::background;
use super::capabilities::capabilities;
use super::handlers::diagnostics;
use super::logging;
use super::shared;
use super::state::{ClientFlags, ServerState};
use super::workspace::Workspace;
use crate::proto::position::Encoding;

impl ServerState {
    pub fn on_initialize(&mut self, params: InitializeParams) -> InitializeResult {
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        let utf8 = offered.is_some_and(|kinds| kinds.contains(&PositionEncodingKind::UTF8));
        self.encoding = if utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        self.flags = ClientFlags {
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
        #[allow(deprecated)] // `rootUri` is still what older clients send.
        let workspace = Workspace::new(
            params.workspace_folders.as_deref(),
            params.root_uri.as_ref(),
        );
        self.workspace = workspace;
        if let Some(options) = &params.initialization_options {
            if let Err(message) = self.apply_settings(options) {
                self.rejected_options = Some(message);
            }
        }
        self.initialized = true;
        capabilities(self.encoding)
    }

    pub fn on_initialized(&mut self) {
        if let Some(events) = self.index_events.take() {
            tokio::spawn(background::follow_index(self.shared.clone(), events));
        }
        self.ensure_index();
        // Git ignore rules of the workspace, compiled before the first
        // file completion needs them (off the async workers).
        if let Some(first) = self.workspace.first_folder() {
            tokio::task::spawn_blocking(move || crate::files::warm(&first));
        }
        if let Some(message) = self.rejected_options.take() {
            self.shared
                .client
                .show_message(MessageType::WARNING, message);
        }
        if self.flags.work_done_progress && self.shared.index.is_indexing() {
            tokio::spawn(background::report_indexing(self.shared.clone()));
        }
        self.build_search_index();
    }

    /// Builds the search index of the configured stores in the background,
    /// unless search is off.
    fn build_search_index(&self) {
        let request = self.request_view(None);
        if request.search_off().is_none() {
            let report = self.flags.work_done_progress;
            tokio::spawn(background::build_search_index(
                self.shared.clone(),
                request,
                report,
            ));
        }
    }

    pub fn on_did_open(&mut self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.documents.open(doc.uri.clone(), &doc.text, doc.version);
        self.schedule_diagnostics(doc.uri, Duration::ZERO);
    }

    pub fn on_did_change(&mut self, params: DidChangeTextDocumentParams) {
        let doc = params.text_document;
        if self.documents.change(
            &doc.uri,
            doc.version,
            &params.content_changes,
            self.encoding,
        ) {
            self.schedule_diagnostics(doc.uri, diagnostics::DEBOUNCE);
        }
    }

    pub fn on_did_close(&mut self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.documents.close(&uri);
        // On the main loop's thread: the blocking send is the backpressure.
        self.shared
            .client
            .notify::<notification::PublishDiagnostics>(PublishDiagnosticsParams {
                uri,
                diagnostics: Vec::new(),
                version: None,
            });
    }

    pub fn on_did_change_configuration(&mut self, params: DidChangeConfigurationParams) {
        let update = params.settings;
        if update.is_null() && self.flags.configuration {
            self.pull_configuration();
            return;
        }
        self.apply_settings_or_warn(&update);
    }

    /// Pulls section `hydraSession` in the background, one pull at a time:
    /// asks made meanwhile are folded into one more pull. Never waited for
    /// on the loop: a client that does not answer holds nothing.
    fn pull_configuration(&mut self) {
        if self.pulling {
            self.pull_again = true;
            return;
        }
        self.pulling = true;
        tokio::spawn(background::pull_configuration(self.shared.clone()));
    }

    /// A pull ended: its section (if any) is applied, and a pull asked for
    /// meanwhile starts.
    pub fn on_pulled(&mut self, update: Option<Value>) {
        self.pulling = false;
        if let Some(update) = update {
            self.apply_settings_or_warn(&update);
        }
        if std::mem::take(&mut self.pull_again) {
            self.pull_configuration();
        }
    }

    fn apply_settings_or_warn(&mut self, update: &Value) {
        if let Err(message) = self.apply_settings(update) {
            self.shared
                .client
                .show_message(MessageType::WARNING, message);
        }
    }

    /// Validates and applies a settings update as a whole; the message to
    /// show when it is rejected.
    fn apply_settings(&mut self, update: &Value) -> Result<(), String> {
        let current = self.settings();
        let next = current
            .updated(update)
            .map_err(|e| format!("hydra-session: settings not applied: {}", e.message))?;
        if next == current {
            return Ok(());
        }
        self.settings = next.clone();
        if next.log_level != current.log_level {
            if let Some(level) = &next.log_level {
                logging::set_level(level);
            }
        }
        if next.store != current.store && self.shared.index.is_started() {
            self.start_index();
        }
        // Another store list, or search turned back on: its index is
        // built now, not by the first search.
        let search_on = !next.no_search_index;
        let search_changed = next.no_search_index != current.no_search_index;
        // (Before `initialized`, that notification builds it.)
        let after_initialized = self.index_events.is_none();
        if after_initialized && search_on && (next.store != current.store || search_changed) {
            self.build_search_index();
        }
        self.refresh_diagnostics();
        Ok(())
    }

    pub fn on_did_change_workspace_folders(&mut self, params: DidChangeWorkspaceFoldersParams) {
        let before = shared::configured_stores(&self.settings(), &self.workspace);
        for folder in &params.event.removed {
            self.workspace.remove(&folder.uri);
        }
        for folder in &params.event.added {
            self.workspace.add(&folder.uri);
        }
        // The default stores follow the folders (Aider's histories are in
        // them): another list is indexed again, as another `store` is.
        let after = shared::configured_stores(&self.settings(), &self.workspace);
        if after != before && self.shared.index.is_started() {
            self.start_index();
            if self.index_events.is_none() && !self.settings().no_search_index {
                self.build_search_index();
            }
        }
    }

    /// Diagnostics of every open document again (settings or sessions
    /// changed).
    pub fn refresh_diagnostics(&self) {
        for uri in self.documents.uris() {
            self.schedule_diagnostics(uri, diagnostics::DEBOUNCE);
        }
    }

    /// Diagnostics of `uri` after `delay`, on the text as it is now: the
    /// ticket taken here is dropped by any later change.
    fn schedule_diagnostics(&self, uri: Url, delay: Duration) {
        let Some(ticket) = self.documents.ticket(&uri) else {
            return;
        };
        let request = self.request_view(Some(&uri));
        diagnostics::schedule(request, uri, ticket, delay);
    }
}
