//! Claude Code transcripts: any bytes, as one line or as a whole log, never
//! panic the line parser, the scanner, the two-pass reader or the
//! projection; and the reader's entries keep increasing `seq`.
#![no_main]

use std::io::{self, Read};

use hydra_session_lsp::formats::claude_code::{line, ClaudeCode};
use hydra_session_lsp::formats::{LogFormat, LogSource};
use hydra_session_lsp::reference::projection::Projector;
use libfuzzer_sys::fuzz_target;

struct Bytes<'a>(&'a [u8]);

impl LogSource for Bytes<'_> {
    fn name(&self) -> &str {
        "fuzz.jsonl"
    }

    fn open(&self, limit: Option<u64>) -> io::Result<(Box<dyn Read + '_>, u64)> {
        let size = self.0.len() as u64;
        Ok((Box::new(self.0), limit.map_or(size, |l| l.min(size))))
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = line::parse(text, true);
        let _ = line::parse(text, false);
    }
    let _ = ClaudeCode.recognizes(data);
    let mut scanner = ClaudeCode.scanner();
    for l in data.split(|&b| b == b'\n') {
        scanner.line(l);
    }
    let _ = (scanner.header(), scanner.meta());
    let mut projector = Projector::new(Some(40), 300);
    let mut last = 0u64;
    let _ = ClaudeCode.read(&Bytes(data), &|| false, &mut |entry| {
        assert!(entry.seq > last, "seq must increase");
        last = entry.seq;
        projector.push(entry);
    });
    let _ = projector.finish();
});
