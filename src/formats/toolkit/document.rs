//! A whole-JSON document read line by line (Gemini CLI's older sessions,
//! Copilot Chat's `.json` form): the agent pretty-prints
//! one object and rewrites it whole, and its closing `}` ends the file
//! without a newline, so a line-fed scanner never sees the document end.
//! Each top-level member is parsed as soon as it is complete instead, so
//! nothing waits for the last line and nothing is parsed twice.

use serde_json::{Map, Value};

/// Splits the lines of one JSON object into its top-level members.
#[derive(Debug, Clone, Default)]
pub struct Members {
    started: bool,
    /// Nesting depth: 1 inside the top-level object, 0 before or after.
    depth: u32,
    in_string: bool,
    escaped: bool,
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
            if self.in_string {
                self.pending.push(b);
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
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
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
            self.pending.push(b);
        }
        if self.depth == 1 && !self.in_string {
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
