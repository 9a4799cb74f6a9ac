//! project(original) == project(reparse(write(original))): a snapshot read
//! back by the hydra reader has the surface it was written from.

use std::borrow::Cow;
use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::formats::hydra::Hydra;
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::LogFormat;
use crate::model::{Entry, Event, SessionHeader};
use crate::reference::projection::Projector;

/// A snapshot from events as any format's reader hands them over.
fn snapshot_of(header: SessionHeader, events: &[Entry<'_>]) -> Snapshot {
    let mut projector = Projector::new(None, usize::MAX);
    let (mut title, mut capacity, mut last) = (None, None, None);
    for entry in events {
        last = Some(entry.seq);
        match &entry.event {
            Event::Title(t) if !t.is_empty() => title = Some(t.to_string()),
            Event::Capacity(c) => capacity = *c,
            _ => {}
        }
        projector.push(entry.clone());
    }
    Snapshot {
        header,
        captured_through_seq: last,
        title,
        capacity,
        skipped_lines: 0,
        bytes: 0,
        projection: projector.finish(),
    }
}

/// The bytes read back through the hydra reader.
fn reparse(bytes: &[u8]) -> Snapshot {
    let log = MemoryLog::new(bytes.to_vec());
    let mut projector = Projector::new(None, usize::MAX);
    let read = Hydra
        .read(&log, &|| false, &mut |entry| projector.push(entry))
        .unwrap_or_else(|e| {
            panic!(
                "the snapshot does not read back: {e}\n{}",
                String::from_utf8_lossy(bytes)
            )
        });
    Snapshot {
        header: read.header,
        captured_through_seq: read.captured_through_seq,
        title: read.title,
        capacity: read.capacity,
        skipped_lines: read.skipped_lines,
        bytes: 0,
        projection: projector.finish(),
    }
}

/// What must survive: all but the format version (and the byte count).
fn assert_same_surface(original: &Snapshot, back: &Snapshot) {
    let h = |s: &Snapshot| {
        let h = &s.header;
        (h.id.clone(), h.created_at, h.cwd.clone(), h.label.clone())
    };
    assert_eq!(h(original), h(back));
    assert_eq!(back.header.version, SNAPSHOT_FORMAT_VERSION);
    assert_eq!(original.title, back.title);
    assert_eq!(original.capacity, back.capacity);
    assert_eq!(original.captured_through_seq, back.captured_through_seq);
    assert_eq!(original.projection, back.projection);
    assert_eq!(back.skipped_lines, 0);
}

fn facts(id: &str) -> Facts<'_> {
    Facts {
        id,
        agent: "claude_code",
    }
}

#[test]
fn the_conformance_logs_round_trip() {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/store");
    for rel in [
        "2026/11/29/checkout.jsonl",
        "2026/11/29/sub.jsonl",
        "multi-cp.jsonl",
        "crlf.jsonl",
    ] {
        let bytes = std::fs::read(store.join(rel)).unwrap();
        let original = reparse(&bytes);
        let written = write(&original, facts(&original.header.id));
        assert_same_surface(&original, &reparse(&written));
        // Same surface, same bytes: the name (its hash) is stable.
        assert_eq!(
            written,
            write(&reparse(&written), facts(&original.header.id))
        );
    }
}

#[test]
fn the_header_keeps_the_agent_and_the_published_id() {
    let original = snapshot_of(
        SessionHeader {
            id: "s-1".into(),
            created_at: 5,
            ..Default::default()
        },
        &[Entry {
            seq: 1,
            event: Event::Message {
                role: Role::User,
                text: "hi".into(),
            },
        }],
    );
    let written = write(&original, facts("~ana/s-1"));
    let first = written.split(|&b| b == b'\n').next().unwrap();
    let header: serde_json::Value = serde_json::from_slice(first).unwrap();
    assert_eq!(header["agent"], "claude_code");
    assert_eq!(reparse(&written).header.id, "~ana/s-1");
}

#[test]
fn an_empty_last_checkpoint_still_shadows() {
    let events = [
        Entry {
            seq: 1,
            event: Event::Message {
                role: Role::User,
                text: "old".into(),
            },
        },
        Entry {
            seq: 2,
            event: Event::Checkpoint {
                through_seq: 1,
                text: "".into(),
            },
        },
        Entry {
            seq: 3,
            event: Event::Message {
                role: Role::Assistant,
                text: "new".into(),
            },
        },
    ];
    let original = snapshot_of(
        SessionHeader {
            id: "s".into(),
            ..Default::default()
        },
        &events,
    );
    assert_same_surface(&original, &reparse(&write(&original, facts("s"))));
}

#[test]
fn seqs_out_of_order_still_give_the_same_messages() {
    // Not from a conforming reader; the fallback keeps the surface's order.
    let mut original = snapshot_of(
        SessionHeader {
            id: "s".into(),
            ..Default::default()
        },
        &[
            Entry {
                seq: 4,
                event: Event::Message {
                    role: Role::User,
                    text: "a".into(),
                },
            },
            Entry {
                seq: 9,
                event: Event::Checkpoint {
                    through_seq: 2,
                    text: "sum".into(),
                },
            },
            Entry {
                seq: 10,
                event: Event::Message {
                    role: Role::Assistant,
                    text: "b".into(),
                },
            },
        ],
    );
    original.projection.messages[2].seq = 4;
    let back = reparse(&write(&original, facts("s")));
    let texts = |s: &Snapshot| {
        s.projection
            .messages
            .iter()
            .map(|m| (m.role, m.checkpoint, m.text.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(texts(&original), texts(&back));
}

fn event_strategy() -> impl Strategy<Value = (u64, u8, String, u64, Option<u64>)> {
    (
        1u64..4,
        0u8..7,
        prop_oneof![Just(String::new()), "[a-z\n\"\\\\é😀\t]{0,12}"],
        0u64..6,
        proptest::option::of(1u64..200_000),
    )
}

proptest! {
    #[test]
    fn any_surface_round_trips(
        raw in proptest::collection::vec(event_strategy(), 0..24),
        created_at in 0u64..(1 << 53),
        cwd in proptest::option::of("[a-z/]{0,8}"),
        label in proptest::option::of("[a-z ]{1,8}"),
    ) {
        let mut seq = 0;
        let events: Vec<Entry<'static>> = raw
            .into_iter()
            .map(|(gap, kind, text, back, capacity)| {
                seq += gap;
                let text: Cow<'static, str> = text.into();
                let event = match kind {
                    0 => Event::Message { role: Role::User, text },
                    1 => Event::Message { role: Role::Assistant, text },
                    2 => Event::Checkpoint { through_seq: seq.saturating_sub(back), text },
                    3 => Event::Title(text),
                    4 => Event::Capacity(capacity),
                    5 => Event::Checkpoint { through_seq: seq + back, text },
                    _ => Event::Other,
                };
                Entry { seq, event }
            })
            .collect();
        let header = SessionHeader {
            version: 7,
            id: "sess/child".into(),
            created_at,
            cwd,
            label,
        };
        let original = snapshot_of(header, &events);
        let back = reparse(&write(&original, facts("sess/child")));
        assert_same_surface(&original, &back);
    }
}
