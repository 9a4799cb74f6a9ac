//! Log lines: header and event parsing never panic, and a whole log made of
//! the input never panics the reader or the projection.
#![no_main]

use hydra_session_lsp::reference::projection::Projector;
use hydra_session_lsp::formats::hydra::line::{parse_event, parse_header};
use hydra_session_lsp::formats::hydra::reader::{to_entry, EventCursor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = parse_header(data);
    let _ = parse_event(data);
    let mut cursor = EventCursor::after_header();
    let mut projector = Projector::new(Some(40), 300);
    for line in data.split(|&b| b == b'\n') {
        match cursor.accept(line) {
            Ok(Some(event)) => projector.push(to_entry(event)),
            Ok(None) => {}
            Err(_) => break,
        }
    }
    let _ = projector.finish();
});
