//! The language server: the protocol edge over the core.
//!
//! One JSON-RPC stack: [`edge`] reads and frames the input once into
//! lsp-server's messages and writes the output; [`main_loop`] owns the
//! [`state`] (the server state) and hands each request a [`request_view`] that [`router`] routes
//! to one handler in [`handlers`]. Stdout is the protocol channel, so
//! nothing here may print to it; logs go to stderr through `tracing`.

#![deny(clippy::print_stdout)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod background;
mod body_searches;
mod capabilities;
mod client;
mod debounce;
mod documents;
pub mod edge;
mod error;
mod handlers;
mod lifecycle;
pub mod logging;
pub mod lsp_ext;
mod main_loop;
mod request_view;
mod router;
pub mod settings;
mod shared;
mod state;
mod workspace;

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use self::client::Client;
use self::edge::{spawn_reader, IdBook, Writer, INPUT_MESSAGES, OUTPUT_MESSAGES};
use self::shared::Shared;
use self::state::ServerState;
use crate::live::LiveIndex;

/// The custom requests, by method name (documented in docs/lsp-extensions.md).
pub const CUSTOM_METHODS: [&str; 7] = lsp_ext::METHODS;

/// How long output still queued at the end may take to be written.
const FLUSH_GRACE: Duration = Duration::from_secs(1);

/// What the command line says about the server (`lsp …`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerOptions {
    /// `--no-search-index`: no full-text index, whatever the settings say.
    pub no_search_index: bool,
}

/// Runs the language server on stdin/stdout until `exit` or stdin EOF.
/// Returns the process exit status (0 after `shutdown`, 1 without).
pub fn run_stdio(options: ServerOptions) -> i32 {
    logging::init();
    serve_with(std::io::stdin(), std::io::stdout(), options)
}

/// Serves one client over `input`/`output` until `exit` or end of input;
/// the exit status. Tests run it over pipes.
pub fn serve(input: impl Read + Send + 'static, output: impl Write + Send + 'static) -> i32 {
    serve_with(input, output, ServerOptions::default())
}

/// [`serve`] with the command line's options.
pub fn serve_with(
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
    options: ServerOptions,
) -> i32 {
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
    let (outbox, to_write) = crossbeam_channel::bounded(OUTPUT_MESSAGES);
    let (inbox, to_handle) = crossbeam_channel::bounded(INPUT_MESSAGES);
    let ids = std::sync::Arc::new(IdBook::default());
    let writer = match Writer::spawn(output, to_write, ids.clone()) {
        Ok(writer) => writer,
        Err(e) => {
            tracing::error!("cannot start the writer thread: {e}");
            return 1;
        }
    };
    if let Err(e) = spawn_reader(input, inbox, outbox.clone(), ids) {
        tracing::error!("cannot start the reader thread: {e}");
        return 1;
    }
    let shut_down = {
        // Background work (the index, diagnostics, requests) runs on the
        // runtime; the main loop itself is this thread.
        let _runtime = runtime.enter();
        let (index, index_events) = LiveIndex::new();
        let (events, loop_events) = crossbeam_channel::unbounded();
        let fetched = events.clone();
        // A snapshot fetched: diagnostics that said "fetching" are due.
        let fetches = crate::live::Fetches::new(Arc::new(move || {
            let _ = fetched.send(shared::LoopEvent::StoreChanged);
        }));
        let shared = Arc::new(Shared {
            client: Client::new(outbox),
            index,
            cache: crate::live::SnapshotCache::default(),
            search: crate::search::Live::new(true),
            no_search_index: options.no_search_index,
            body_searches: Default::default(),
            fetches,
            events,
        });
        main_loop::run(
            ServerState::new(shared, index_events),
            to_handle,
            loop_events,
        )
    };
    writer.finish(FLUSH_GRACE);
    // Blocking reads of logs, and requests the client never answered, must
    // not hold the exit back.
    runtime.shutdown_background();
    if shut_down {
        0
    } else {
        1
    }
}
