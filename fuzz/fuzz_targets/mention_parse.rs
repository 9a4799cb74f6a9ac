//! Mention parsing: never panics; spans are in order, on char boundaries,
//! and a successful parse replaces exactly the matched text.
#![no_main]

use hydra_session_lsp::reference::mention::{parse, scan};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut end = 0;
    for mention in scan(&text) {
        assert!(mention.span.start >= end);
        assert!(text.is_char_boundary(mention.span.start) && text.is_char_boundary(mention.span.end));
        assert!(mention.uri_span.start >= mention.span.start && mention.uri_span.end <= mention.span.end);
        end = mention.span.end;
    }
    if let Ok(parsed) = parse(&text) {
        assert_eq!(parsed.references.len(), scan(&text).len());
    }
});
