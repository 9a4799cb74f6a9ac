//! Golden expected-events files for tests: what a full read of a fixture
//! gives (its summary and every event), as JSON, compared with a file of
//! the same name plus `.expected.json` beside the fixture.

use std::path::Path;

use serde_json::{json, Value};

use crate::formats::{LogFormat, LogSource};
use crate::model::{Entry, Event, ReadError, ReadSummary};

/// A full read of `log` by `format`, as JSON: the summary (or the error)
/// and each event with its seq.
pub fn read_as_json(format: &dyn LogFormat, log: &dyn LogSource) -> Value {
    events_as_json(|sink| format.read(log, &|| false, sink))
}

/// What `read` gives (handed the sink of its events), as JSON: for a
/// store kind whose reads are not a [`LogFormat`]'s (one run of an Aider
/// history).
pub fn events_as_json(
    read: impl FnOnce(&mut dyn FnMut(Entry<'_>)) -> Result<ReadSummary, ReadError>,
) -> Value {
    let mut events = Vec::new();
    let summary = read(&mut |e| {
        let event = match e.event {
            Event::Message { role, text } => json!({"message": role.as_str(), "text": text}),
            Event::Checkpoint { through_seq, text } => {
                json!({"checkpoint": through_seq, "text": text})
            }
            Event::Title(title) => json!({"title": title}),
            Event::Capacity(capacity) => json!({"capacity": capacity}),
            Event::Other => json!("other"),
        };
        events.push(json!([e.seq, event]));
    });
    let summary = match summary {
        Ok(s) => json!({
            "id": s.header.id,
            "createdAt": s.header.created_at,
            "cwd": s.header.cwd,
            "label": s.header.label,
            "title": s.title,
            "capacity": s.capacity,
            "capturedThroughSeq": s.captured_through_seq,
            "skippedLines": s.skipped_lines,
        }),
        Err(e) => json!({"error": e.to_string()}),
    };
    json!({"summary": summary, "events": events})
}

/// Asserts that `read` is what `<fixture>.expected.json` holds.
pub fn assert_golden(fixture: &Path, read: &Value) {
    let mut name = fixture.as_os_str().to_owned();
    name.push(".expected.json");
    assert_golden_file(Path::new(&name), read);
}

/// Asserts that `read` is what the golden file `name` holds, for fixtures
/// that may not have one beside them (the conformance suite's copy stays
/// as the suite ships it).
pub fn assert_golden_file(name: &Path, read: &Value) {
    let expected = std::fs::read(name).unwrap_or_else(|e| panic!("{}: {e}", name.display()));
    let expected: Value = serde_json::from_slice(&expected).unwrap();
    assert_eq!(
        read,
        &expected,
        "{} differs from what the read gives:\n{}",
        name.display(),
        serde_json::to_string_pretty(read).unwrap_or_default()
    );
}
