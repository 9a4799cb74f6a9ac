//! Qwen Code chat files: line parsing, the index's scanner and a full read
//! never panic on any bytes, seqs increase, a full read and the scanner
//! agree on the header, title, capacity and skipped lines, and the projection takes
//! what the read yields.
#![no_main]

use hydra_session_lsp::formats::lines::{for_each_line, Flow};
use hydra_session_lsp::formats::qwen_code::record::{is_first_record, parse};
use hydra_session_lsp::formats::qwen_code::QwenCode;
use hydra_session_lsp::formats::toolkit::memory_log::MemoryLog;
use hydra_session_lsp::formats::{HeaderState, LogFormat};
use hydra_session_lsp::reference::projection::Projector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = QwenCode.recognizes(data);
    let _ = is_first_record(data);
    for line in data.split(|&b| b == b'\n') {
        let _ = parse(line);
    }
    let mut scanner = QwenCode.scanner();
    scanner.file_modified(7);
    let _ = for_each_line::<()>(&mut &data[..], data.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    });
    let mut projector = Projector::new(Some(40), 300);
    let mut last_seq = None;
    let log = MemoryLog::new(data).modified(7);
    let read = QwenCode.read(&log, &|| false, &mut |entry| {
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
        assert_eq!(meta.capacity, summary.capacity);
    }
});
