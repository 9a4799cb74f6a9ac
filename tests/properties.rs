//! Property tests of the core against the contract's own definitions.

use std::borrow::Cow;

use hydra_session_lsp::formats::hydra::line::{Event, EventBody, SourceKind};
use hydra_session_lsp::formats::hydra::reader::to_entry;
use hydra_session_lsp::reference::mention::{format, parse};
use hydra_session_lsp::reference::projection::{Dropped, Message, Projection, Projector, Role};
use hydra_session_lsp::reference::render::write_data_object;
use hydra_session_lsp::reference::retention::{retain, truncate, Retained, SourceMeta};
use hydra_session_lsp::reference::uri::{decode, encode};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Text with the characters that matter: escapes, brackets, line breaks,
/// `<`, multi-byte and astral characters.
fn tricky_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("\\".to_string()),
            Just("]".to_string()),
            Just("[".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            Just("\u{2028}".to_string()),
            Just("<".to_string()),
            Just("é".to_string()),
            Just("😀".to_string()),
            Just("\u{1}".to_string()),
            "[a-z ]{1,8}",
            any::<String>(),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

fn meta(label: &str) -> SourceMeta<'_> {
    SourceMeta {
        session_id: "s-1",
        label,
        cwd: Some("/w"),
        captured_through_seq: Some(99),
    }
}

fn data_object(label: &str, retained: &Retained) -> String {
    let mut out = String::new();
    write_data_object(&mut out, &meta(label), &retained.conversation);
    out
}

/// reference.md §4 done the slow way: re-serialise the whole object after
/// every step with serde_json (whose string escaping is ECMAScript's), then
/// make it tag-safe.
fn naive_retain(messages: &[Message], budget: usize) -> Option<(Vec<String>, usize, u64)> {
    #[derive(Clone)]
    struct Item {
        role: &'static str,
        text: String,
        original: String,
        checkpoint: bool,
        omitted: u64,
    }
    let mut items: Vec<Item> = messages
        .iter()
        .map(|m| Item {
            role: m.role.as_str(),
            text: m.text.clone(),
            original: m.text.clone(),
            checkpoint: m.checkpoint,
            omitted: 0,
        })
        .collect();
    let size = |items: &[Item]| {
        let conversation: Vec<Value> = items
            .iter()
            .map(|i| json!({"role": i.role, "text": i.text}))
            .collect();
        let object = json!({"sessionId": "s-1", "label": "L", "cwd": "/w", "capturedThroughSeq": 99, "conversation": conversation});
        // serde_json's `json!` object keys sort, but sizes do not depend on order.
        serde_json::to_string(&object)
            .expect("serialises")
            .replace('<', "\\u003c")
            .len()
    };
    let (mut omitted_messages, mut dropped_bytes) = (0usize, 0u64);
    while size(&items) > budget {
        let last = items.len().saturating_sub(1);
        let Some(index) = items
            .iter()
            .enumerate()
            .position(|(i, item)| !item.checkpoint && i != last)
        else {
            break;
        };
        let removed = items.remove(index);
        omitted_messages += 1;
        dropped_bytes += removed.original.len() as u64;
    }
    while size(&items) > budget {
        let mut longest: Option<(usize, usize)> = None;
        for (i, item) in items.iter().enumerate() {
            if longest.is_none_or(|(_, bytes)| item.text.len() > bytes) {
                longest = Some((i, item.text.len()));
            }
        }
        let (index, bytes) = longest.filter(|&(_, b)| b > 0)?;
        let target = bytes.saturating_sub(size(&items) - budget);
        let (text, omitted) = truncate(&items[index].original, target);
        if text == items[index].text {
            return None;
        }
        items[index].text = text.into_owned();
        items[index].omitted = omitted;
    }
    let omitted_bytes = dropped_bytes + items.iter().map(|i| i.omitted).sum::<u64>();
    Some((
        items.into_iter().map(|i| i.text).collect(),
        omitted_messages,
        omitted_bytes,
    ))
}

