//! The language server: the protocol edge over the core.
//!
//! This file is the route table: every LSP method and custom request maps
//! to one handler in [`handlers`]. Stdout is the protocol channel, so
//! nothing here may print to it; logs go to stderr through `tracing`.

#![deny(clippy::print_stdout)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod backend;
mod cache;
mod capabilities;
mod error;
mod handlers;
mod index;
mod lifecycle;
pub mod logging;
pub mod lsp_ext;
pub mod settings;
mod state;
pub mod transport;
mod workspace;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::*;
use tower_lsp::{LanguageServer, LspService, Server};

pub use backend::Backend;
use lsp_ext::CustomRequest;

/// The custom requests, by method name (documented in docs/lsp-extensions.md).
pub const CUSTOM_METHODS: [&str; 5] = lsp_ext::METHODS;

/// How long work already received may go on after the end of input.
const EOF_GRACE: Duration = Duration::from_secs(2);
/// How long output still queued at the end may take to be written.
const FLUSH_GRACE: Duration = Duration::from_secs(1);

/// Runs the language server on stdin/stdout until `exit` or stdin EOF.
/// Returns the process exit status (0 after `shutdown`, 1 without).
pub fn run_stdio() -> i32 {
    logging::init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return 1;
        }
    };
    let status = runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Blocking reads of stdin (and of logs), and requests the client never
    // answered, must not hold the exit back.
    runtime.shutdown_background();
    status
}

/// Serves one client over `input`/`output` until `exit` or EOF; the exit
/// status. Tests run it over `tokio::io::duplex`.
pub async fn serve<I, O>(input: I, output: O) -> i32
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let shut_down = Arc::new(AtomicBool::new(false));
    let mut built = None;
    let (service, socket) = LspService::build(|client| {
        let backend = Backend::new(client, shut_down.clone());
        built = Some(backend.clone());
        backend
    })
    .custom_method(lsp_ext::Prepare::METHOD, Backend::prepare)
    .custom_method(lsp_ext::Candidates::METHOD, Backend::candidates)
    .custom_method(lsp_ext::PickCandidates::METHOD, Backend::pick_candidates)
    .custom_method(lsp_ext::Files::METHOD, Backend::files)
    .custom_method(lsp_ext::Status::METHOD, Backend::status)
    .finish();
    let Some(backend) = built else {
        return 1;
    };
    // Our edge sits between the pipes and tower-lsp (see `transport`).
    let (to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let to_server = tokio::sync::Mutex::new(to_server);
    let inbox = transport::Inbox::default();
    let outbox = transport::Outbox::default();
    let server = Server::new(server_in, server_out, socket)
        .concurrency_level(transport::TOWER_CONCURRENCY)
        .serve(service);
    let reader = async {
        let end = transport::forward_input(input, &to_server, &inbox, &outbox, &backend).await;
        if end == transport::InputEnd::Eof {
            // Answer what was already sent, unless it takes long (a request
            // waiting for a client that is gone must not keep us alive).
            let _ = tokio::time::timeout(EOF_GRACE, inbox.idle()).await;
        }
    };
    let session = async {
        tokio::select! {
            () = reader => {}
            () = server => {}
            () = transport::dispatch(&to_server, &inbox) => {}
            () = transport::forward_output(from_server, &inbox, &outbox) => {}
        }
        inbox.close();
        outbox.close();
    };
    let writer = transport::write_output(output, &outbox);
    tokio::pin!(writer);
    tokio::select! {
        () = &mut writer => {}
        () = session => {
            let _ = tokio::time::timeout(FLUSH_GRACE, &mut writer).await;
        }
    }
    if shut_down.load(Ordering::SeqCst) {
        0
    } else {
        1
    }
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        Ok(self.on_initialize(params))
    }

    async fn initialized(&self, _: InitializedParams) {
        self.on_initialized().await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.on_shutdown();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.on_did_open(params);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before any `.await`: edits keep their arrival order.
        self.on_did_change(params);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.on_did_close(params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.on_did_change_configuration(params).await;
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        self.on_did_change_workspace_folders(params);
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        handlers::completion::completion(self, params).await
    }

    async fn completion_resolve(&self, item: CompletionItem) -> Result<CompletionItem> {
        handlers::completion::resolve(self, item).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        handlers::hover::hover(self, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        handlers::code_action::code_action(self, params).await
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        handlers::links::document_link(self, params).await
    }
}
