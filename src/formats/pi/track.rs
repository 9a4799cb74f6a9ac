//! The state of one Pi session file as its lines are read: what the
//! store's scan needs (id, createdAt, cwd, title) in a few fields, and for
//! a full read also the entries' tree ([`Tree`]), a few integers per entry.

use super::entry::{self, First, Kind, Line};
use super::tree::{Kept, Tree};
use crate::formats::text;
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Role, SessionHeader};

/// One session file's state.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    file_modified: Option<u64>,
    /// Elements or lines read, skipped, the one not UTF-8, and why the
    /// log is no session (what every tracker counts alike).
    tally: Tally,
    first: Option<entry::Header>,
    /// Lines that parsed as JSON, the header included: what a v1
    /// `firstKeptEntryIndex` counts.
    parsed: u64,
    earliest: Option<u64>,
    has_message: bool,
    first_prompt: Option<String>,
    /// The last `session_info` name.
    name: Option<String>,
    header: Option<SessionHeader>,
    /// The entries' tree, kept by a full read only.
    tree: Option<Tree>,
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Pi session: no complete line";

    tracker_parts!(file_modified, tally_and_header, for_scan);

    fn for_read() -> Self {
        Tracker {
            tree: Some(Tree::default()),
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
            // Listed still, once it is known to be a session file: its
            // read says why it fails.
            if self.first.is_some() {
                self.settle(true);
            }
            return;
        }
        let Some(header) = &self.first else {
            match entry::first(raw) {
                First::Session { header, .. } => {
                    self.first = Some(header);
                    self.parsed = 1;
                }
                First::Other => {
                    self.tally.not_session = Some(
                        "not a Pi session: line 1 is no header with type \"session\" and a string id"
                            .into(),
                    );
                }
            }
            return;
        };
        let tree_ids = header.tree;
        let line_no = self.tally.lines;
        let e = match entry::parse(raw) {
            Line::Entry(e) => e,
            Line::Blank => return,
            Line::NotAnEntry => {
                self.parsed += 1;
                self.tally.skipped += 1;
                return;
            }
            Line::NotJson => {
                self.tally.skipped += 1;
                return;
            }
        };
        self.parsed += 1;
        if tree_ids && e.id.is_none() {
            self.tally.skipped += 1;
            return;
        }
        if let Some(t) = e.timestamp {
            self.earliest = Some(self.earliest.map_or(t, |e| e.min(t)));
        }
        let known = self.has_message;
        let mut message = false;
        let mut kept = None;
        match &e.kind {
            Kind::Message(role, text) => {
                message = true;
                self.has_message = true;
                if *role == Role::User && self.first_prompt.is_none() {
                    self.first_prompt = text::prompt_title(text);
                }
            }
            Kind::Name(name) => self.name = Some(name.clone()),
            Kind::Compaction {
                first_kept_id,
                first_kept_index,
                ..
            } => {
                kept = Some(match (tree_ids, first_kept_id, first_kept_index) {
                    (true, Some(id), _) => Kept::Id(super::tree::id_hash(id)),
                    (false, _, Some(index)) => Kept::Index(*index),
                    _ => Kept::None,
                });
            }
            Kind::Silent => {}
        }
        if let Some(tree) = &mut self.tree {
            let parsed_index = self.parsed - 1;
            tree.record(
                line_no,
                parsed_index,
                e.id.as_deref(),
                e.parent_id.as_deref(),
                message,
                kept,
            );
        }
        // A header without a time of its own is dated by the earliest
        // entry, which any line may still lower.
        let undated = self.first.as_ref().is_some_and(|h| h.created_at.is_none());
        if self.has_message && (!known || undated) {
            self.settle(false);
        }
    }

    /// The last `session_info` name, else the first user message cut to 80.
    fn title(&self) -> Option<String> {
        self.name.clone().or_else(|| self.first_prompt.clone())
    }
}

impl Tracker {
    /// The header once a person's or the model's message was read (or a
    /// bad line, whose read says why).
    fn settle(&mut self, failed: bool) {
        let Some(first) = &self.first else {
            return;
        };
        if !self.has_message && !failed {
            return;
        }
        self.header = Some(SessionHeader {
            version: 0,
            id: first.id.clone(),
            created_at: first
                .created_at
                .or(self.earliest)
                .or(self.file_modified)
                .unwrap_or(0),
            cwd: first.cwd.clone(),
            label: None,
        });
    }

    /// The tree a full read kept, once every line was read.
    pub fn take_tree(&mut self) -> Option<Tree> {
        self.tree.take()
    }

    /// Whether entries form a tree by id (v2, v3) rather than a chain (v1).
    pub fn is_tree(&self) -> bool {
        self.first.as_ref().is_some_and(|h| h.tree)
    }
}
