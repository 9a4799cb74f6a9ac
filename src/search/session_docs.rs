//! The documents of one session, written as its surface comes message by
//! message (surface.rs): each message's document as it comes, the session
//! document at the end, once its message count, surface hash and
//! session-level terms are known. Nothing of a message is kept once its
//! document is queued.

use std::hash::Hasher;
use std::sync::Arc;

use rustc_hash::FxHasher;
use tantivy::{doc, IndexWriter, Term};

use super::backlog::{Backlog, Queued};
use super::error::SearchError;
use super::report::SyncReport;
use super::schema::{self, cwd_ancestors, Fields};
use super::session_terms::SessionTerms;
use super::surface::SurfaceMessage;
use crate::model::{Cancelled, ReadSummary, Session};

/// A document's own bytes beside its texts (its fields' values and
/// addresses), as the writer's queue counts them ([`super::backlog`]).
const DOC_BYTES: usize = 128;

/// Where the documents go.
#[derive(Clone, Copy)]
pub struct Out<'a> {
    pub writer: &'a IndexWriter<Queued>,
    pub backlog: &'a Arc<Backlog>,
    pub fields: &'a Fields,
    pub cancelled: Cancelled<'a>,
}

impl Out<'_> {
    /// Removes every document of session `id` queued before.
    pub fn delete_session(&self, id: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.session, id));
    }

    /// Removes the session document of session `id` queued before (its
    /// messages' stay).
    pub fn delete_session_doc(&self, id: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.session_doc, id));
    }

    fn add(&self, doc: tantivy::TantivyDocument, bytes: usize) -> Result<(), SearchError> {
        self.writer
            .add_document(self.backlog.admit(doc, bytes, self.cancelled))?;
        Ok(())
    }
}

/// What every document of the session says of it.
pub struct Meta<'a> {
    pub id: &'a str,
    pub agent: &'static str,
    pub version: u64,
    pub created_at: u64,
    pub title: Option<&'a str>,
    pub label: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub cwd_paths: Vec<String>,
}

impl<'a> Meta<'a> {
    /// What `session`, read as `summary`, says of itself.
    pub fn of(session: &'a Session, summary: &'a ReadSummary, version: u64) -> Self {
        let cwd = summary
            .header
            .cwd
            .as_deref()
            .or(session.header.cwd.as_deref());
        Meta {
            id: session.id(),
            agent: session.locator.format,
            version,
            created_at: summary.header.created_at,
            title: summary.title.as_deref().or(session.title.as_deref()),
            label: summary.header.label.as_deref(),
            cwd,
            cwd_paths: cwd.map(cwd_ancestors).unwrap_or_default(),
        }
    }
}

/// Which of the session's messages get documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The messages from this one (0: all).
    From(usize),
    /// Those after the first `messages`, if these are the ones indexed
    /// before (their hash is `hash`): an append.
    IfPrefix { messages: usize, hash: u64 },
    /// The messages indexed before are not the first ones now: none (the
    /// session must be indexed again).
    Mismatch,
}

/// How a session's documents ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Written; `appended`: the session document of a session whose
    /// earlier messages stay was replaced.
    Written { appended: bool },
    /// The messages indexed before are not the first ones now: nothing of
    /// the session was written but what must be deleted with it.
    Reindex,
}

/// The hash of a surface's first messages (role and text), so an append
/// is recognised by the hash of the prefix indexed before.
#[derive(Clone, Default)]
pub struct SurfaceHash(FxHasher);

impl SurfaceHash {
    pub fn add(&mut self, m: SurfaceMessage<'_>) {
        let h = &mut self.0;
        h.write(m.role.as_str().as_bytes());
        h.write_u8(u8::from(m.checkpoint));
        h.write_usize(m.text.len());
        h.write(m.text.as_bytes());
    }

    pub fn value(&self) -> u64 {
        self.0.finish()
    }
}

/// Writes one session's documents as its surface comes.
pub struct SessionDocs<'a> {
    out: Out<'a>,
    meta: &'a Meta<'a>,
    terms: &'a mut SessionTerms,
    report: &'a mut SyncReport,
    start: Start,
    appended: bool,
    count: usize,
    hash: SurfaceHash,
    /// The first failure to queue a document: nothing more is written.
    error: Option<SearchError>,
}

