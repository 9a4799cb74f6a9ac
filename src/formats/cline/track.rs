//! The state of one task's `ui_messages.json` as its bytes are read,
//! shared by the store's scan and the full read ([`crate::formats::toolkit::whole`]):
//! each element of the array is its own seq (its position, from 1), so
//! `capturedThroughSeq` is the number of elements.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use super::history::{self, HistoryFacts};
use super::message::{self, Said};
use super::place::Place;
use crate::formats::text;
use crate::formats::toolkit::elements::{Elements, Piece};
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, Event, Role, SessionHeader};

/// One task's state.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    /// Whether events are built (a full read) or only judged (a scan).
    project: bool,
    file_modified: Option<u64>,
    place: Place,
    facts: Option<HistoryFacts>,
    elements: Elements,
    /// Elements or lines read, skipped, the one not UTF-8, and why the
    /// log is no session (what every tracker counts alike).
    tally: Tally,
    /// The `ts` of the first element that has one.
    first_time: Option<u64>,
    has_message: bool,
    first_prompt: Option<String>,
    header: Option<SessionHeader>,
}

impl Track for Tracker {
    const NO_LINE: &'static str = "not a Cline task: ui_messages.json holds no element";

    tracker_parts!(scan_or_project, file_modified, tally_and_header);

    fn file_path(&mut self, path: &Path) {
        self.place = Place::of(path);
        if let (Some(dir), Some(id)) = (&self.place.dir, &self.place.id) {
            self.facts = history::lookup(dir, id);
        }
    }

    fn file_name(&mut self, name: &str) {
        self.place = Place::named(name);
    }

    /// Takes the next bytes of the document.
    fn line(&mut self, raw: &[u8], sink: &mut dyn FnMut(Entry<'_>)) {
        if self.is_done() {
            return;
        }
        let mut elements = std::mem::take(&mut self.elements);
        elements.feed(raw, &mut |piece| self.piece(piece, sink));
        self.elements = elements;
        self.check_shape();
    }

    fn end(&mut self, sink: &mut dyn FnMut(Entry<'_>)) {
        if self.is_done() {
            return;
        }
        let mut elements = std::mem::take(&mut self.elements);
        elements.end(&mut |piece| self.piece(piece, sink));
        self.elements = elements;
        self.check_shape();
        // The whole document was read: without a message it is no task,
        // and `status` says why.
        if self.header.is_none() && !self.is_done() {
            self.tally.not_session = Some(if self.tally.lines == 0 {
                Self::NO_LINE.into()
            } else {
                NO_MESSAGE.into()
            });
        }
    }

    /// The `HistoryItem`'s `task`, else the first user message, cut to 80.
    fn title(&self) -> Option<String> {
        self.facts
            .as_ref()
            .and_then(|f| f.title.clone())
            .or_else(|| self.first_prompt.clone())
    }

    /// The document is rewritten whole on every change.
    fn resumable(&self) -> bool {
        false
    }
}

impl Tracker {
    fn piece(&mut self, piece: Piece, sink: &mut dyn FnMut(Entry<'_>)) {
        if self.is_done() {
            return;
        }
        let element = match piece {
            Piece::Element(element) => element,
            Piece::NotUtf8 => {
                self.tally.failure = Some(self.tally.lines + 1);
                self.settle();
                return;
            }
            Piece::Malformed | Piece::Member(..) | Piece::ArrayEnd => {
                self.tally.not_session = Some(NOT_AN_ARRAY.into());
                return;
            }
        };
        self.tally.lines += 1;
        let seq = self.tally.lines;
        self.element(&element, seq, sink);
    }

    fn element(&mut self, element: &Value, seq: u64, sink: &mut dyn FnMut(Entry<'_>)) {
        let known = (self.has_message, self.first_time);
        if self.first_time.is_none() && element.is_object() {
            self.first_time = message::time(element);
        }
        match message::said(element, seq == 1) {
            Said::Message(role, text) => {
                let text = match role {
                    Role::User => text::person_text(text),
                    Role::Assistant => text,
                };
                if role == Role::User && self.first_prompt.is_none() {
                    self.first_prompt = text::prompt_title(&text);
                }
                self.has_message = true;
                if self.project {
                    sink(Entry::message(seq, role, text.into_owned()));
                }
            }
            Said::Condensed(summary) => {
                if self.project {
                    sink(Entry {
                        seq,
                        event: Event::Checkpoint {
                            through_seq: seq,
                            text: Cow::Owned(summary.to_string()),
                        },
                    });
                }
            }
            Said::Nothing => {}
            Said::NotUnderstood => self.tally.skipped += 1,
        }
        if known != (self.has_message, self.first_time) {
            self.settle();
        }
    }

    /// A document that is no JSON array is no task.
    fn check_shape(&mut self) {
        if self.elements.failed && self.tally.not_session.is_none() {
            self.tally.not_session = Some(NOT_AN_ARRAY.into());
        }
    }

    /// The header, as far as the elements seen tell.
    fn settle(&mut self) {
        let Some(id) = self.place.id.as_ref() else {
            self.tally.not_session = Some("not a Cline task: its folder is no task id".into());
            return;
        };
        if !self.has_message && self.tally.failure.is_none() {
            return;
        }
        self.header = Some(SessionHeader {
            version: 0,
            id: id.clone(),
            created_at: self.first_time.or(self.file_modified).unwrap_or(0),
            cwd: self.facts.as_ref().and_then(|f| f.cwd.clone()),
            label: None,
        });
    }
}

const NO_MESSAGE: &str = "no user or assistant message";
const NOT_AN_ARRAY: &str = "not a Cline task: ui_messages.json is no JSON array";
