//! A session as a store lists it: who it is and where to read it.

use std::sync::Arc;

/// What identifies and describes a session, from its log's first lines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SessionHeader {
    /// The log format's generation (`capturedFormatVersion`; 0 = none).
    pub version: u64,
    /// The opaque session id. Never turned into a path.
    pub id: String,
    /// Creation time, Unix epoch milliseconds.
    pub created_at: u64,
    /// The working directory, compared as an exact string.
    pub cwd: Option<String>,
    /// The durable display title (a subagent's creation label); non-empty
    /// when present.
    pub label: Option<String>,
}

/// Where a session lives, as only its store understands it: the store's
/// position in the store list and the log's name inside that store.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Locator {
    pub store: usize,
    /// The log's format, by name.
    pub format: &'static str,
    /// The log's name relative to its store (`/`-separated bytes).
    pub name: Arc<[u8]>,
}

impl Locator {
    /// The log's name for messages.
    pub fn display(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}

/// A session of the store (the winner for its id).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Session {
    pub header: SessionHeader,
    pub locator: Locator,
    /// The latest non-empty title; `None` when there is none or the log
    /// cannot be read.
    pub title: Option<String>,
    /// The model capacity the log records, in tokens.
    pub capacity: Option<u64>,
    /// Why the last read of the whole log failed, when it did.
    pub unreadable: Option<String>,
    /// Lines a lenient format skipped.
    pub skipped_lines: u64,
    /// What the store's change detection saw of the log when it listed
    /// the session, as [`crate::model::Version::token`] of the reader's
    /// stamp; 0 when the store keeps none (then the reader is asked). The
    /// search index compares it, so checking 100,000 sessions takes no
    /// system call.
    pub stamp: u64,
}

impl Session {
    /// `title ?? id`: the candidate label.
    pub fn label(&self) -> &str {
        self.key().candidate_label()
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.header.id
    }
}

/// What ranking and matching a session need, borrowed from a store's index:
/// a store can offer it before it builds the [`Session`] (a store of
/// 100,000 logs then builds only the few a list keeps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionKey<'a> {
    pub id: &'a str,
    pub created_at: u64,
    pub cwd: Option<&'a str>,
    /// The header's label.
    pub label: Option<&'a str>,
    /// The title, as [`Session::title`].
    pub title: Option<&'a str>,
}

impl<'a> SessionKey<'a> {
    /// `title ?? id`: the candidate label ([`Session::label`]).
    pub fn candidate_label(&self) -> &'a str {
        self.title.unwrap_or(self.id)
    }
}

impl Session {
    pub fn key(&self) -> SessionKey<'_> {
        SessionKey {
            id: &self.header.id,
            created_at: self.header.created_at,
            cwd: self.header.cwd.as_deref(),
            label: self.header.label.as_deref(),
            title: self.title.as_deref(),
        }
    }
}

/// Takes sessions from a store, saying first, from each one's key, whether
/// it wants the session at all.
pub trait SessionSink {
    fn wants(&self, key: SessionKey<'_>) -> bool;
    fn take(&mut self, session: Session);
}
