//! The sessions this server offers: the live index (the core's, as the
//! language server's), the settings and the spill directory of the CLI's
//! `prepare`, behind the calls the protocol makes. Every call here blocks
//! (it reads logs): callers run it off the async workers, on the one view
//! the request took.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::config::settings::Settings;
use crate::live::{context_of, CachedSource, LiveIndex, SnapshotCache, View};
use crate::reference::candidates::{Candidate, Target};
use crate::reference::full_snapshot::SpillStore;
use crate::reference::prepare::{prepare_text, Cancelled, PrepareOptions};
use crate::reference::{ErrorCode, ReferenceError};
use crate::search::{Followed, Live, SearchOptions, SessionHit};
use crate::spill::Spill;

use super::uri;

/// A listed session: its candidate, the agent whose log it is, and its
/// resource URI.
#[derive(Debug, Clone)]
pub struct Listed {
    pub candidate: Candidate,
    pub agent: &'static str,
    pub uri: String,
}

/// Which view a request reads ([`Sessions::view_for`]).
#[derive(Debug, Clone)]
pub enum Need {
    /// Only lists or completes titles and ids: the view the store listed
    /// from its record serves, before every log is checked (a warm start
    /// answers its first page at once; a change is announced after).
    Listing,
    /// Reads session `id`: the recorded view while its log is as
    /// recorded, else the checked one.
    Session(String),
    /// Reads or searches any session: the first index, every log checked.
    Checked,
}

pub struct Sessions {
    settings: Settings,
    spill: Option<Spill>,
    /// The sessions, live: a request reads the view it took once.
    index: Arc<LiveIndex>,
    /// Logs read while unchanged are read once (`read` then `prepare`).
    cache: SnapshotCache,
    /// Each session's slug, made once: Claude Code attaches a mention only
    /// while its URI is listed, so a URI must not change when a title does.
    slugs: Mutex<HashMap<String, String>>,
    /// The full-text index, opened by the first `search_sessions`.
    search: Live,
}

impl Sessions {
    pub fn new(
        settings: Settings,
        spill: Option<Spill>,
        index: Arc<LiveIndex>,
        search_on_disk: bool,
    ) -> Self {
        Self {
            settings,
            spill,
            index,
            cache: SnapshotCache::default(),
            slugs: Mutex::default(),
            search: Live::new(search_on_disk),
        }
    }

    /// The sessions `need` asks for, as soon as they serve it.
    pub async fn view_for(&self, need: &Need) -> Arc<View> {
        match need {
            Need::Listing => {
                self.index.listed().await;
                self.index.view()
            }
            Need::Session(id) => self.index.view_to_read(id).await,
            Need::Checked => {
                self.index.ready().await;
                self.index.view()
            }
        }
    }

    /// The sessions whose messages or titles match `query` (the search
    /// language of `hydra-session-lsp search`), the workspace `cwd` first.
    /// The search index is brought up to date with `view` first (once per
    /// view: its generation says when the store changed).
    pub fn search(
        &self,
        view: &View,
        cwd: Option<&str>,
        query: &str,
        limit: usize,
        cancelled: Cancelled<'_>,
    ) -> Result<Vec<SessionHit>, ReferenceError> {
        let parsed = crate::search::parse_query(query)
            .map_err(|e| ReferenceError::new(ErrorCode::InvalidReference, e.to_string()))?;
        let reader = view
            .reader
            .clone()
            .ok_or_else(|| ReferenceError::read_failed("the session index is unavailable"))?;
        let exists = |id: &str| view.get(id).is_some();
        let session = |id: &str| view.get(id);
        let options = SearchOptions {
            limit,
            workspace: cwd,
            now_ms: crate::search::now_ms(),
            exists: Some(&exists),
            texts: Some(crate::search::Texts {
                session: &session,
                reader: reader.as_ref(),
            }),
        };
        let followed = Followed {
            specs: &self.settings.stores,
            state: Some(view.generation),
            sessions: view.sessions(),
            reader: reader.as_ref(),
        };
        self.search
            .search(
                &followed,
                &parsed,
                options,
                cancelled,
                Some(crate::search::WAIT_FOR_BUILD),
                &mut |note| tracing::warn!("{note}"),
            )
            .map_err(ReferenceError::read_failed)
    }

    /// The candidates for `query`, ranked for the workspace `cwd` by the
    /// view's own table (no store is ranked again per list).
    pub fn list(
        &self,
        view: &View,
        cwd: Option<&str>,
        query: &str,
        limit: u64,
    ) -> Result<Vec<Listed>, ReferenceError> {
        let target = Target {
            session_id: self.settings.self_id.as_deref(),
            cwd,
        };
        let ranked = view.candidates(target, query, limit as usize)?;
        Ok(ranked
            .items
            .into_iter()
            .map(|candidate| Listed {
                agent: candidate.format,
                uri: self.uri(&candidate),
                candidate,
            })
            .collect())
    }

    /// The resource URI; its slug comes from what names the session when
    /// this server first lists it — the durable display title, else the
    /// title (for most agents, made from the first prompt), else the id —
    /// and stays for the server's life.
    fn uri(&self, c: &Candidate) -> String {
        let made = || {
            let source = c.display_title.as_deref().unwrap_or(&c.label);
            uri::slug(source)
        };
        let slug = match self.slugs.lock() {
            Ok(mut slugs) => slugs
                .entry(c.session_id.clone())
                .or_insert_with(made)
                .clone(),
            Err(_) => made(),
        };
        uri::resource_uri(&slug, &c.session_id)
    }

    /// The context `prepare` gives a message citing only this session by
    /// its canonical mention: the `additionalContext` text, spill included,
    /// asked of the core by id.
    pub fn context(
        &self,
        view: &View,
        id: &str,
        cancelled: Cancelled<'_>,
    ) -> Result<String, ReferenceError> {
        let source = self.source(view);
        context_of(&source, id, self.options(), self.spill(), cancelled)
    }

    /// `prepare --format text` of a message.
    pub fn prepare_text_form(
        &self,
        view: &View,
        text: &str,
        cancelled: Cancelled<'_>,
    ) -> Result<String, ReferenceError> {
        let source = self.source(view);
        let prepared = prepare_text(text, self.options(), &source, self.spill(), cancelled)?;
        Ok(prepared.text_form())
    }

    /// `view`'s sessions read through this server's snapshot cache; a
    /// team store's snapshot is fetched (bounded) when asked, as any read
    /// would.
    fn source<'a>(&'a self, view: &'a View) -> CachedSource<'a> {
        CachedSource {
            view,
            cache: &self.cache,
            fetches: None,
        }
    }

    fn options(&self) -> PrepareOptions<'_> {
        PrepareOptions {
            target: self.settings.self_id.as_deref(),
            max_references: self.settings.limits.max_references,
            max_reference_bytes: self.settings.limits.max_reference_bytes,
        }
    }

    fn spill(&self) -> Option<&dyn SpillStore> {
        self.spill.as_ref().map(|s| s as &dyn SpillStore)
    }
}
