//! Aider chat histories: the index's run scan and the full read of every
//! run never panic on any bytes, seqs increase, and the scan and each
//! read agree on the run's lines, title and whether it holds a message;
//! the same bytes fed in two parts scan as in one.
#![no_main]

use hydra_session_lsp::formats::aider::{read_run, HistoryScan};
use hydra_session_lsp::formats::lines::{for_each_line, Flow};
use hydra_session_lsp::formats::toolkit::memory_log::MemoryLog;
use hydra_session_lsp::model::Event;
use libfuzzer_sys::fuzz_target;

const REL: &str = ".aider.chat.history.md";

fn feed(scan: &mut HistoryScan, bytes: &[u8]) -> usize {
    let fed = for_each_line::<()>(&mut &bytes[..], bytes.len() as u64, &|| false, &mut |l| {
        scan.line(l);
        Ok(Flow::Continue)
    });
    scan.settle();
    fed.map_or(0, |n| n as usize)
}

fuzz_target!(|data: &[u8]| {
    let mut whole = HistoryScan::default();
    feed(&mut whole, data);
    let mut parts = HistoryScan::default();
    let consumed = feed(&mut parts, &data[..data.len() / 2]);
    feed(&mut parts, &data[consumed..]);
    assert_eq!(parts.runs(), whole.runs(), "an append resumes");
    let log = MemoryLog::new(data).at("/fuzz/.aider.chat.history.md");
    for run in whole.runs() {
        let mut last_seq = None;
        let mut messages = 0usize;
        let read = read_run(&log, REL, &run.id(REL), None, &|| false, &mut |entry| {
            assert!(last_seq < Some(entry.seq), "seqs increase");
            last_seq = Some(entry.seq);
            messages += usize::from(matches!(entry.event, Event::Message { .. }));
        });
        if let Ok(summary) = read {
            assert_eq!(summary.captured_through_seq, Some(run.lines));
            assert_eq!(summary.title, run.title);
            assert_eq!(messages > 0, run.has_message);
        }
    }
});
