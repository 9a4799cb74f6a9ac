//! Claude Code transcripts: any bytes, as one line or as a whole log, never
//! panic the line parser, the scanner, the two-pass reader or the
//! projection; and the reader's entries keep increasing `seq`.
#![no_main]

use hydra_session_lsp::formats::claude_code::{line, ClaudeCode};
use hydra_session_lsp::formats::toolkit::memory_log::MemoryLog;
use hydra_session_lsp::formats::LogFormat;
use hydra_session_lsp::reference::projection::Projector;
use libfuzzer_sys::fuzz_target;

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
    let _ = ClaudeCode.read(&MemoryLog::new(data), &|| false, &mut |entry| {
        assert!(entry.seq > last, "seq must increase");
        last = entry.seq;
        projector.push(entry);
    });
    let _ = projector.finish();
});
