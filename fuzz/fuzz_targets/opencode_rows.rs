//! OpenCode rows: any message and part `data` (split from the input by
//! lines: even lines messages, odd lines parts) projects without a panic,
//! its seqs increase, and a row that is not a JSON object is counted.
#![no_main]

use hydra_session_lsp::formats::opencode::project::{project, MessageRow, PartRow};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ids: Vec<String> = (0..text.lines().count()).map(|i| format!("m{i:04}")).collect();
    let mut messages = Vec::new();
    let mut parts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i % 2 == 0 {
            messages.push(MessageRow { id: &ids[i], data: line });
        } else {
            // A part of the message before it.
            parts.push(PartRow { message_id: &ids[i - 1], id: &ids[i], data: line });
        }
    }
    let revert = messages.last().map(|m| m.id);
    for revert in [None, revert] {
        let projected = project(&messages, &parts, revert);
        assert_eq!(projected.rows, messages.len() as u64);
        assert!(projected.skipped <= (messages.len() + parts.len()) as u64);
        let mut last = 0;
        for entry in &projected.entries {
            assert!(entry.seq > last, "seqs increase");
            last = entry.seq;
        }
    }
});
