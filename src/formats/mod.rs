//! Log formats: one module per format behind [`LogFormat`], and one row
//! per format in [`table`], so adding a format is adding a module and a
//! row. A format recognises its files from their
//! first line, scans their metadata incrementally, and streams their
//! events into the format-neutral model.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod aider;
mod choice;
pub mod claude_code;
pub mod cline;
pub mod cline_cli;
pub mod codex;
pub mod continue_dev;
pub mod copilot_chat;
pub mod copilot_cli;
pub mod crush;
pub mod cursor;
pub mod gemini_cli;
pub mod goose;
pub mod hydra;
pub mod kilo;
pub mod lines;
pub mod opencode;
pub mod pi;
pub mod qwen_code;
pub mod table;
pub mod text;
pub mod toolkit;
pub mod zed;

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

pub use choice::{FormatChoice, TEAM};

use crate::model::{Cancelled, Entry, ReadError, ReadSummary, SessionHeader};

/// One log format.
pub trait LogFormat: Send + Sync + fmt::Debug {
    /// The name used in settings and status (`hydra`, `claude-code`, `codex`).
    fn name(&self) -> &'static str;

    /// The agent's name as its users know it (`Claude Code`, `Codex`), for
    /// the details of hover and completion: its row's in [`table`], else
    /// the settings name.
    fn display_name(&self) -> &'static str {
        table::row(self.name()).map_or(self.name(), |r| r.display_name)
    }

    /// Whether a file with this name (relative to its store, `/`-separated)
    /// may hold a session of this format.
    fn is_log_name(&self, rel: &[u8]) -> bool {
        rel.ends_with(b".jsonl")
    }

    /// Files in a log's folder that hold facts of its session too, as
    /// `(log file name, side file name)` pairs (Copilot CLI's
    /// `workspace.yaml` beside `events.jsonl`): the store folds their
    /// stamps into the log's, so a change to one alone re-reads the session.
    fn side_files(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// Facts of the session of the log at `path` (one of this format's)
    /// kept in files a fixed `(log name, side name)` pair cannot name (an
    /// index shared by every task of a Cline store, Continue's list beside
    /// its sessions), as one fingerprint: the store folds it into the
    /// log's stamp like the side files', so a change to those facts alone
    /// re-reads the session, and a change elsewhere in a shared index
    /// re-reads nothing. `None` when there are none.
    fn side_facts(&self, path: &Path) -> Option<u64> {
        let _ = path;
        None
    }

    /// When the file at `rel` (relative to the store, `/`-separated) is no
    /// log but holds [`Self::side_facts`] of this format's logs: the
    /// folder (a `/`-terminated prefix of their names, empty for the
    /// store's root) whose logs a change to it may concern.
    fn side_scope(&self, rel: &[u8]) -> Option<Vec<u8>> {
        let _ = rel;
        None
    }

    /// Whether, under `auto`, a file at `path` is of this format by its
    /// name alone, whatever its first line (agent-logs-files-3.md: a
    /// `.json` is decided by the format that names it).
    fn claims_name(&self, path: &[u8]) -> bool {
        let _ = path;
        false
    }

    /// Whether this format's logs are whole documents the store hands its
    /// scanner at once ([`Scanner::document`]) instead of line by line (a
    /// compact JSON document has no line end at all).
    fn is_document(&self) -> bool {
        false
    }

    /// Whether a log whose first complete line is `line` (without its line
    /// end) is of this format.
    fn recognizes(&self, line: &[u8]) -> bool;

    /// A metadata scanner for one log, fed its lines from the start.
    fn scanner(&self) -> Box<dyn Scanner>;

    /// Reads the whole log as it is now, handing its events to `sink` in
    /// order. Memory must not grow with the log.
    fn read(
        &self,
        log: &dyn LogSource,
        cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReadError>;
}

/// The bytes of one log, as a format reads them. A format may open it more
/// than once (a second pass reads the same bytes: `open` gives the size to
/// stop at, which the first open fixes).
pub trait LogSource {
    /// The log's name for messages (relative to its store).
    fn name(&self) -> &str;

    /// Opens the log from the start; `limit` caps the bytes read (the size
    /// a first open saw), `None` reads what is there now.
    fn open(&self, limit: Option<u64>) -> io::Result<(Box<dyn Read + '_>, u64)>;

    /// The log's modification time, Unix epoch milliseconds, when known: a
    /// format whose log records no creation time dates it by this.
    fn modified_ms(&self) -> Option<u64> {
        None
    }

    /// Where the log is, when it is a file: a format whose session facts
    /// depend on the log's place (a Gemini sub-agent's folder, the
    /// `.project_root` beside a Gemini project's chats) reads them there.
    fn path(&self) -> Option<&Path> {
        None
    }
}

/// Whether a scanner has decided what a log is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderState {
    /// Not yet: more lines are needed.
    Pending,
    Session(SessionHeader),
    /// The log is not a session (and never will be, whatever is appended).
    NotASession(String),
}

/// Incremental metadata of one log: fed complete lines from line 1 on, it
/// can resume after an append with only the new lines.
pub trait Scanner: Send + Sync + fmt::Debug {
    /// The log file's modification time (Unix epoch milliseconds), given
    /// before the first line: a format whose logs may hold no parsable
    /// creation time uses it as `createdAt` (agent-logs.md "Timestamps").
    fn file_modified(&mut self, millis: u64) {
        let _ = millis;
    }

    /// Where the log file is, given before the first line (see
    /// [`LogSource::path`]).
    fn file_path(&mut self, path: &Path) {
        let _ = path;
    }

    /// Whether lines appended to the log continue what was fed. A document
    /// rewritten whole on every change (Gemini's `.json` sessions) says
    /// no: its store scans it again from the start instead.
    fn resumable(&self) -> bool {
        true
    }

    /// Takes the next complete line, without its `\n` (a `\r` before it is
    /// already removed).
    fn line(&mut self, line: &[u8]);

    /// Takes a whole document's bytes, for a format that
    /// [`LogFormat::is_document`]; nothing else is fed.
    fn document(&mut self, bytes: &mut dyn Read) -> io::Result<()> {
        let _ = bytes;
        Ok(())
    }

    /// What the log is, as far as the lines seen tell.
    fn header(&self) -> HeaderState;

    /// The session header, without a copy, for a scanner that keeps one.
    /// The catalog asks for every log's id on every change of a store, so
    /// a scanner should lend it; `None` makes the catalog copy
    /// [`Self::header`] instead.
    fn header_ref(&self) -> Option<&SessionHeader> {
        None
    }

    /// Metadata gathered so far.
    fn meta(&self) -> ScanMeta;

    /// Whether later lines can change nothing (a failed or non-session log).
    fn is_done(&self) -> bool;

    /// `(parent session id, key)` when this session's display title is
    /// given by another log: the parent's [`Self::child_title`] for `key`,
    /// joined by the store when the parent is there (a Claude Code
    /// sub-agent names its session and `agentId`).
    fn parent(&self) -> Option<(String, String)> {
        None
    }

    /// The display title this log gives the child session naming it with
    /// `key` (a Claude Code transcript titles its sub-agents by the Task
    /// call that ran them).
    fn child_title(&self, key: &str) -> Option<String> {
        let _ = key;
        None
    }

    /// Whether [`Self::child_title`] has a title for some child: only such
    /// a log's scanner is asked for one later, so the others can be let
    /// go of as soon as they are read.
    fn names_children(&self) -> bool {
        false
    }

    fn clone_box(&self) -> Box<dyn Scanner>;
}

impl Clone for Box<dyn Scanner> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// What a scan knows besides the header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanMeta {
    pub title: Option<String>,
    pub capacity: Option<u64>,
    pub skipped_lines: u64,
    /// Why the log cannot be read (a strict format's bad line); its title
    /// and capacity are then unknown.
    pub failure: Option<String>,
}

/// The line formats this build knows, in detection order (the rows of
/// [`table`] by their `auto` rank).
pub fn all() -> &'static [&'static dyn LogFormat] {
    table::line_formats()
}

/// The line format called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn LogFormat> {
    match table::row(name)?.reading {
        FormatChoice::Fixed(f) => Some(f),
        _ => None,
    }
}

/// The agent's name for people (see [`LogFormat::display_name`]) of the
/// format or store kind called `name` (a [`crate::model::Locator`]'s).
pub fn display_name(name: &str) -> Option<&'static str> {
    table::row(name).map(|r| r.display_name)
}

/// The format a file's name decides under `auto`, whatever its first line
/// (see [`LogFormat::claims_name`]).
pub fn claimed_by_name(path: &[u8]) -> Option<&'static dyn LogFormat> {
    all().iter().copied().find(|f| f.claims_name(path))
}

/// The format whose files start with `line`, if any.
pub fn detect(line: &[u8]) -> Option<&'static dyn LogFormat> {
    all().iter().copied().find(|f| f.recognizes(line))
}
