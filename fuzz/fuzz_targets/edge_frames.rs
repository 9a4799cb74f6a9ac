//! The server's framing (issue 10 item 4): any byte stream splits into
//! frames without a panic, never yields more body than it was given, and a
//! well-formed message sent after any garbage that ends a line is still
//! read (the reader resynchronises on the next `Content-Length:`).
#![no_main]

use hydra_session_lsp::server::edge::frame::{read_all_frames, Input};
use libfuzzer_sys::fuzz_target;

const GOOD: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"sessionReference/status"}"#;

fuzz_target!(|data: &[u8]| {
    for frame in read_all_frames(data) {
        if let Input::Message(body) = frame {
            assert!(body.len() <= data.len());
        }
    }
    // Garbage without any Content-Length header, then a good frame: the
    // good frame is the one message read.
    if !data.to_ascii_lowercase().windows(15).any(|w| w == b"content-length:") {
        let mut stream = data.to_vec();
        stream.extend_from_slice(b"\r\n\r\n");
        stream.extend_from_slice(format!("Content-Length: {}\r\n\r\n", GOOD.len()).as_bytes());
        stream.extend_from_slice(GOOD);
        let messages: Vec<Vec<u8>> = read_all_frames(&stream)
            .into_iter()
            .filter_map(|f| match f {
                Input::Message(body) => Some(body),
                _ => None,
            })
            .collect();
        assert_eq!(messages, vec![GOOD.to_vec()]);
    }
});
