//! What the catalog knows of one log file between scans.

use std::borrow::Cow;

use super::record::Cached;
use super::stamp::Stamp;
use crate::formats::{HeaderState, LogFormat, ScanMeta, Scanner};
use crate::model::SessionHeader;

/// What the catalog knows of one file. Kept small: a store may hold
/// 100,000 logs. The file's name is its key (its path is the root joined
/// with it); what the log is lives in its scanner, not in a copy.
#[derive(Debug, Clone)]
pub(super) struct FileState {
    pub(super) stamp: Stamp,
    pub(super) format: Option<&'static dyn LogFormat>,
    pub(super) found: Found,
    /// How far the scanner was fed: every complete line up to here.
    pub(super) consumed: u64,
    /// Whether the scanner saw every line (not only up to the header).
    pub(super) full: bool,
    /// Whether this file holds the first session of its id (by name).
    pub(super) winner: bool,
    /// The first line's length and hash once complete: a log rewritten in
    /// place with another header (same inode, grown) is read again, not
    /// resumed. `(0, 0)` when not known.
    pub(super) first_line: (u32, u64),
    /// Whether the stamp cannot vouch for what was read ([`racy_read`]):
    /// such a state is read again even when its stamp is unchanged, until
    /// a read comes after [`Stamp::RACY`].
    pub(super) racy: bool,
}

/// What a scan of one file found.
#[derive(Debug, Clone)]
pub(super) enum Found {
    /// No session: no scanner was started, or it has nothing more to say
    /// (no format, unreadable, not a session, nothing complete yet).
    Not(Box<HeaderState>),
    /// The format's scanner, which resumes after an append.
    Scanner(Box<dyn Scanner>),
    /// What a scan recorded, without its scanner, as the index cache holds
    /// it (decoded when asked): any change of the file scans it again from
    /// the start.
    Cached(Cached),
}

impl FileState {
    /// Whether this state stands for the file as `stamp` says it is now:
    /// the same stamp, and one that vouches for what was read.
    pub(super) fn is_current(&self, stamp: &Stamp) -> bool {
        self.stamp == *stamp && !self.racy
    }

    pub(super) fn session_header(&self) -> Option<Cow<'_, SessionHeader>> {
        match &self.found {
            Found::Not(_) => None,
            Found::Scanner(s) => match s.header_ref() {
                Some(h) => Some(Cow::Borrowed(h)),
                None => match s.header() {
                    HeaderState::Session(h) => Some(Cow::Owned(h)),
                    _ => None,
                },
            },
            Found::Cached(c) => match c.header() {
                HeaderState::Session(h) => Some(Cow::Owned(h)),
                _ => None,
            },
        }
    }

    /// The session's id, borrowed where the state lends it (a cached one
    /// is not decoded).
    pub(super) fn session_id(&self) -> Option<Cow<'_, str>> {
        match &self.found {
            Found::Cached(c) => c.session_id().map(Cow::Borrowed),
            _ => match self.session_header()? {
                Cow::Borrowed(h) => Some(Cow::Borrowed(h.id.as_str())),
                Cow::Owned(h) => Some(Cow::Owned(h.id)),
            },
        }
    }

    /// The session's header and metadata, decoding a cached state once.
    pub(super) fn session(&self) -> Option<(SessionHeader, ScanMeta)> {
        match &self.found {
            Found::Cached(c) => c.session(),
            _ => Some((self.session_header()?.into_owned(), self.meta())),
        }
    }

    pub(super) fn header(&self) -> HeaderState {
        match &self.found {
            Found::Not(h) => (**h).clone(),
            Found::Scanner(s) => s.header(),
            Found::Cached(c) => c.header(),
        }
    }

    pub(super) fn meta(&self) -> ScanMeta {
        match &self.found {
            Found::Not(_) => ScanMeta::default(),
            Found::Scanner(s) => s.meta(),
            Found::Cached(c) => c.meta(),
        }
    }

    /// Whether an append can be fed to the scanner.
    pub(super) fn resumable(&self) -> bool {
        self.full && matches!(&self.found, Found::Scanner(s) if s.resumable())
    }
}

/// Whether a read now of the log named `name` (its path or its name in
/// the root) cannot trust its `stamp` to show a later write: a JSON
/// document (Gemini CLI's `session-*.json`, Copilot Chat's, Cline's,
/// Continue's) is rewritten in place by its agent, and a write in the
/// same timestamp tick at the same size changes no field of the stamp, so
/// a document seen half-written and completed so would stay half for ever
/// (issue 27 item 15). A line log only grows, and its growth shows.
pub(super) fn racy_read(name: &[u8], stamp: &Stamp) -> bool {
    name.ends_with(b".json") && stamp.is_racy()
}

/// Why a log that holds no complete header yet is not a session.
pub(super) fn pending_reason(size: u64, consumed: u64) -> &'static str {
    if size == 0 {
        "empty file"
    } else if consumed == 0 {
        "line 1 is not ended by a newline"
    } else {
        // Complete lines were read, and none made it a session (a Claude
        // Code transcript with no `sessionId`, for instance).
        "no complete line identifies a session"
    }
}
