//! Cursor agent transcripts: line parsing, the index's scanner and a full
//! read never panic on any bytes, seqs increase, a full read and the
//! scanner agree on the header, title and skipped lines, and the
//! projection takes what the read yields.
#![no_main]

use std::path::Path;

use hydra_session_lsp::formats::cursor::line::parse_line;
use hydra_session_lsp::formats::cursor::unverified::prompt_time;
use hydra_session_lsp::formats::cursor::Cursor;
use hydra_session_lsp::formats::lines::{for_each_line, Flow};
use hydra_session_lsp::formats::toolkit::memory_log::MemoryLog;
use hydra_session_lsp::formats::{HeaderState, LogFormat};
use hydra_session_lsp::reference::projection::Projector;
use libfuzzer_sys::fuzz_target;

/// A sub-agent's place (its display title is read too), in a project
/// folder that names no directory.
const PLACE: &str = "/nonexistent-cursor-fuzz/agent-transcripts/s/subagents/c.jsonl";

fuzz_target!(|data: &[u8]| {
    let _ = Cursor.recognizes(data);
    for line in data.split(|&b| b == b'\n') {
        let _ = parse_line(line);
    }
    let _ = prompt_time(&String::from_utf8_lossy(data));
    let mut scanner = Cursor.scanner();
    scanner.file_path(Path::new(PLACE));
    let _ = for_each_line::<()>(&mut &data[..], data.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    });
    let mut projector = Projector::new(Some(40), 300);
    let mut last_seq = None;
    let log = MemoryLog::new(data).at(PLACE);
    let read = Cursor.read(&log, &|| false, &mut |entry| {
        assert!(last_seq < Some(entry.seq), "seqs increase");
        last_seq = Some(entry.seq);
        projector.push(entry);
    });
    let _ = projector.finish();
    if let Ok(summary) = read {
        assert_eq!(
            scanner.header(),
            HeaderState::Session(summary.header.clone())
        );
        let meta = scanner.meta();
        assert_eq!(meta.title, summary.title);
        assert_eq!(meta.skipped_lines, summary.skipped_lines);
    }
});
