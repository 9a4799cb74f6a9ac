//! The hydra format on the conformance store's logs
//! (`tests/conformance/store/`), each read against the golden file of its
//! expected events, written here and kept under
//! `tests/fixtures/hydra-golden/` (the suite's copy stays as it ships).

use std::path::Path;

use super::*;
use crate::formats::toolkit::golden::{assert_golden_file, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;

#[test]
fn the_conformance_logs_read_as_their_golden_files_say() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let store = root.join("tests/conformance/store");
    let golden = root.join("tests/fixtures/hydra-golden");
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
        let expected = golden.join(format!("{rel}.expected.json"));
        assert_golden_file(&expected, &read_as_json(&Hydra, &log));
    }
}
