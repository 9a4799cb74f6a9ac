//! The full snapshot a spill stores (reference.md §5a) is the source's
//! data object before retention — every projected message, untruncated,
//! in surface order — followed by `"\n"`, whatever the log: checkpoints
//! that shadow, earlier checkpoints that stay, messages before the last
//! checkpoint in log order but after its `throughSeq`.

use std::borrow::Cow;
use std::io::Write;
use std::sync::Mutex;

use hydra_session_lsp::formats::hydra::line::{Event, EventBody, SourceKind};
use hydra_session_lsp::formats::hydra::reader::to_entry;
use hydra_session_lsp::model::{Entry, ReadSummary, SessionHeader};
use hydra_session_lsp::reference::budget::{BudgetSetting, TargetCapacity};
use hydra_session_lsp::reference::full_snapshot::{FullSnapshot, SpillStore};
use hydra_session_lsp::reference::mention::Reference;
use hydra_session_lsp::reference::prepare::{prepare, Cancelled, PrepareOptions, SnapshotSource};
use hydra_session_lsp::reference::projection::Projector;
use hydra_session_lsp::reference::render::{write_data_object, SourceMeta, Turn};
use hydra_session_lsp::reference::retention::fixed_size;
use hydra_session_lsp::reference::snapshot::Snapshot;
use hydra_session_lsp::reference::ReferenceError;
use proptest::prelude::*;

/// One log, replayed from memory as often as asked.
struct Replay {
    events: Vec<(u8, u64, String)>,
}

impl Replay {
    fn header() -> SessionHeader {
        SessionHeader {
            version: 1,
            id: "s-<1>".into(),
            created_at: 1,
            cwd: Some("/w".into()),
            label: None,
        }
    }

    fn last_seq(&self) -> Option<u64> {
        (!self.events.is_empty()).then_some(self.events.len() as u64)
    }

    fn replay(&self, sink: &mut dyn FnMut(Entry<'_>)) {
        for (i, (kind, through, text)) in self.events.iter().enumerate() {
            let texts = vec![Cow::Borrowed(text.as_str())];
            let body = match kind {
                0 => EventBody::UserMessage {
                    source: SourceKind::User,
                    texts,
                },
                1 => EventBody::AssistantMessage { texts },
                2 => EventBody::UserMessage {
                    source: SourceKind::Checkpoint {
                        through_seq: *through,
                    },
                    texts,
                },
                _ => EventBody::ToolResult,
            };
            sink(to_entry(Event {
                seq: i as u64 + 1,
                body,
            }));
        }
    }
}

impl SnapshotSource for Replay {
    fn snapshot(
        &self,
        _session_id: &str,
        label: &str,
        budget: Option<usize>,
        _cancelled: Cancelled<'_>,
    ) -> Result<Snapshot, ReferenceError> {
        let header = Self::header();
        let fixed = budget.map(|_| {
            fixed_size(&SourceMeta {
                session_id: &header.id,
                label,
                cwd: header.cwd.as_deref(),
                captured_through_seq: None,
            })
        });
        let mut projector = Projector::new(fixed, budget.unwrap_or(usize::MAX));
        self.replay(&mut |e| projector.push(e));
        Ok(Snapshot {
            header,
            captured_through_seq: self.last_seq(),
            title: None,
            capacity: None,
            skipped_lines: 0,
            bytes: 7,
            projection: projector.finish(),
        })
    }

    fn capacity(&self, _: &str, _: Cancelled<'_>) -> Result<TargetCapacity, ReferenceError> {
        Ok(TargetCapacity::NotInStore)
    }

    fn reread(
        &self,
        _session_id: &str,
        bytes: u64,
        _cancelled: Cancelled<'_>,
        sink: &mut dyn FnMut(Entry<'_>),
    ) -> Result<ReadSummary, ReferenceError> {
        assert_eq!(bytes, 7, "the second pass reads the first one's bytes");
        self.replay(sink);
        Ok(ReadSummary {
            header: Self::header(),
            captured_through_seq: self.last_seq(),
            title: None,
            capacity: None,
            skipped_lines: 0,
            bytes,
        })
    }
}

/// Keeps what it is given in memory.
#[derive(Default)]
struct Memory {
    stored: Mutex<Vec<Vec<u8>>>,
}

impl SpillStore for Memory {
    fn store(&self, write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> FullSnapshot {
        let mut bytes = Vec::new();
        if let Err(e) = write(&mut bytes) {
            return FullSnapshot::Unavailable(format!("spill failed: {e}"));
        }
        let n = bytes.len() as u64;
        if let Ok(mut stored) = self.stored.lock() {
            stored.push(bytes);
        }
        FullSnapshot::Stored {
            path: "/mem/x.json".into(),
            bytes: n,
        }
    }

    fn evict(&self, _keep: &[String]) {}

    fn locator_bound(&self) -> usize {
        64
    }
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a", "é", "😀", "<", "\"", "\\", "\n", "\u{1}", " ", "xyz",
        ]),
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_full_snapshot_is_the_data_object_before_retention(
        events in prop::collection::vec((0u8..4, 0u64..14, text()), 1..30),
        budget in 200usize..700,
    ) {
        let log = Replay { events };
        let memory = Memory::default();
        let label = "L<abel>";
        let references = [Reference { session_id: "s-<1>".into(), label: label.into() }];
        let options = PrepareOptions {
            target: None,
            max_references: 3,
            max_reference_bytes: BudgetSetting::Fixed(budget),
        };
        let Ok(prepared) = prepare(String::new(), &references, options, &log, Some(&memory), &|| false) else {
            // Fixed fields that cannot fit: nothing may be stored.
            prop_assert!(memory.stored.lock().unwrap().is_empty());
            return Ok(());
        };
        let stats = &prepared.additional_context.as_ref().unwrap().source.references[0];
        let stored = memory.stored.lock().unwrap();
        if !stats.truncated {
            prop_assert!(stored.is_empty());
            return Ok(());
        }
        prop_assert_eq!(stored.len(), 1);
        // The same surface, projected with no budget at all.
        let mut full = Projector::new(None, usize::MAX);
        log.replay(&mut |e| full.push(e));
        let turns: Vec<Turn> = full
            .finish()
            .messages
            .into_iter()
            .map(|m| Turn { role: m.role, text: m.text })
            .collect();
        let header = Replay::header();
        let mut expected = String::new();
        write_data_object(
            &mut expected,
            &SourceMeta {
                session_id: &header.id,
                label,
                cwd: header.cwd.as_deref(),
                captured_through_seq: log.last_seq(),
            },
            &turns,
        );
        expected.push('\n');
        prop_assert_eq!(String::from_utf8(stored[0].clone()).unwrap(), expected);
        let context = &prepared.additional_context.as_ref().unwrap().content[0].text;
        let locator = format!("\"fullSnapshot\":{{\"path\":\"/mem/x.json\",\"bytes\":{}}}}}]", stored[0].len());
        prop_assert!(context.contains(&locator), "{}", context);
    }
}
