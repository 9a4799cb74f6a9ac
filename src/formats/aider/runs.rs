//! The runs of one history file, scanned incrementally: fed the file's
//! complete lines from the first on, a scan resumes after an append with
//! only the new lines (Aider only appends). A run's id depends only on the
//! file and the lines up to its header, so it never changes when more is
//! appended.

use std::collections::HashMap;

use super::line::{classify, Line};
use super::project::{Piece, Projector};
use super::unverified;
use crate::formats::text;
use crate::model::Role;

/// One run as the index knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The header's `YYYY-MM-DD HH:MM:SS`, as written.
    pub stamp: String,
    /// 1 for the first run of the file with this stamp, k for the k-th.
    pub repeat: u32,
    /// Lines of the run, its header included (`capturedThroughSeq`).
    pub lines: u64,
    /// The first user message that is no command, cut.
    pub title: Option<String>,
    /// Whether the run holds a user or assistant message (else it is no
    /// session).
    pub has_message: bool,
}

impl Run {
    /// The run's session id in the file `rel` (relative to its store).
    pub fn id(&self, rel: &str) -> String {
        unverified::session_id(rel, &self.stamp, self.repeat)
    }

    /// `createdAt`: the stamp, else `fallback` (the file's time).
    pub fn created_at(&self, fallback: Option<u64>) -> u64 {
        unverified::created_at(&self.stamp)
            .or(fallback)
            .unwrap_or(0)
    }
}

/// What the finished messages of a run told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Found {
    title: Option<String>,
    has_message: bool,
}

impl Found {
    fn take(&mut self, piece: Piece) {
        if let Piece::Message { role, text, .. } = piece {
            self.has_message = true;
            if self.title.is_none() && role == Role::User && !text.starts_with('/') {
                self.title = text::cut_title(&text);
            }
        }
    }
}

/// The runs of one history file so far.
#[derive(Debug, Clone, Default)]
pub struct HistoryScan {
    runs: Vec<Run>,
    /// The last run's message being gathered.
    open: Projector,
    /// What the last run's finished messages told.
    found: Found,
    /// Runs seen per stamp (for `~k`).
    repeats: HashMap<String, u32>,
    /// Lines fed.
    lines: u64,
    /// Why the file cannot be read (invalid UTF-8), from then on.
    failure: Option<String>,
}

impl HistoryScan {
    /// Takes the next complete line of the file (without its line end).
    pub fn line(&mut self, raw: &[u8]) {
        self.lines += 1;
        if self.failure.is_some() {
            return;
        }
        let Ok(line) = simdutf8::basic::from_utf8(raw) else {
            self.failure = Some(format!("line {}: invalid UTF-8", self.lines));
            return;
        };
        let line = classify(line);
        if let Line::Header(stamp) = line {
            self.end_run();
            let repeat = self.repeats.entry(stamp.to_string()).or_default();
            *repeat += 1;
            self.runs.push(Run {
                stamp: stamp.to_string(),
                repeat: *repeat,
                lines: 1,
                title: None,
                has_message: false,
            });
            return;
        }
        // Lines before the first header belong to no run.
        let Some(run) = self.runs.last_mut() else {
            return;
        };
        run.lines += 1;
        let found = &mut self.found;
        self.open
            .line(run.lines, line, &mut |piece| found.take(piece));
    }

    /// Finishes the last run's open message into what it told.
    fn end_run(&mut self) {
        let found = &mut self.found;
        self.open.finish(&mut |piece| found.take(piece));
        let found = std::mem::take(&mut self.found);
        self.settle_last(found);
    }

    fn settle_last(&mut self, found: Found) {
        if let Some(run) = self.runs.last_mut() {
            run.title = found.title;
            run.has_message = found.has_message;
        }
    }

    /// Brings the last run's title and message flag to what they would be
    /// if the file ended here (its open message finished), leaving the scan
    /// able to resume: called after each batch of lines.
    pub fn settle(&mut self) {
        let mut found = self.found.clone();
        if self.open.is_open() {
            self.open.clone().finish(&mut |piece| found.take(piece));
        }
        self.settle_last(found);
    }

    /// The runs so far, in file order (call [`Self::settle`] first).
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Why the file's sessions cannot be read, if they cannot.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Lines fed so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }
}
