//! Full-text search over what sessions said (issue 16), beside the
//! contract's candidates (which never search bodies and never change).
//!
//! Face-neutral: the CLI's `search`, the MCP tool `search_sessions` and the
//! language server's `workspace/symbol`, `sessionReference/search` and
//! completion all call [`Search`]. The pieces: [`schema`] (the documents,
//! exportable as they are), [`tokenizer`], [`location`] (where the index
//! lives, its modes), [`index`] (opening, repairing), [`writer`]
//! (incremental sync from the stores' change detection), [`query`] (the
//! query language), [`snippet`], and here the ranking: sessions with every
//! word in one message first, then (`across`, `matching`) sessions whose
//! messages hold them together, by other forms, or with a typo
//! (docs/search.md "Ranking").
//!
//! Only the server and the `search` command create or update the index;
//! `candidates`, `prepare`, `check` and the hook never touch it.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod across;
mod backlog;
mod checksum;
mod columns;
mod counted;
pub mod error;
pub mod forms;
pub mod index;
pub mod lifecycle;
pub mod live;
pub mod location;
mod manifest;
mod matching;
mod paged;
pub mod query;
mod report;
pub mod schema;
mod session_docs;
mod session_terms;
pub mod snippet;
mod surface;
pub mod texts;
pub mod tokenizer;
pub mod writer;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Searcher, Term};

use columns::{Columns, Place, SessionFacts};
pub use error::SearchError;
pub use index::SearchIndex;
pub use live::{Followed, Live};
pub use query::{ParsedQuery, QueryError};
pub use snippet::Snippet;
pub use texts::Texts;
pub use writer::SyncReport;

use crate::model::{Cancelled, SearchStatus, SessionList, SessionReader};
use crate::reference::mention;
use crate::store::StoreSpec;

/// The writer's budget in the CLI's `search`, whose process holds
/// nothing else while it builds: a segment flushed every 96 MiB instead of
/// 16 (each flush builds a term dictionary of its own, and the merges
/// build them again; docs/performance.md "Indexing once"). On the prose
/// corpus of 98 MiB: 3 segments, an index of 34.6 % of the logs instead
/// of 39.7 % with 48 MiB, in the same time, at a peak of 170 MiB instead
/// of 141 ("A quiet machine, 7 December").
pub const CLI_WRITER_BYTES: usize = 96 << 20;

/// How many bytes of the index's pages searches may leave mapped into the
/// process before they are let go ([`Search::search`]): a few queries'
/// pages stay (a query of the prose bench touches 9–12 MiB), and what a
/// long-lived face keeps of its index is bounded (issue 29 item 6).
pub const SEARCH_PAGES_KEPT: u64 = 32 << 20;

/// How long an explicit search waits for another process's build of the
/// index before it fails with [`SearchError::StillIndexing`].
pub const WAIT_FOR_BUILD: Duration = Duration::from_secs(10);

/// How often a search waiting for another process's build looks again.
const BUILD_POLL: Duration = Duration::from_millis(50);

/// Snippets per session at most.
pub const SNIPPETS: usize = 3;

/// Documents read per session asked for: enough that the sessions of the
/// best documents are all seen, few enough to stay fast.
const DOCS_PER_RESULT: usize = 40;
const MIN_DOCS: usize = 200;

/// Words close together rank first when the rarest of them is in at most
/// this many documents (see [`query::build_near`]).
const NEAR_MOST_DOCS: u64 = 5_000;

/// How much more a session of the workspace weighs.
const WORKSPACE_BOOST: f32 = 1.25;
/// How much more a session created now weighs than an old one (halving
/// every [`RECENCY_HALF_LIFE_MS`]).
const RECENCY_BOOST: f32 = 0.15;
const RECENCY_HALF_LIFE_MS: f64 = 30.0 * 86_400_000.0;

/// Now, in epoch milliseconds (for recency, and the name of an index
/// moved aside).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The agents `agent:` accepts: every format this build reads, and the
/// store kinds (OpenCode), as their sessions' locators name them.
pub fn agent_names() -> Vec<&'static str> {
    crate::formats::FormatChoice::names()
        .into_iter()
        .filter(|&name| name != "auto")
        .collect()
}

/// Parses a query with this build's agent names.
pub fn parse_query(text: &str) -> Result<ParsedQuery, QueryError> {
    query::parse(text, &agent_names())
}

