//! `hydra-session-lsp mcp`: a stdio MCP server over the same core, stores
//! and flags as the CLI. Sessions are resources (`session:<slug>/<key>`,
//! read as `prepare`'s context), and tools list, read and prepare them.
//! The SDK (`rmcp`) is this face's JSON-RPC service, behind our own stdio
//! transport ([`wire`]); stdout carries only the protocol, every other
//! word goes to stderr.

mod guard;
mod handler;
mod output;
mod page_policy;
mod print_config;
mod resources;
mod revision;
mod sessions;
mod templates;
mod text;
mod tools;
mod uri;
mod watch;
mod wire;

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use rmcp::ServiceExt;

use crate::config::mcp::{McpRequest, DEFAULT_RESOURCE_LIMIT};
use crate::config::settings::Settings;
use crate::live::LiveIndex;
use crate::reference::ReferenceError;
use crate::spill::Spill;
use crate::store::{FsStore, Scan};
use handler::Handler;
use sessions::Sessions;

/// A tool argument may hold a whole document (64 MiB), escaped in JSON
/// to up to twice that: a longer line is skipped (and answered −32600), so
/// the limit is set above what any answerable request holds.
const MAX_LINE: usize = 2 * crate::config::document::MAX_DOCUMENT_BYTES as usize + (1 << 20);

/// Runs `mcp` to its end: the exit status.
pub fn run(request: McpRequest) -> i32 {
    let settings = match resolve(&request) {
        Ok(settings) => settings,
        Err(e) => return fail(&format!("{}: {}", e.code.as_str(), e.message)),
    };
    if let Some(client) = &request.print_config {
        let Some(text) = print_config::print_config(client, &request) else {
            return fail(&format!("no configuration for {client:?}"));
        };
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
        return 0;
    }
    if std::io::stdin().is_terminal() {
        // Run by hand: say what this is rather than wait in silence.
        eprintln!(
            "hydra-session-lsp mcp: an MCP server, waiting for messages on stdin \
             (`hydra-session-lsp mcp --print-config CLIENT` prints how to add it to a client)"
        );
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return fail(&format!("cannot start: {e}")),
    };
    let status = runtime.block_on(serve(settings));
    // Stdin's blocking reader and an index still being built need not be
    // waited for: the process ends next.
    runtime.shutdown_background();
    status
}

struct Resolved {
    settings: Settings,
    spill: Option<Spill>,
    limit: u64,
    search_on_disk: bool,
    revisions: revision::Revisions,
}

/// Every setting validated before the protocol starts.
fn resolve(request: &McpRequest) -> Result<Resolved, ReferenceError> {
    let settings = request.settings.resolve()?;
    let spill = request.spill.resolve()?;
    let limit = match request.limit {
        Some(n) => crate::reference::candidates::check_limit(n)? as u64,
        None => DEFAULT_RESOURCE_LIMIT,
    };
    // The flag wins over the environment.
    let forced = request
        .protocol
        .clone()
        .or_else(|| std::env::var(revision::PROTOCOL_ENV).ok());
    let revisions = revision::Revisions::new(forced.as_deref()).map_err(|why| {
        ReferenceError::new(
            crate::reference::ErrorCode::InvalidConfig,
            format!("{}: {why}", revision::PROTOCOL_ENV),
        )
    })?;
    Ok(Resolved {
        settings,
        spill: Spill::for_setting(&spill.dir, spill.max_bytes),
        limit,
        search_on_disk: !request.no_search_index,
        revisions,
    })
}

fn fail(message: &str) -> i32 {
    eprintln!("hydra-session-lsp mcp: {message}");
    1
}

async fn serve(resolved: Resolved) -> i32 {
    let Resolved {
        settings,
        spill,
        limit,
        search_on_disk,
        revisions,
    } = resolved;
    // The core's live index, as the language server's: it is built while
    // the client shakes hands, from the on-disk index cache as the CLI
    // reads it — listed from the cache's records at once (what only lists
    // answers from that), every log checked after — and follows the
    // store's changes (its watch starts before the scan, so nothing
    // written during the scan is lost).
    let (index, events) = LiveIndex::new();
    let mut store = FsStore::unscanned(&settings.stores, Scan::Full);
    if let Some(dir) = crate::config::paths::index_cache_dir() {
        store = store.with_index_cache(&settings.stores, &dir);
    }
    index.start(Box::new(store), settings.stores.clone());
    let warned = index.clone();
    let named = settings.clone();
    tokio::spawn(async move {
        warned.ready().await;
        // As the CLI: only the stores the person named are worth a
        // warning; the rest is for `status`.
        for note in &warned.view().notes {
            if named.is_warning(note) {
                eprintln!("hydra-session-lsp mcp: warning: {note}");
            }
        }
    });
    let sessions = Arc::new(Sessions::new(settings, spill, index, search_on_disk));
    let cwd = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    let handler = Handler::new(sessions, limit, cwd, revisions.clone());
    let changes = handler.changes();
    let transport = wire::Stdio::new(tokio::io::stdin(), tokio::io::stdout(), MAX_LINE, revisions);
    let running = match handler.serve(transport).await {
        Ok(running) => running,
        // The client left before the handshake: nothing to serve.
        Err(e) => return fail(&format!("no session with the client: {e}")),
    };
    tokio::spawn(watch::follow(events, running.peer().clone(), changes));
    match running.waiting().await {
        Ok(_) => 0,
        Err(e) => fail(&format!("stopped: {e}")),
    }
}
