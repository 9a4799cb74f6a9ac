//! Cline, Roo Code and Kilo Code (legacy) tasks, whole documents: the index's scanner and a full read never
//! panic on any bytes, seqs increase, a full read and the scanner agree
//! on the header, title and skipped entries, and the projection takes
//! what the read yields.
#![no_main]

use std::path::Path;

use hydra_session_lsp::formats::cline::Cline;
use hydra_session_lsp::formats::toolkit::memory_log::MemoryLog;
use hydra_session_lsp::formats::{HeaderState, LogFormat};
use hydra_session_lsp::reference::projection::Projector;
use libfuzzer_sys::fuzz_target;

/// A place with no index files beside it.
const PLACE: &str = "/nonexistent-cline-fuzz/tasks/1/ui_messages.json";

fuzz_target!(|data: &[u8]| {
    let mut scanner = Cline.scanner();
    scanner.file_path(Path::new(PLACE));
    let _ = scanner.document(&mut &data[..]);
    let mut projector = Projector::new(Some(40), 300);
    let mut last_seq = None;
    let log = MemoryLog::new(data).at(PLACE);
    let read = Cline.read(&log, &|| false, &mut |entry| {
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