/// One session found. No `Serialize`: the faces print it through
/// `proto::ext::SearchHit`, so a field added here changes no answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHit {
    pub session_id: String,
    /// The latest title, if any.
    pub title: Option<String>,
    pub display_title: Option<String>,
    /// The log format (`claude-code`, `codex`, `gemini`, `hydra`).
    pub agent: String,
    pub cwd: Option<String>,
    pub created_at: u64,
    /// The canonical mention, `format(id, displayTitle ?? title ?? id)`.
    pub mention: String,
    pub score: f32,
    pub snippets: Vec<Snippet>,
}

impl SessionHit {
    /// `displayTitle ?? title ?? id`, what the mention is labelled with.
    pub fn label(&self) -> &str {
        self.display_title
            .as_deref()
            .or(self.title.as_deref())
            .unwrap_or(&self.session_id)
    }

    /// The mention under the one-line rule (what `--format mention`
    /// prints, what an editor inserts).
    pub fn one_line_mention(&self) -> String {
        mention::format_one_line(&self.session_id, self.label())
    }
}

/// How to rank and cut a search.
#[derive(Clone, Copy)]
pub struct SearchOptions<'a> {
    pub limit: usize,
    /// Sessions with exactly this cwd rank first (as for candidates).
    pub workspace: Option<&'a str>,
    /// Now, for recency (epoch ms).
    pub now_ms: u64,
    /// Whether a session still exists in the store: a log deleted after
    /// the last sync leaves no trace in results.
    pub exists: Option<&'a dyn Fn(&str) -> bool>,
    /// Where the text of snippets is read (none: hits without snippets).
    pub texts: Option<Texts<'a>>,
}

/// The index of one store list, ready to search and to update.
pub struct Search {
    index: SearchIndex,
    /// The writer's memory budget ([`writer::WRITER_BYTES`] unless the
    /// process says otherwise, [`Search::with_writer_budget`]).
    writer_bytes: usize,
}

impl Search {
    /// Opens (creating, or rebuilding a broken one) the index in `dir` for
    /// the stores at `roots`.
    pub fn open(dir: &Path, roots: &[PathBuf], now_ms: u64) -> Result<Self, SearchError> {
        location::prepare(dir, roots).map_err(SearchError::Io)?;
        lifecycle::mark_used(dir);
        Ok(Search {
            index: SearchIndex::open_or_create(dir, now_ms)?,
            writer_bytes: writer::WRITER_BYTES,
        })
    }

    /// The index of the store list `specs`: on disk in its place under
    /// the cache directory, or — when `on_disk` is false, or that place
    /// cannot be used (inside a store, not the user's alone, no cache
    /// directory) — in memory for this process. The notes say what a
    /// person should know (a broken index rebuilt, a place refused).
    pub fn open_for(
        specs: &[StoreSpec],
        on_disk: bool,
        now_ms: u64,
    ) -> Result<(Self, Vec<String>), SearchError> {
        let mut notes = Vec::new();
        let roots: Vec<PathBuf> = specs.iter().map(|s| s.path.clone()).collect();
        let opened = location::default_for(specs).filter(|_| on_disk).map(|dir| {
            // The cache's other indexes, once per start (lifecycle.rs).
            if let Some(root) = dir.parent() {
                lifecycle::remove_unused(root, &dir, std::time::SystemTime::now());
            }
            Search::open(&dir, &roots, now_ms)
        });
        let search = match opened {
            Some(Ok(search)) => search,
            // A full disk turns search off (until there is room again):
            // an index of a large store held in memory instead would cost
            // what the index on disk is there to save.
            Some(Err(e @ SearchError::DiskFull(_))) => return Err(e),
            other => {
                if let Some(Err(e)) = other {
                    notes.push(format!("{e}; searching without an index on disk"));
                }
                Search::in_memory()?
            }
        };
        if let Some(aside) = &search.index.moved_aside {
            notes.push(format!(
                "the search index was unusable and was rebuilt (the old one is in {})",
                aside.display()
            ));
        }
        Ok((search, notes))
    }

    /// Brings the index up to date as far as this process can before an
    /// explicit search: when another process holds the writer, waits for
    /// it ([`Search::sync_waiting`], failing with
    /// [`SearchError::StillIndexing`]); a corrupt index is moved aside and
    /// built again; a full disk or another failure leaves the last commit
    /// searchable. What a person should be told comes back, as a note.
    pub fn refresh(
        &mut self,
        sessions: &dyn SessionList,
        reader: &dyn SessionReader,
        cancelled: Cancelled<'_>,
        wait: Duration,
    ) -> Result<Option<String>, SearchError> {
        // No search reads the doc store, so no failing read would find it
        // corrupt: its checksums are checked here, once per commit.
        let checked = self
            .index
            .verify_doc_store()
            .and_then(|()| self.sync_waiting(sessions, reader, cancelled, &mut |_, _| {}, wait));
        match checked {
            Ok(_) => Ok(None),
            Err(e @ SearchError::StillIndexing(_)) => Err(e),
            Err(SearchError::Broken(why)) => {
                Ok(Some(match self.repair(&why, sessions, reader, cancelled) {
                    Ok(done) => done,
                    Err(e) => e.to_string(),
                }))
            }
            Err(e) => Ok(Some(e.to_string())),
        }
    }