impl<'a> SessionDocs<'a> {
    pub fn new(
        out: Out<'a>,
        meta: &'a Meta<'a>,
        start: Start,
        terms: &'a mut SessionTerms,
        report: &'a mut SyncReport,
    ) -> Self {
        terms.begin();
        SessionDocs {
            out,
            meta,
            terms,
            report,
            start,
            appended: false,
            count: 0,
            hash: SurfaceHash::default(),
            error: None,
        }
    }

    /// The next message of the surface.
    pub fn message(&mut self, m: SurfaceMessage<'_>) {
        self.decide();
        self.hash.add(m);
        self.count += 1;
        // Every message's terms, not only the new ones': the session
        // document is replaced whole on an append.
        self.terms.add(m.text);
        let turn = self.count;
        let wanted = matches!(self.start, Start::From(first) if turn > first);
        if !wanted || self.error.is_some() {
            return;
        }
        let f = self.out.fields;
        let meta = self.meta;
        let mut message_doc = doc!(
            f.kind => schema::MESSAGE,
            f.session => meta.id,
            f.role => m.role.as_str(),
            f.turn => turn as u64,
            f.time => meta.created_at,
            f.agent => meta.agent,
            f.text => m.text,
            f.seq => m.seq,
        );
        for path in &meta.cwd_paths {
            message_doc.add_text(f.cwd_path, path);
        }
        let bytes =
            DOC_BYTES + m.text.len() + meta.cwd_paths.iter().map(String::len).sum::<usize>();
        self.report.text_bytes += m.text.len() as u64;
        self.report.messages += 1;
        if let Err(e) = self.out.add(message_doc, bytes) {
            self.error = Some(e);
        }
    }

    /// Once the first `messages` came, whether they are the ones indexed
    /// before.
    fn decide(&mut self) {
        let Start::IfPrefix { messages, hash } = self.start else {
            return;
        };
        if self.count != messages {
            return;
        }
        if self.hash.value() == hash {
            self.out.delete_session_doc(self.meta.id);
            self.appended = true;
            self.start = Start::From(messages);
        } else {
            self.start = Start::Mismatch;
        }
    }

    /// Writes the session document, after every message.
    pub fn finish(mut self) -> Result<Outcome, SearchError> {
        self.decide();
        if let Some(e) = self.error {
            return Err(e);
        }
        if !matches!(self.start, Start::From(_)) {
            return Ok(Outcome::Reindex);
        }
        let f = self.out.fields;
        let meta = self.meta;
        let mut session_doc = doc!(
            f.kind => schema::SESSION,
            f.session => meta.id,
            f.session_doc => meta.id,
            f.role => schema::TITLE_ROLE,
            f.turn => 0u64,
            f.time => meta.created_at,
            f.agent => meta.agent,
            f.version => meta.version,
            f.messages => self.count as u64,
            f.surface_hash => self.hash.value(),
        );
        let titles: Vec<&str> = meta.title.into_iter().chain(meta.label).collect();
        session_doc.add_text(f.text, titles.join("\n"));
        if let Some(title) = meta.title {
            session_doc.add_text(f.title, title);
        }
        if let Some(label) = meta.label {
            session_doc.add_text(f.display_title, label);
        }
        if let Some(cwd) = meta.cwd {
            session_doc.add_text(f.cwd, cwd);
        }
        for path in &meta.cwd_paths {
            session_doc.add_text(f.cwd_path, path);
        }
        for title in &titles {
            self.terms.add(title);
        }
        let (words, stems) = self.terms.finish();
        session_doc.add_text(f.words, &words);
        session_doc.add_text(f.stems, &stems);
        let bytes = DOC_BYTES
            + words.len()
            + stems.len()
            + 2 * titles.iter().map(|t| t.len()).sum::<usize>()
            + meta.cwd.map_or(0, str::len)
            + meta.cwd_paths.iter().map(String::len).sum::<usize>();
        drop((words, stems));
        self.out.add(session_doc, bytes)?;
        Ok(Outcome::Written {
            appended: self.appended,
        })
    }
}
