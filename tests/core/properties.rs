//! Property tests of the core against the contract's own definitions.

use std::borrow::Cow;

use hydra_session_lsp::formats::hydra::line::{Event, EventBody, SourceKind};
use hydra_session_lsp::formats::hydra::reader::to_entry;
use hydra_session_lsp::reference::mention::{format, is_ecma_whitespace, parse, scan};
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

/// Mostly checkpoints, some long: step 2 then has many survivors to cut.
fn checkpoint_heavy_strategy() -> impl Strategy<Value = Vec<Message>> {
    prop::collection::vec((prop::bool::weighted(0.8), tricky_text(), 0usize..4), 0..40).prop_map(
        |raw| {
            raw.into_iter()
                .enumerate()
                .filter(|(_, (_, text, _))| !text.is_empty())
                .map(|(i, (checkpoint, text, repeat))| Message {
                    seq: i as u64 + 1,
                    role: Role::User,
                    checkpoint,
                    text: text.repeat(1 + repeat * 5),
                })
                .collect()
        },
    )
}

/// Issue 10 item 5: 200,000 checkpoints that shadow nothing took 89 s to
/// `prepare` (step 2 looked for the longest message in a linear scan per
/// cut). A hang guard; the figures are in the `core` bench.
#[test]
fn retention_of_200k_unshadowed_checkpoints_is_not_quadratic() {
    let messages: Vec<Message> = (0..200_000u64)
        .map(|i| Message {
            seq: i + 1,
            role: Role::User,
            checkpoint: true,
            text: format!("summary {i}: rounding is per cart now"),
        })
        .collect();
    let started = std::time::Instant::now();
    let projection = Projection {
        messages,
        dropped: Dropped::default(),
        compacted: true,
        ..Projection::default()
    };
    // Every checkpoint is kept and cut to nothing, and that still does not fit.
    assert!(retain(&meta("L"), projection, 65_536).is_err());
    // A fitting case: a few long checkpoints among many short ones.
    let messages: Vec<Message> = (0..20_000u64)
        .map(|i| Message {
            seq: i + 1,
            role: Role::User,
            checkpoint: true,
            text: if i % 1000 == 0 {
                "x".repeat(5_000)
            } else {
                "s".to_string()
            },
        })
        .collect();
    let projection = Projection {
        messages,
        dropped: Dropped::default(),
        compacted: true,
        ..Projection::default()
    };
    let retained = retain(&meta("L"), projection, 600_000).expect("fits");
    assert!(data_object("L", &retained).len() <= 600_000);
    assert!(retained.stats.omitted_bytes > 0);
    // Quadratic work would take many minutes; 60 s tells it apart even on
    // a loaded machine (it failed once at 10 s at a load of 20).
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

/// The mention regex of reference.md §2 applied literally, left to right,
/// trying each start anew (quadratic; the scanner must agree with it).
fn naive_scan(text: &str) -> Vec<(usize, usize)> {
    let terminator = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
    let markdown = |at: usize| -> Option<usize> {
        let rest = text[at..].strip_prefix("@[")?;
        let mut chars = rest.char_indices();
        let label_end = loop {
            match chars.next()? {
                (i, ']') => break i,
                (_, '\\') => match chars.next() {
                    Some((_, c)) if !terminator(c) => {}
                    _ => return None,
                },
                _ => {}
            }
        };
        let uri = rest[label_end..].strip_prefix("](")?;
        uri.strip_prefix("hydra-session:")?;
        let (i, c) = uri
            .char_indices()
            .find(|&(_, c)| c == ')' || is_ecma_whitespace(c))?;
        (c == ')').then(|| text.len() - uri.len() + i + 1)
    };
    let bare = |at: usize| -> Option<usize> {
        let payload = text[at..].strip_prefix("hydra-session:")?;
        let n = payload
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
            .count();
        (n > 0).then(|| at + "hydra-session:".len() + n)
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        match markdown(at).or_else(|| bare(at)) {
            Some(end) => {
                out.push((at, end));
                at = end;
            }
            None => at += text[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// Text made of the pieces of mentions, so that near misses are common.
fn mention_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("@[".to_string()),
            Just("](".to_string()),
            Just("hydra-session:".to_string()),
            Just(")".to_string()),
            Just("]".to_string()),
            Just("\\".to_string()),
            Just(" ".to_string()),
            Just("\n".to_string()),
            Just("\u{3000}".to_string()),
            Just("ImEi".to_string()),
            Just("é".to_string()),
            "[a-z@()]{1,3}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn scanner_matches_the_naive_regex(text in mention_soup()) {
        let found: Vec<(usize, usize)> = scan(&text).iter().map(|m| (m.span.start, m.span.end)).collect();
        prop_assert_eq!(found, naive_scan(&text));
    }

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

    #[test]
    fn retention_with_many_checkpoints_matches_the_naive_definition(messages in checkpoint_heavy_strategy(), budget in 60usize..3000) {
        let projection = Projection { messages: messages.clone(), dropped: Dropped::default(), compacted: true, ..Projection::default() };
        let ours = retain(&meta("L"), projection, budget);
        let naive = naive_retain(&messages, budget);
        match (ours, naive) {
            (Ok(retained), Some((texts, omitted_messages, omitted_bytes))) => {
                prop_assert!(data_object("L", &retained).len() <= budget);
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