    /// [`Search::sync`], and when another process holds the writer, what
    /// it commits is read until it covers `sessions` (its build shared,
    /// not repeated) or the writer is free to finish the work here; after
    /// `wait`, [`SearchError::StillIndexing`]. Cancelled: [`SearchError::Busy`].
    pub fn sync_waiting(
        &self,
        sessions: &dyn SessionList,
        reader: &dyn SessionReader,
        cancelled: Cancelled<'_>,
        progress: &mut dyn FnMut(usize, usize),
        wait: Duration,
    ) -> Result<SyncReport, SearchError> {
        let deadline = Instant::now() + wait;
        loop {
            match self.sync(sessions, reader, cancelled, progress) {
                Err(SearchError::Busy) => {}
                other => return other,
            }
            self.reload()?;
            let behind = writer::behind(&self.index, sessions, reader)?;
            if behind == 0 {
                return Ok(SyncReport::default());
            }
            if cancelled() {
                return Err(SearchError::Busy);
            }
            if Instant::now() >= deadline {
                return Err(SearchError::StillIndexing(behind));
            }
            // Another process, so nothing to wake on: its commits come
            // every few hundred sessions and at the end.
            std::thread::sleep(BUILD_POLL);
        }
    }

    /// A throwaway index in memory (the index turned off).
    pub fn in_memory() -> Result<Self, SearchError> {
        Ok(Search {
            index: SearchIndex::in_memory()?,
            writer_bytes: writer::WRITER_BYTES,
        })
    }

    /// Opens an existing index without creating or changing anything.
    pub fn open_existing(dir: &Path) -> Result<Option<Self>, SearchError> {
        Ok(SearchIndex::open_existing(dir)?.map(|index| Search {
            index,
            writer_bytes: writer::WRITER_BYTES,
        }))
    }

    /// This index with a writer of `bytes` (at least tantivy's least,
    /// 15 MB): a process that holds nothing else while it builds (the
    /// CLI's `search`) takes [`CLI_WRITER_BYTES`], fewer and larger
    /// segments; the language server keeps [`writer::WRITER_BYTES`].
    pub fn with_writer_budget(mut self, bytes: usize) -> Self {
        self.writer_bytes = bytes.max(writer::WRITER_BYTES);
        self
    }

    pub fn index(&self) -> &SearchIndex {
        &self.index
    }

    /// Brings the index up to date with `sessions` (see [`writer::sync`]).
    pub fn sync(
        &self,
        sessions: &dyn SessionList,
        reader: &dyn SessionReader,
        cancelled: Cancelled<'_>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SyncReport, SearchError> {
        if let Some(dir) = self.index.dir() {
            lifecycle::mark_used(dir);
        }
        let bytes = self.writer_bytes;
        self.checked(|| writer::sync(&self.index, sessions, reader, cancelled, progress, bytes))
    }

    /// Sees what another process committed since.
    pub fn reload(&self) -> Result<(), SearchError> {
        self.index.reload()
    }

    /// The index's status against `sessions`.
    pub fn status(&self, sessions: &dyn SessionList, reader: &dyn SessionReader) -> SearchStatus {
        let (indexed, behind, note) = match (
            self.index.manifest(),
            writer::behind(&self.index, sessions, reader),
        ) {
            (Ok(m), Ok(b)) => (m.len(), b, None),
            (Err(e), _) | (_, Err(e)) => (0, 0, Some(e.to_string())),
        };
        SearchStatus {
            enabled: true,
            path: self.index.dir().map(|d| d.display().to_string()),
            bytes: self.index.size(),
            sessions: indexed,
            behind,
            note,
        }
    }

