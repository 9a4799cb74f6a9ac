//! The state of one Qwen Code chat file as its records are read: what the
//! store's scan needs in a few fields, and for a full read also the
//! records' [`Chain`] (a few integers per record).

use super::chain::Chain;
use super::record::{self, Kind, Line, Record};
use super::unverified;
use crate::formats::text;
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Role, SessionHeader};

/// One chat file's state.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    file_modified: Option<u64>,
    /// Elements or lines read, skipped, the one not UTF-8, and why the
    /// log is no session (what every tracker counts alike).
    tally: Tally,
    /// Line 1's `sessionId`, once line 1 satisfied rule (6a).
    id: Option<String>,
    first_time: Option<u64>,
    earliest: Option<u64>,
    cwd: Option<String>,
    has_message: bool,
    first_prompt: Option<String>,
    custom_title: Option<String>,
    capacity: Option<u64>,
    header: Option<SessionHeader>,
    /// The records' chain, kept by a full read only.
    chain: Option<Chain>,
}

/// The surface role of a record by the message rules, before its text:
/// `user` and `assistant` records that are no sub-agent's and, for
/// `user`, not system-generated.
pub fn surface_role(r: &Record<'_>) -> Option<Role> {
    if r.is_sidechain {
        return None;
    }
    match r.kind {
        Kind::User => {
            let generated = r
                .subtype
                .as_deref()
                .is_some_and(|s| unverified::SYSTEM_GENERATED_USER.contains(&s));
            (!generated).then_some(Role::User)
        }
        Kind::Assistant => Some(Role::Assistant),
        _ => None,
    }
}

/// Whether `r` is the compaction a chain may end at: a `system` record
/// with subtype `chat_compression` and an array `compressedHistory`.
pub fn is_compression(r: &Record<'_>) -> bool {
    r.kind == Kind::System
        && r.subtype.as_deref() == Some("chat_compression")
        && r.compressed.is_some()
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Qwen Code chat: no complete line";

    tracker_parts!(file_modified, tally_and_header, for_scan);

    fn for_read() -> Self {
        Tracker {
            chain: Some(Chain::default()),
            ..Tracker::default()
        }
    }

    fn line(&mut self, raw: &[u8], _sink: &mut dyn FnMut(Entry<'_>)) {
        self.tally.lines += 1;
        if self.is_done() {
            return;
        }
        if simdutf8::basic::from_utf8(raw).is_err() {
            self.tally.failure = Some(self.tally.lines);
            if self.id.is_some() {
                self.settle(true);
            }
            return;
        }
        if self.tally.lines == 1 && !record::is_first_record(raw) {
            self.tally.not_session = Some(
                "not a Qwen Code chat: line 1 is no ChatRecord of its own shape (rule 6a)".into(),
            );
            return;
        }
        let r = match record::parse(raw) {
            Line::Record(r) => r,
            Line::Blank => return,
            Line::NotARecord => {
                self.tally.skipped += 1;
                return;
            }
        };
        if self.tally.lines == 1 {
            self.id = r.session_id.as_deref().map(str::to_string);
            self.first_time = r.timestamp;
        }
        if let Some(t) = r.timestamp {
            self.earliest = Some(self.earliest.map_or(t, |e| e.min(t)));
        }
        let known = (self.has_message, self.cwd.is_some());
        if self.cwd.is_none() {
            self.cwd = r.cwd.as_deref().map(str::to_string);
        }
        let role = surface_role(&r);
        let shown = r.text.as_deref().filter(|t| !t.trim().is_empty());
        if let (Some(role), Some(text)) = (role, shown) {
            self.has_message = true;
            if role == Role::User && self.first_prompt.is_none() {
                self.first_prompt = text::prompt_title(&text::person_text(text.into()));
            }
        }
        if r.kind == Kind::System && r.subtype.as_deref() == Some("custom_title") {
            if let Some(title) = &r.custom_title {
                self.custom_title = Some(title.clone());
            }
        }
        if r.kind == Kind::Assistant {
            if let Some(window) = r.context_window {
                self.capacity = Some(window);
            }
        }
        if let Some(chain) = &mut self.chain {
            chain.record(
                self.tally.lines,
                &r.uuid,
                r.parent_uuid.as_deref(),
                role,
                is_compression(&r),
            );
        }
        // Line 1 dates the session; without a time there, the earliest
        // record's, which any line may still lower.
        let undated = self.first_time.is_none();
        if self.has_message && (known != (self.has_message, self.cwd.is_some()) || undated) {
            self.settle(false);
        }
    }

    /// The last `custom_title`, else the first user message cut to 80.
    fn title(&self) -> Option<String> {
        self.custom_title
            .clone()
            .or_else(|| self.first_prompt.clone())
    }

    fn capacity(&self) -> Option<u64> {
        self.capacity
    }
}

impl Tracker {
    fn settle(&mut self, failed: bool) {
        let Some(id) = &self.id else {
            return;
        };
        if !self.has_message && !failed {
            return;
        }
        self.header = Some(SessionHeader {
            version: 0,
            id: id.clone(),
            created_at: self
                .first_time
                .or(self.earliest)
                .or(self.file_modified)
                .unwrap_or(0),
            cwd: self.cwd.clone(),
            label: None,
        });
    }

    /// The chain a full read kept, once every line was read.
    pub fn take_chain(&mut self) -> Option<Chain> {
        self.chain.take()
    }
}
