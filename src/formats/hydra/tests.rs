//! The hydra format on fixtures written here: the conformance store's
//! logs (`tests/conformance/store/`), each read against the golden file of
//! its expected events beside it.

use std::path::Path;

use super::*;
use crate::formats::toolkit::golden::{assert_golden, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;

#[test]
fn the_conformance_logs_read_as_their_golden_files_say() {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/store");
    // A session with a sub-agent, several checkpoints, a corrupt line,
    // CRLF line ends, an unfinished last line, and a log that is no session.
    for rel in [
        "2026/11/29/checkout.jsonl",
        "2026/11/29/sub.jsonl",
        "multi-cp.jsonl",
        "corrupt.jsonl",
        "crlf.jsonl",
        "partial.jsonl",
        "not-a-session.jsonl",
    ] {
        let path = store.join(rel);
        let log = MemoryLog::new(std::fs::read(&path).unwrap()).modified(7);
        assert_golden(&path, &read_as_json(&Hydra, &log));
    }
}