fn messages_strategy() -> impl Strategy<Value = Vec<Message>> {
    prop::collection::vec(
        (any::<bool>(), prop::bool::weighted(0.15), tricky_text()),
        0..14,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .filter(|(_, (_, _, text))| !text.is_empty())
            .map(|(i, (user, checkpoint, text))| Message {
                seq: i as u64 + 1,
                role: if user || checkpoint {
                    Role::User
                } else {
                    Role::Assistant
                },
                checkpoint,
                text,
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn uri_round_trips(id in any::<String>()) {
        let uri = encode(&id);
        prop_assert_eq!(decode(&uri), Ok(id));
    }

    #[test]
    fn mention_round_trips(id in any::<String>(), label in tricky_text()) {
        let mention = format(&id, Some(&label));
        let parsed = parse(&mention).expect("a formatted mention parses");
        prop_assert_eq!(parsed.references.len(), 1);
        prop_assert_eq!(&parsed.references[0].session_id, &id);
        prop_assert_eq!(&parsed.references[0].label, &label);
        prop_assert_eq!(parsed.text, format!("@{label}"));
    }

    #[test]
    fn truncate_fits_and_keeps_characters_whole(text in tricky_text(), target in 0usize..200) {
        let (out, omitted) = truncate(&text, target);
        if text.len() <= target {
            prop_assert_eq!(out.as_ref(), text.as_str());
            prop_assert_eq!(omitted, 0);
        } else {
            prop_assert!(out.len() <= target);
            prop_assert!(omitted as usize <= text.len());
            // `out` is a String: a split character could not be in it. The
            // head and tail are a prefix and a suffix of the original.
            if let Some((head, rest)) = out.split_once("\n[… omitted ") {
                prop_assert!(text.starts_with(head));
                let tail = rest.split_once(" UTF-8 bytes …]\n").map(|(_, t)| t).unwrap_or_default();
                prop_assert!(text.ends_with(tail));
                prop_assert_eq!(head.len() + tail.len() + omitted as usize, text.len());
            }
        }
    }

    #[test]
    fn retention_fits_and_matches_the_naive_definition(messages in messages_strategy(), budget in 60usize..1500) {
        let projection = Projection { messages: messages.clone(), dropped: Dropped::default(), compacted: false, ..Projection::default() };
        let ours = retain(&meta("L"), projection, budget);
        let naive = naive_retain(&messages, budget);
        match (ours, naive) {
            (Ok(retained), Some((texts, omitted_messages, omitted_bytes))) => {
                let object = data_object("L", &retained);
                prop_assert!(object.len() <= budget, "{} > {}", object.len(), budget);
                let parsed: Value = serde_json::from_str(&object).expect("the data object is JSON");
                prop_assert!(parsed["conversation"].is_array());
                prop_assert!(!object.contains('<'));
                let ours: Vec<String> = retained.conversation.iter().map(|t| t.text.clone()).collect();
                prop_assert_eq!(ours, texts);
                prop_assert_eq!(retained.stats.omitted_messages, omitted_messages);
                prop_assert_eq!(retained.stats.omitted_bytes, omitted_bytes);
            }
            (Err(_), None) => {}
            (ours, naive) => prop_assert!(false, "ours {:?} vs naive {:?}", ours.map(|r| r.stats), naive),
        }
    }

    /// Forgetting text early (streaming) never changes what retention keeps.
    #[test]
    fn streaming_projection_matches_full_projection(
        raw in prop::collection::vec((0u8..4, 0u64..12, tricky_text()), 0..30),
        budget in 150usize..900,
    ) {
        let mut events = Vec::new();
        for (i, (kind, through, text)) in raw.iter().enumerate() {
            let seq = i as u64 + 1;
            let texts = vec![Cow::Borrowed(text.as_str())];
            let body = match kind {
                0 => EventBody::UserMessage { source: SourceKind::User, texts },
                1 => EventBody::AssistantMessage { texts },
                2 => EventBody::UserMessage { source: SourceKind::Checkpoint { through_seq: *through }, texts },
                _ => EventBody::ToolResult,
            };
            events.push(Event { seq, body });
        }
        let label = "L";
        let fixed = hydra_session_lsp::reference::retention::fixed_size(&SourceMeta { captured_through_seq: None, ..meta(label) });
        let mut streaming = Projector::new(Some(fixed), budget);
        let mut full = Projector::new(None, usize::MAX);
        for event in &events {
            streaming.push(to_entry(event.clone()));
            full.push(to_entry(event.clone()));
        }
        let (streaming, full) = (streaming.finish(), full.finish());
        prop_assert_eq!(streaming.original_messages(), full.original_messages());
        prop_assert_eq!(streaming.compacted, full.compacted);
        let a = retain(&meta(label), streaming, budget).map(|r| (r.conversation, r.stats));
        let b = retain(&meta(label), full, budget).map(|r| (r.conversation, r.stats));
        prop_assert_eq!(a, b);
    }
}