    /// The sessions matching `query`, best first. A read error or a panic
    /// in the index has its files' checksums checked: a corrupt index is
    /// [`SearchError::Broken`], to be [`Search::rebuild`]t.
    pub fn search(
        &self,
        query: &ParsedQuery,
        options: SearchOptions<'_>,
    ) -> Result<Vec<SessionHit>, SearchError> {
        let found = self.checked(|| self.search_unchecked(query, options));
        // What searches read of the index stays mapped into this process
        // up to a bound, then only in the page cache (`paged.rs`): the
        // next search maps it again from there. A query of the prose bench
        // touches 9–12 MiB of its index, and mapping that again per search
        // cost 0.7–1 ms of its median (docs/performance.md).
        self.index.pages().release_above(SEARCH_PAGES_KEPT);
        found
    }

    /// Runs `work` on the index; a failure other than the query's, or a
    /// panic (tantivy panics on some corrupt files), has the checksums
    /// checked, and a corrupt file is told as such.
    fn checked<T>(&self, work: impl FnOnce() -> Result<T, SearchError>) -> Result<T, SearchError> {
        let failure = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
            Ok(Err(e @ (SearchError::Io(_) | SearchError::Broken(_)))) => e,
            Ok(done) => return done,
            Err(_) => SearchError::Io("the search index failed (a panic reading it)".into()),
        };
        Err(self.index.verify().err().unwrap_or(failure))
    }

    /// Moves a corrupt index aside and starts a new, empty one in its
    /// place (to be synced again); the old one's new name.
    pub fn rebuild(&mut self, now_ms: u64) -> Result<Option<PathBuf>, SearchError> {
        self.index = self.index.rebuilt(now_ms)?;
        Ok(self.index.moved_aside.clone())
    }

    /// After [`SearchError::Broken`] (`why`): the index moved aside, a new
    /// one built from `sessions`; what a person should be told.
    pub fn repair(
        &mut self,
        why: &str,
        sessions: &dyn SessionList,
        reader: &dyn SessionReader,
        cancelled: Cancelled<'_>,
    ) -> Result<String, SearchError> {
        tracing::warn!("the search index is unusable ({why}); rebuilding");
        let aside = self.rebuild(now_ms())?;
        self.sync(sessions, reader, cancelled, &mut |_, _| {})?;
        Ok(match aside {
            Some(aside) => format!(
                "the search index was unusable and was rebuilt ({why}; the old one is in {})",
                aside.display()
            ),
            None => format!("the search index was unusable and was rebuilt ({why})"),
        })
    }

    fn search_unchecked(
        &self,
        query: &ParsedQuery,
        options: SearchOptions<'_>,
    ) -> Result<Vec<SessionHit>, SearchError> {
        let searcher = self.index.reader.searcher();
        let f = &self.index.fields;
        let wanted = options.limit.saturating_mul(DOCS_PER_RESULT).max(MIN_DOCS);
        // First, sessions with every word in one message (or the titles),
        // in the order of their best message.
        // Closeness is scored when the rarest of the words is in at most
        // NEAR_MOST_DOCS messages.
        let rare = |terms: &[Term]| {
            terms
                .iter()
                .map(|t| searcher.doc_freq(t).unwrap_or(u64::MAX))
                .min()
                .is_some_and(|n| n <= NEAR_MOST_DOCS)
        };
        let tantivy_query = query::build_near(query, f, &rare);
        let top = searcher.search(
            &tantivy_query,
            &TopDocs::with_limit(wanted).order_by_score(),
        )?;
        let mut order: Vec<String> = Vec::new();
        let mut found: HashMap<String, Found> = HashMap::new();
        let mut columns = Columns::new(&searcher, f);
        for (score, address) in top {
            let Some(id) = columns.session(address) else {
                continue;
            };
            if options.exists.is_some_and(|exists| !exists(&id)) {
                continue;
            }
            let entry = found.entry(id).or_insert_with_key(|id| {
                order.push(id.clone());
                Found::default()
            });
            entry.score = entry.score.max(score);
            entry.others += score;
            if entry.places.len() < SNIPPETS {
                entry.places.push(columns.place(address));
            }
        }
        let mut hits = Vec::with_capacity(order.len());
        let mut docs: HashMap<String, (Vec<Place>, u64)> = HashMap::new();
        for id in order {
            let Some(found) = found.remove(&id) else {
                continue;
            };
            // The best document counts whole; the others add a little
            // (a session that talks about it often is likelier the one).
            let score = found.score + 0.1 * (found.others - found.score);
            if let Some((hit, version)) = self.hit(&searcher, &mut columns, &options, id, score)? {
                docs.insert(hit.session_id.clone(), (found.places, version));
                hits.push(hit);
            }
        }
        sort_hits(&mut hits);
        // Then, when there is room, sessions whose messages together hold
        // every word (across messages, by another form, with a typo).
        if hits.len() < options.limit && query.has_words() {
            let seen: HashSet<String> = hits.iter().map(|h| h.session_id.clone()).collect();
            let mut more = Vec::new();
            for (id, score, found) in
                across::sessions(&searcher, f, query, &seen, wanted, &options)?
            {
                if let Some((hit, version)) =
                    self.hit(&searcher, &mut columns, &options, id, score)?
                {
                    docs.insert(hit.session_id.clone(), (found, version));
                    more.push(hit);
                }
            }
            sort_hits(&mut more);
            hits.extend(more);
        }
        hits.truncate(options.limit);
        if query.has_words() {
            if let Some(texts) = options.texts {
                for hit in &mut hits {
                    let (found, version) = docs.remove(&hit.session_id).unwrap_or_default();
                    hit.snippets = self.snippets(hit, &found, version, query, texts);
                }
            }
        }
        Ok(hits)
    }

    /// The snippets of `hit` from its best documents `found`: a title's
    /// from the session document, a message's from its log read again
    /// (left out when the log changed since it was indexed, `version`, and
    /// no longer shows a match there).
    fn snippets(
        &self,
        hit: &SessionHit,
        found: &[Place],
        version: u64,
        query: &ParsedQuery,
        texts: Texts<'_>,
    ) -> Vec<Snippet> {
        let (exact, prefix) = query.terms();
        let seqs: Vec<u64> = found
            .iter()
            .filter(|place| place.turn > 0)
            .map(|place| place.seq)
            .collect();
        let (read, now) = texts.read(&hit.session_id, &seqs, &|| false);
        let unchanged = now == Some(version);
        found
            .iter()
            .filter_map(|place| {
                let (turn, role) = (place.turn, place.role.as_str());
                let text = if turn == 0 {
                    let titles: Vec<&str> = hit
                        .title
                        .as_deref()
                        .into_iter()
                        .chain(hit.display_title.as_deref())
                        .collect();
                    titles.join("\n")
                } else {
                    read.get(&place.seq)?.clone()
                };
                let made = snippet::make(turn, role, &text, &exact, prefix.as_deref());
                (unchanged || !made.ranges.is_empty()).then_some(made)
            })
            .collect()
    }

    /// The hit of session `id` scored `score` (before the workspace's and
    /// recency's boosts), without its snippets (read after the ranking,
    /// for the hits kept), and the session's indexed version; `None` when
    /// its session document is gone.
    fn hit(
        &self,
        searcher: &Searcher,
        columns: &mut Columns<'_>,
        options: &SearchOptions<'_>,
        id: String,
        mut score: f32,
    ) -> Result<Option<(SessionHit, u64)>, SearchError> {
        let Some(address) = session_doc(searcher, self, &id)? else {
            return Ok(None);
        };
        let SessionFacts {
            created_at,
            version,
            title,
            display_title,
            cwd,
            agent,
        } = columns.session_facts(address);
        if options.workspace.is_some() && cwd.as_deref() == options.workspace {
            score *= WORKSPACE_BOOST;
        }
        let age = options.now_ms.saturating_sub(created_at) as f64;
        score *= 1.0 + RECENCY_BOOST * (0.5f64.powf(age / RECENCY_HALF_LIFE_MS)) as f32;
        let label = display_title
            .as_deref()
            .or(title.as_deref())
            .unwrap_or(&id)
            .to_string();
        let hit = SessionHit {
            mention: mention::format(&id, Some(&label)),
            session_id: id,
            title,
            display_title,
            agent,
            cwd,
            created_at,
            score,
            snippets: Vec::new(),
        };
        Ok(Some((hit, version)))
    }
}

/// Best first; a tie goes to the newer session, then to the smaller id.
fn sort_hits(hits: &mut [SessionHit]) {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.created_at.cmp(&a.created_at))
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
}

/// What the best documents say of one session.
#[derive(Default)]
struct Found {
    score: f32,
    /// The sum of every matching document's score.
    others: f32,
    /// Where its best documents sit (for the snippets).
    places: Vec<Place>,
}

/// Where the session document of `id` is.
fn session_doc(
    searcher: &Searcher,
    search: &Search,
    id: &str,
) -> Result<Option<DocAddress>, SearchError> {
    let f = &search.index.fields;
    let query = TermQuery::new(
        Term::from_field_text(f.session_doc, id),
        IndexRecordOption::Basic,
    );
    let top: Vec<(f32, DocAddress)> =
        searcher.search(&query, &TopDocs::with_limit(1).order_by_score())?;
    Ok(top.first().map(|&(_, address)| address))
}

#[cfg(test)]
mod tests;
