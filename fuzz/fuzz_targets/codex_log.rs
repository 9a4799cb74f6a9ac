//! Codex rollouts: line parsing, the index's scanner and a full read never
//! panic on any bytes, a full read and the scanner agree on the title,
//! capacity and skipped lines, and the projection takes what the read
//! yields.
#![no_main]

use hydra_session_lsp::formats::codex::line::parse_line;
use hydra_session_lsp::formats::codex::Codex;
use hydra_session_lsp::formats::lines::{for_each_line, Flow};
use hydra_session_lsp::formats::toolkit::memory_log::MemoryLog;
use hydra_session_lsp::formats::LogFormat;
use hydra_session_lsp::reference::projection::Projector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = Codex.recognizes(data);
    for line in data.split(|&b| b == b'\n') {
        let _ = parse_line(line);
    }
    let mut scanner = Codex.scanner();
    let _ = for_each_line::<()>(&mut &data[..], data.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    });
    let mut projector = Projector::new(Some(40), 300);
    let mut last_seq = None;
    let read = Codex.read(&MemoryLog::new(data), &|| false, &mut |entry| {
        assert!(last_seq < Some(entry.seq), "seqs increase");
        last_seq = Some(entry.seq);
        projector.push(entry);
    });
    let _ = projector.finish();
    if let Ok(summary) = read {
        let meta = scanner.meta();
        assert_eq!(meta.title, summary.title);
        assert_eq!(meta.capacity, summary.capacity);
        assert_eq!(meta.skipped_lines, summary.skipped_lines);
    }
});
