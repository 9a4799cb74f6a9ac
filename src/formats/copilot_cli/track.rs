//! The state of one Copilot CLI session as its `events.jsonl` is read,
//! shared by the index scanner and the full read: one pass, each event its
//! own seq (its line number), a compaction a checkpoint in place.

use std::borrow::Cow;
use std::path::Path;

use super::event::{self, Line};
use super::workspace::Workspace;
use crate::formats::text;
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Event, Role, SessionHeader};

/// A compaction's checkpoint text when it recorded no summary.
pub const NO_SUMMARY: &str = "[earlier conversation compacted; no summary recorded]";

/// The file name of a session's log in its own folder.
pub const EVENTS: &str = "events.jsonl";

/// One session's state.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    pub file_modified: Option<u64>,
    /// `workspace.yaml` beside an `events.jsonl`.
    workspace: Option<Workspace>,
    /// Why this log is not read although it holds a session.
    shadowed: Option<String>,
    /// Lines taken and skipped, the line that fails the log, why it is
    /// no session.
    pub tally: Tally,
    header: Option<SessionHeader>,
    has_message: bool,
    first_prompt: Option<String>,
    pub capacity: Option<u64>,
}

impl Tracker {
    /// Learns the log's place: the `workspace.yaml` beside an
    /// `events.jsonl`, and whether an older `<id>.jsonl` has its session in
    /// `<id>/events.jsonl` beside it (agent-logs-more.md "One session, two
    /// layouts").
    pub fn place(&mut self, path: &Path) {
        let dir = path.parent();
        if path.file_name().is_some_and(|n| n == EVENTS) {
            self.workspace = dir.and_then(Workspace::in_dir);
        } else if let (Some(dir), Some(stem)) = (dir, path.file_stem()) {
            if dir.join(stem).join(EVENTS).is_file() {
                self.shadowed = Some(
                    "not read: the events.jsonl in the folder of the same name holds this session"
                        .into(),
                );
            }
        }
    }
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Copilot CLI session: no complete line";

    tracker_parts!(file_modified, tally, for_scan);

    /// The scan's tracker: each line is one event, built as it is judged
    /// (a scan's sink drops it).
    fn for_read() -> Self {
        Tracker::default()
    }

    fn file_path(&mut self, path: &Path) {
        self.place(path);
    }

    /// Takes the next complete line, handing its surface event to `sink`.
    fn line(&mut self, raw: &[u8], sink: &mut dyn FnMut(Entry<'_>)) {
        self.tally.lines += 1;
        if self.is_done() {
            return;
        }
        if let Some(why) = self.shadowed.take() {
            self.tally.not_session = Some(why);
            return;
        }
        if simdutf8::basic::from_utf8(raw).is_err() {
            self.tally.failure = Some(self.tally.lines);
            return;
        }
        if self.tally.lines == 1 {
            self.start(raw);
            return;
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let seq = self.tally.lines;
        let event = match event::parse_line(raw) {
            Line::User(Some(content)) if !content.trim().is_empty() => {
                let content = text::person_text(content);
                if self.first_prompt.is_none() {
                    self.first_prompt = text::prompt_title(&content);
                }
                self.has_message = true;
                Event::Message {
                    role: Role::User,
                    text: content,
                }
            }
            Line::Assistant(Some(content)) if !content.trim().is_empty() => {
                self.has_message = true;
                Event::Message {
                    role: Role::Assistant,
                    text: content,
                }
            }
            Line::Compacted {
                success,
                summary,
                token_limit,
            } => {
                if !success {
                    self.limit(token_limit, sink, seq);
                    return;
                }
                // One event a seq: the checkpoint's limit is the
                // session's without an event of its own.
                self.capacity = token_limit.or(self.capacity);
                let text = summary
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or(Cow::Borrowed(NO_SUMMARY));
                Event::Checkpoint {
                    through_seq: seq - 1,
                    text,
                }
            }
            // [U] A cleared context shadows what precedes and shows no
            // checkpoint: an empty checkpoint text is never projected.
            Line::Cleared => Event::Checkpoint {
                through_seq: seq - 1,
                text: Cow::Borrowed(""),
            },
            Line::Limit(token_limit) => {
                self.limit(token_limit, sink, seq);
                return;
            }
            Line::NotUnderstood => {
                self.tally.skipped += 1;
                return;
            }
            Line::Start { .. } | Line::User(_) | Line::Assistant(_) | Line::Ignored => return,
        };
        sink(Entry { seq, event });
    }

    /// The header, once the log is known to be a session: a person's or
    /// the model's message was read (or a bad line, whose read says why).
    fn header(&self) -> Option<&SessionHeader> {
        self.header.as_ref().filter(|_| {
            self.tally.not_session.is_none() && (self.has_message || self.tally.failure.is_some())
        })
    }

    fn capacity(&self) -> Option<u64> {
        self.capacity
    }

    /// `workspace.yaml`'s `name` (as written when the person gave it, else
    /// cut to 80), else the first user message cut to 80.
    fn title(&self) -> Option<String> {
        let named = self.workspace.as_ref().and_then(|w| {
            let name = w.name.as_deref()?;
            if w.user_named {
                text::given_title(name)
            } else {
                text::cut_title(name)
            }
        });
        named.or_else(|| self.first_prompt.clone())
    }
}

impl Tracker {
    /// A `tokenLimit` read: the session's capacity from here on.
    fn limit(&mut self, token_limit: Option<u64>, sink: &mut dyn FnMut(Entry<'_>), seq: u64) {
        if let Some(limit) = token_limit {
            self.capacity = Some(limit);
            sink(Entry {
                seq,
                event: Event::Capacity(Some(limit)),
            });
        }
    }

    fn start(&mut self, raw: &[u8]) {
        let Line::Start {
            session_id: Some(id),
            start_time,
            cwd,
        } = event::parse_line(raw)
        else {
            self.tally.not_session =
                Some("not a Copilot CLI session: line 1 is no session.start event".into());
            return;
        };
        let created_at = start_time
            .as_deref()
            .and_then(text::parse_timestamp)
            .or(self.file_modified)
            .unwrap_or(0);
        let cwd = cwd
            .map(Cow::into_owned)
            .or_else(|| self.workspace.as_ref().and_then(|w| w.cwd.clone()));
        self.header = Some(SessionHeader {
            version: 0,
            id: id.into_owned(),
            created_at,
            cwd,
            label: None,
        });
    }
}
