//! `search`: sessions found by what was said in them, and the search
//! index's part of `status`. The index is brought up to date first (only
//! this command and the server write it); when another process is writing
//! it, or the disk is full, what was last committed is searched.

use std::path::Path;

use super::args::Format;
use super::settings::Settings;
use super::{print_ok, print_text, terminal, Failure, OK};
use crate::model::{SearchStatus, Session, SessionStore};
use crate::reference::candidates::check_limit;
use crate::reference::one_line::one_line;
use crate::search::{self, location, Search, SearchError, SearchOptions, Texts};
use crate::store::{FsStore, Scan};

/// Sessions listed when `--limit` is not given.
const DEFAULT_LIMIT: u64 = 10;

pub fn run(
    settings: &Settings,
    words: &[String],
    limit: Option<u64>,
    cwd: Option<String>,
    no_index: bool,
) -> Result<i32, Failure> {
    let text = words.join(" ");
    let query = search::parse_query(&text).map_err(|e| Failure::Usage(e.to_string()))?;
    let limit = check_limit(limit.unwrap_or(DEFAULT_LIMIT))?;
    let store = settings.open_store(Scan::Full);
    let sessions = store.sessions();
    let workspace = super::workspace(settings, &store, cwd);
    let mut index = open(settings, no_index, &sessions, &store)?;
    let exists = |id: &str| store.get(id).is_some();
    let session = |id: &str| store.get(id);
    let reader = store.reader();
    let options = SearchOptions {
        limit,
        workspace: workspace.as_deref(),
        now_ms: search::now_ms(),
        exists: Some(&exists),
        texts: Some(Texts {
            session: &session,
            reader: reader.as_ref(),
        }),
    };
    let hits = match index.search(&query, options) {
        // Corrupt under an intact footer (found by its checksums): moved
        // aside, built again and searched once more.
        Err(SearchError::Broken(why)) => {
            note(
                &index
                    .repair(&why, &sessions, reader.as_ref(), &|| false)
                    .map_err(index_failure)?,
            );
            index.search(&query, options)
        }
        other => other,
    }
    .map_err(index_failure)?;
    // The process ends next: freeing a large index one block at a time is
    // wasted work.
    std::mem::forget(store);
    match settings.output {
        Some(Format::Mention) => {
            let lines: String = hits.iter().map(|h| h.one_line_mention() + "\n").collect();
            print_text(&lines);
            Ok(OK)
        }
        output if terminal::for_a_person(output) => {
            print_text(&terminal::hits(&hits, terminal::colour()));
            Ok(OK)
        }
        _ => print_ok(&crate::proto::ext::search_hits(hits)),
    }
}

/// The index to search, up to date with `sessions` as far as it can be.
fn open(
    settings: &Settings,
    no_index: bool,
    sessions: &[Session],
    store: &FsStore,
) -> Result<Search, Failure> {
    let (index, notes) =
        Search::open_for(&settings.stores, !no_index, search::now_ms()).map_err(index_failure)?;
    let mut index = index.with_writer_budget(search::CLI_WRITER_BYTES);
    for text in notes {
        note(&text);
    }
    let reader = store.reader();
    let refreshed = index.refresh(
        &sessions,
        reader.as_ref(),
        &|| false,
        search::WAIT_FOR_BUILD,
    );
    if let Some(text) = refreshed.map_err(index_failure)? {
        note(&text);
    }
    Ok(index)
}

/// The search index's part of `status`: read only, never created here.
pub fn status(
    settings: &Settings,
    store: &FsStore,
    sessions: &[Session],
    no_index: bool,
) -> SearchStatus {
    if no_index {
        return SearchStatus::off("turned off (--no-search-index)");
    }
    let Some(dir) = location::default_for(&settings.stores) else {
        return SearchStatus::off("no cache directory ($XDG_CACHE_HOME or $HOME)");
    };
    let mut status = index_status(&dir, store, sessions);
    if location::is_full(&dir) {
        status.enabled = false;
        status.note =
            Some(SearchError::DiskFull("its file system has no space left".into()).to_string());
    }
    status
}

/// What the index in `dir` holds against `sessions`, read only.
fn index_status(dir: &Path, store: &FsStore, sessions: &[Session]) -> SearchStatus {
    match Search::open_existing(dir) {
        Ok(Some(index)) => {
            let mut status = index.status(&sessions, store.reader().as_ref());
            // `status` is asked rarely and should be the truth: a file
            // corrupt under an intact footer reads as an index that is up
            // to date until it is searched, so its checksums are checked.
            if let Err(e) = index.index().verify() {
                status.enabled = false;
                status.note = Some(format!("{e}; the next search rebuilds it"));
            }
            status
        }
        Ok(None) => SearchStatus {
            enabled: true,
            path: Some(dir.display().to_string()),
            bytes: 0,
            sessions: 0,
            behind: sessions.len(),
            note: Some("not built yet: the first `search` or the server builds it".into()),
        },
        Err(e) => SearchStatus {
            note: Some(e.to_string()),
            path: Some(dir.display().to_string()),
            ..SearchStatus::off("")
        },
    }
}

/// A failure of the index itself: a read failure for the caller.
fn index_failure(e: SearchError) -> Failure {
    match e {
        SearchError::Query(q) => Failure::Usage(q.to_string()),
        other => Failure::Reference(crate::reference::ReferenceError::read_failed(other)),
    }
}

fn note(message: &str) {
    eprintln!("hydra-session-lsp: note: {}", one_line(message));
}
