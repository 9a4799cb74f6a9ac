//! The state of one Cursor transcript as its lines are read, shared by the
//! index scanner and the full read: one pass, each line its own seq (its
//! line number), the model's lines of one run joined into one message.

use std::path::Path;

use super::line::{self, Line};
use super::message;
use super::place::Place;
use crate::formats::claude_code::text::first_line;
use crate::formats::text;
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Role, SessionHeader};

/// The model's lines since the last user message or end of turn.
#[derive(Debug, Clone, Default)]
struct Run {
    /// The seq of its first line with shown text.
    seq: Option<u64>,
    /// Their shown text, when the tracker projects.
    text: String,
}

/// One transcript's state.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    /// Whether messages are built (a full read) or only judged (a scan).
    project: bool,
    file_modified: Option<u64>,
    place: Place,
    /// Lines taken and skipped, the line that fails the log, why it is
    /// no session.
    pub tally: Tally,
    has_message: bool,
    /// Whether a user line that is a message was read.
    prompted: bool,
    prompt_time: Option<u64>,
    first_prompt: Option<String>,
    /// A sub-agent's display title.
    label: Option<String>,
    run: Run,
    header: Option<SessionHeader>,
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Cursor transcript: no complete line";

    tracker_parts!(scan_or_project, file_modified, tally_and_header);

    fn file_path(&mut self, path: &Path) {
        self.place = Place::of(path, Path::new("/"));
    }

    fn file_name(&mut self, name: &str) {
        self.place = Place::named(Path::new(name));
    }

    /// Takes the next complete line, handing its surface events to `sink`.
    fn line(&mut self, raw: &[u8], sink: &mut dyn FnMut(Entry<'_>)) {
        self.tally.lines += 1;
        if self.is_done() {
            return;
        }
        if simdutf8::basic::from_utf8(raw).is_err() {
            self.tally.failure = Some(self.tally.lines);
            // Listed still, once it is known to be a transcript: its read
            // says why it fails.
            if self.tally.lines > 1 {
                self.settle();
            }
            return;
        }
        if self.tally.lines == 1 {
            if let Some(why) = self.place.shadowed.take() {
                self.tally.not_session = Some(why);
                return;
            }
            if self.place.id.is_none() {
                self.tally.not_session =
                    Some("not a Cursor transcript: its file name is no id".into());
                return;
            }
            if !line::is_role_line(raw) {
                self.tally.not_session =
                    Some("not a Cursor transcript: line 1 is no role line".into());
                return;
            }
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let seq = self.tally.lines;
        let known = (self.has_message, self.prompted);
        match line::parse_line(raw) {
            Line::User(blocks) => {
                let Some(text) = message::user_text(&blocks) else {
                    return;
                };
                self.end_run(sink);
                if !self.prompted {
                    self.prompted = true;
                    self.prompt_time = message::prompt_time(&blocks);
                    self.first_prompt = text::prompt_title(&text);
                    if self.place.sub_agent {
                        self.label = first_line(&text);
                    }
                }
                self.has_message = true;
                sink(Entry::message(seq, Role::User, text));
            }
            Line::Assistant(blocks) => {
                let mut shown = blocks.iter().filter(|b| message::is_shown(b)).peekable();
                if shown.peek().is_none() {
                    return;
                }
                self.has_message = true;
                self.run.seq.get_or_insert(seq);
                if self.project {
                    for block in shown {
                        if !self.run.text.is_empty() {
                            self.run.text.push('\n');
                        }
                        self.run.text.push_str(block);
                    }
                }
            }
            Line::TurnEnded => self.end_run(sink),
            Line::OtherRole | Line::Ignored => {}
            Line::NotUnderstood => self.tally.skipped += 1,
        }
        if known != (self.has_message, self.prompted) {
            self.settle();
        }
    }

    /// The last run ends with the log.
    fn end(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        self.end_run(sink);
    }

    /// The header, once the log is known to be a session: a person's or
    /// the model's message was read (or a bad line, whose read says why).
    /// The first user message cut to 80.
    fn title(&self) -> Option<String> {
        self.first_prompt.clone()
    }
}

impl Tracker {
    /// Hands on the model's run as one message, placed at its first line.
    fn end_run(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        let run = std::mem::take(&mut self.run);
        if let (true, Some(seq)) = (self.project, run.seq) {
            sink(Entry::message(seq, Role::Assistant, run.text));
        }
    }

    /// The header, as far as the lines seen tell.
    fn settle(&mut self) {
        let Some(id) = self.place.id.as_ref() else {
            return;
        };
        if !self.has_message && self.tally.failure.is_none() {
            return;
        }
        self.header = Some(SessionHeader {
            version: 0,
            id: id.clone(),
            created_at: self.prompt_time.or(self.file_modified).unwrap_or(0),
            cwd: self.place.cwd.clone(),
            label: self.label.clone(),
        });
    }
}
