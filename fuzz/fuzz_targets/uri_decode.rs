//! URI decoding: never panics; whatever decodes is canonical and round-trips.
#![no_main]

use hydra_session_lsp::reference::uri::{decode, encode, DecodeError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for uri in [text.to_string(), format!("hydra-session:{text}")] {
        match decode(&uri) {
            Ok(id) => assert_eq!(encode(&id), uri),
            Err(DecodeError::Noncanonical { session_id, canonical }) => {
                assert_eq!(encode(&session_id), canonical);
                assert_eq!(decode(&canonical), Ok(session_id));
            }
            Err(DecodeError::Malformed) => {}
        }
    }
});
