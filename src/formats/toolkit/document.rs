//! A whole-JSON document read line by line (Gemini CLI's older sessions,
//! Copilot Chat's `.json` form): the agent pretty-prints
//! one object and rewrites it whole, and its closing `}` ends the file
//! without a newline, so a line-fed scanner never sees the document end.
//! Each top-level member is parsed as soon as it is complete instead, so
//! nothing waits for the last line and nothing is parsed twice. A format
//! with both forms decides which a log is in with [`Form::take`].

use std::path::Path;

use serde_json::{Map, Value};

use super::strings::Strings;
use super::track::Tally;

/// What a format with both forms (a `.jsonl` log and the older whole
/// `.json` document) knows of a log from its name.
#[derive(Debug, Clone, Default)]
pub struct TwoForms {
    /// `Some(true)` for a `.json`, `Some(false)` for any other name;
    /// `None` for a log that is no file (the first line decides).
    pub is_json: Option<bool>,
    /// Why the log is not read although it is a session's: the agent reads
    /// the `.jsonl` of the same name beside a `.json` first.
    pub shadowed: Option<String>,
}

impl TwoForms {
    /// The facts of the log at `path`.
    pub fn of(path: &Path) -> Self {
        let is_json = path.extension().is_some_and(|e| e == "json");
        let shadowed = (is_json && path.with_extension("jsonl").is_file()).then(|| {
            "not read: the .jsonl of the same name beside it holds this session".to_string()
        });
        TwoForms {
            is_json: Some(is_json),
            shadowed,
        }
    }
}

/// Which of its two forms a log is in, decided by its first line.
#[derive(Debug, Clone, Default)]
pub enum Form {
    /// Not decided: no line seen yet.
    #[default]
    Unknown,
    Lines,
    Document(Members),
}

/// What one line of a two-form log holds for its format.
pub enum Taken<'l> {
    /// Nothing more: the line decided the log is no session or fails
    /// (the tally says which), or the document had no member end in it.
    Nothing,
    /// A line of the `.jsonl` form.
    Line(&'l [u8]),
    /// The document's members completed in the line.
    Members(Vec<Map<String, Value>>),
}

impl Form {
    pub fn is_document(&self) -> bool {
        matches!(self, Form::Document(_))
    }

    /// Takes the log's next line (already counted in `tally`): on the
    /// first, decides the form by the name, else by `is_document` of the
    /// line; a line that is not UTF-8 fails the log, a document that is no
    /// object is no `agent` session.
    pub fn take<'l>(
        &mut self,
        raw: &'l [u8],
        name: &mut TwoForms,
        tally: &mut Tally,
        agent: &str,
        is_document: impl FnOnce(&[u8]) -> bool,
    ) -> Taken<'l> {
        if matches!(self, Form::Unknown) {
            if let Some(why) = name.shadowed.take() {
                tally.not_session = Some(why);
                return Taken::Nothing;
            }
            *self = if name.is_json.unwrap_or_else(|| is_document(raw)) {
                Form::Document(Members::default())
            } else {
                Form::Lines
            };
        }
        if std::str::from_utf8(raw).is_err() {
            tally.failure = Some(tally.lines);
            return Taken::Nothing;
        }
        match self {
            Form::Document(members) => {
                let mut got = Vec::new();
                members.line(raw, &mut |m| got.push(m));
                if members.failed {
                    tally.not_session = Some(format!("not a {agent} session: not a JSON object"));
                }
                Taken::Members(got)
            }
            _ => Taken::Line(raw),
        }
    }
}

/// Splits the lines of one JSON object into its top-level members.
#[derive(Debug, Clone, Default)]
pub struct Members {
    started: bool,
    /// Nesting depth: 1 inside the top-level object, 0 before or after.
    depth: u32,
    strings: Strings,
    /// The current member's text so far.
    pending: Vec<u8>,
    /// The text does not start with an object.
    pub failed: bool,
}

impl Members {
    /// Takes the next line; hands each member completed in it to `member`
    /// as a one-entry map.
    pub fn line(&mut self, line: &[u8], member: &mut dyn FnMut(Map<String, Value>)) {
        if self.failed {
            return;
        }
        for &b in line {
            if !self.started {
                match b {
                    b'{' => {
                        self.started = true;
                        self.depth = 1;
                    }
                    b' ' | b'\t' | b'\r' => {}
                    _ => {
                        self.failed = true;
                        return;
                    }
                }
                continue;
            }
            if self.depth == 0 {
                // After the object: nothing more is read.
                return;
            }
            if self.strings.take(b) {
                self.pending.push(b);
                continue;
            }
            match b {
                b',' | b'}' if self.depth == 1 => {
                    self.finish(member, false);
                    if b == b'}' {
                        self.depth = 0;
                    }
                    continue;
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
            self.pending.push(b);
        }
        if self.depth == 1 && !self.strings.is_inside() {
            // A member that ends its line (the last one, before the closing
            // `}` the file may never end with a newline).
            self.finish(member, true);
        }
        if !self.pending.is_empty() {
            self.pending.push(b'\n');
        }
    }

    /// Parses the pending member; `tentative` keeps an incomplete one.
    fn finish(&mut self, member: &mut dyn FnMut(Map<String, Value>), tentative: bool) {
        if self.pending.iter().all(u8::is_ascii_whitespace) {
            self.pending.clear();
            return;
        }
        let mut object = Vec::with_capacity(self.pending.len() + 2);
        object.push(b'{');
        object.extend_from_slice(&self.pending);
        object.push(b'}');
        match serde_json::from_slice::<Map<String, Value>>(&object) {
            Ok(map) => {
                self.pending.clear();
                member(map);
            }
            Err(_) if tentative => {}
            // Not a member: dropped, as a lenient reader drops a bad line.
            Err(_) => self.pending.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(text: &str) -> (Vec<String>, bool) {
        let mut m = Members::default();
        let mut keys = Vec::new();
        for line in text.split('\n') {
            m.line(line.as_bytes(), &mut |map| {
                keys.extend(map.into_iter().map(|(k, _)| k))
            });
        }
        (keys, m.failed)
    }

    #[test]
    fn members_complete_without_the_closing_brace() {
        let doc = "{\n  \"sessionId\": \"s,}\\\"\",\n  \"messages\": [\n    {\n      \"id\": \"a\"\n    }\n  ],\n  \"kind\": \"main\"\n}";
        assert_eq!(members(doc).0, ["sessionId", "messages", "kind"]);
        // The file as a line reader sees it: no last line.
        let cut = doc.rsplit_once('\n').unwrap().0;
        assert_eq!(members(cut).0, ["sessionId", "messages", "kind"]);
        // A compact document on one line.
        assert_eq!(
            members(r#"{"sessionId":"s","messages":[{"id":"a"}]}"#).0,
            ["sessionId", "messages"]
        );
        // A member spread over lines waits for its end.
        assert_eq!(members("{\n\"a\":\n1\n}").0, ["a"]);
        assert!(members("[1]").1);
    }
}
