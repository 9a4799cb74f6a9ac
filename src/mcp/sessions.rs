//! The sessions this server offers: the store, the settings and the spill
//! directory of the CLI's `prepare`, behind the calls the protocol makes.
//! Every call here blocks (it reads logs): callers run it off the async
//! workers.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use crate::config::settings::Settings;
use crate::model::{Session, SessionStore};
use crate::reference::candidates::{self, Candidate, Target};
use crate::reference::full_snapshot::SpillStore;
use crate::reference::prepare::{prepare_text, unknown_session, Cancelled, PrepareOptions};
use crate::reference::preselect::Preselect;
use crate::reference::{ErrorCode, ReferenceError};
use crate::search::{Followed, Live, SearchOptions, SessionHit};
use crate::spill::Spill;
use crate::store::FsStore;

use super::uri;

/// A listed session: its candidate, the agent whose log it is, and its
/// resource URI.
#[derive(Debug, Clone)]
pub struct Listed {
    pub candidate: Candidate,
    pub agent: &'static str,
    pub uri: String,
}

pub struct Sessions {
    settings: Settings,
    spill: Option<Spill>,
    store: RwLock<FsStore>,
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
        store: FsStore,
        search_on_disk: bool,
    ) -> Self {
        Self {
            settings,
            spill,
            store: RwLock::new(store),
            slugs: Mutex::default(),
            search: Live::new(search_on_disk),
        }
    }

    /// The sessions whose messages or titles match `query` (the search
    /// language of `hydra-session-lsp search`), the workspace `cwd` first.
    /// The index is brought up to date first.
    pub fn search(
        &self,
        cwd: Option<&str>,
        query: &str,
        limit: usize,
        cancelled: Cancelled<'_>,
    ) -> Result<Vec<SessionHit>, ReferenceError> {
        let parsed = crate::search::parse_query(query)
            .map_err(|e| ReferenceError::new(ErrorCode::InvalidReference, e.to_string()))?;
        let store = self.read_store()?;
        let reader = store.reader();
        let exists = |id: &str| store.get(id).is_some();
        let options = SearchOptions {
            limit,
            workspace: cwd,
            now_ms: crate::search::now_ms(),
            exists: Some(&exists),
        };
        // The store is updated between calls, a debounce after its changes:
        // every log is checked every time, by the reader (a listed stamp
        // can be a second old; the reader sees an append at once).
        let unstamped = || {
            let mut sessions = store.sessions();
            sessions.iter_mut().for_each(|s| s.stamp = 0);
            sessions
        };
        let followed = Followed {
            specs: &self.settings.stores,
            state: None,
            sessions: &unstamped,
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

    /// Applies the store's pending changes; whether the sessions changed.
    pub fn update(&self) -> bool {
        self.store.write().is_ok_and(|mut store| store.update())
    }

    /// The candidates for `query`, ranked for the workspace `cwd`.
    pub fn list(
        &self,
        cwd: Option<&str>,
        query: &str,
        limit: u64,
    ) -> Result<Vec<Listed>, ReferenceError> {
        let store = self.read_store()?;
        let target = Target {
            session_id: self.settings.self_id.as_deref(),
            cwd,
        };
        let mut preselect = Preselect::new(target, query, limit)?;
        store.offer_sessions(&mut preselect);
        let kept = preselect.finish();
        let (ranked, _) = kept.rank(target, query, limit)?;
        Ok(ranked
            .iter()
            .map(|r| {
                let candidate = r.candidate();
                Listed {
                    agent: r.format(),
                    uri: self.uri(&candidate),
                    candidate,
                }
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

    /// The session with this id, if the store has it.
    pub fn get(&self, id: &str) -> Option<Session> {
        self.read_store().ok()?.get(id)
    }

    /// The context `prepare` gives a message citing only this session by
    /// its canonical mention: the `additionalContext` text, spill included.
    pub fn context(&self, id: &str, cancelled: Cancelled<'_>) -> Result<String, ReferenceError> {
        let session = self.get(id).ok_or_else(|| unknown_session(id))?;
        let mention = candidates::canonical_mention(&session);
        let prepared = self.prepare(&mention, cancelled)?;
        Ok(prepared.context_text().unwrap_or_default())
    }

    /// `prepare --format text` of a message.
    pub fn prepare_text_form(
        &self,
        text: &str,
        cancelled: Cancelled<'_>,
    ) -> Result<String, ReferenceError> {
        Ok(self.prepare(text, cancelled)?.text_form())
    }

    fn prepare(
        &self,
        text: &str,
        cancelled: Cancelled<'_>,
    ) -> Result<crate::reference::prepare::Prepared, ReferenceError> {
        let store = self.read_store()?;
        let options = PrepareOptions {
            target: self.settings.self_id.as_deref(),
            max_references: self.settings.limits.max_references,
            max_reference_bytes: self.settings.limits.max_reference_bytes,
        };
        let spill = self.spill.as_ref().map(|s| s as &dyn SpillStore);
        prepare_text(text, options, &*store, spill, cancelled)
    }

    fn read_store(&self) -> Result<std::sync::RwLockReadGuard<'_, FsStore>, ReferenceError> {
        self.store
            .read()
            .map_err(|_| ReferenceError::read_failed("the session index is unavailable"))
    }
}
