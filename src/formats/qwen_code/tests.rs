//! The Qwen Code format on fixtures written here from Qwen's source (no
//! file Qwen wrote was found in a public repository; their expected
//! events in golden files beside them), hand-written expectations of the
//! hardest cases (aggregated streaming records, rewind, chat_compression,
//! custom_title, sidechains), and generated logs.

use std::path::PathBuf;

use super::*;
use crate::formats::toolkit::golden::{assert_golden, read_as_json};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::test_support::{
    detected, in_clone, lines, marked_surface, owned, scan_lines, unplaced,
};
use crate::formats::{HeaderState, LogFormat};

const CHATS: &str = "tests/fixtures/qwen-code/projects/-home-ana-shop/chats";
const MAIN: &str = "3b9f6c2e-1d4a-4e8b-9c7f-5a6b7c8d9e0f";
const SUB: &str = "7e6d5c4b-3a29-4f18-8e07-d6c5b4a39281";
const NONE: &str = "c0ffee00-1111-4222-8333-444455556666";

fn own(id: &str) -> PathBuf {
    in_clone(format!("{CHATS}/{id}.jsonl"))
}

/// A record line of session `s`.
fn rec(uuid: &str, parent: Option<&str>, kind: &str, extra: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","timestamp":"2026-05-01T10:00:00Z","type":"{kind}","cwd":"/w"{extra}}}"#
    )
}

fn text(role: &str, t: &str) -> String {
    format!(r#","message":{{"role":"{role}","parts":[{{"text":"{t}"}}]}}"#)
}

#[test]
fn the_fixtures_read_as_their_golden_files_say() {
    for id in [MAIN, SUB, NONE] {
        let path = own(id);
        assert_golden(&path, &read_as_json(&QwenCode, &unplaced(&path)));
    }
}

#[test]
fn streaming_records_rewind_compression_title_and_sidechains() {
    let log = unplaced(&own(MAIN));
    // The rewound turn (u2, a3) is on a dead branch; the sub-agent's
    // records are off the chain; everything before the compression is
    // shadowed by it, its ack is not shown, its retained history follows;
    // the notification is the system's; the two `a5` records are one
    // message.
    assert_eq!(
        marked_surface(&QwenCode, &log),
        owned(&[
            (
                "checkpoint",
                "<state_snapshot>The cart total drifted; lines are now rounded first.</state_snapshot>"
            ),
            ("user", "Round per line instead"),
            ("assistant", "Rounding each line first."),
            ("user", "Now add a test"),
            ("assistant", "Added `tests/cart.rs`."),
        ])
    );
    let summary = QwenCode.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.title.as_deref(), Some("Cart rounding"));
    assert_eq!(summary.header.id, MAIN);
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/ana/shop"));
    assert_eq!(
        Some(summary.header.created_at),
        crate::formats::text::parse_timestamp("2026-05-01T10:00:00Z")
    );
    assert_eq!(summary.capacity, Some(262_144));
    assert_eq!(summary.skipped_lines, 1);
    assert_eq!(summary.captured_through_seq, Some(22));
    let scanner = scan_lines(&QwenCode, &log);
    assert_eq!(scanner.header(), HeaderState::Session(summary.header));
    assert_eq!(scanner.meta().title, summary.title);
    assert_eq!(scanner.meta().capacity, Some(262_144));
}

#[test]
fn records_of_one_uuid_are_one_message_at_its_first_line() {
    // Without a compression, the streamed assistant message joins its
    // three records (the thought left out) at line 2, before the user's
    // reply that follows it on the chain.
    let log = lines(&[
        &rec("u1", None, "user", &text("user", "Why?")),
        &rec(
            "a1",
            Some("u1"),
            "assistant",
            r#","message":{"role":"model","parts":[{"text":"think","thought":true}]}"#,
        ),
        &rec("a1", Some("u1"), "assistant", &text("model", "Because ")),
        &rec(
            "t1",
            Some("a1"),
            "tool_result",
            r#","message":{"role":"user","parts":[{"functionResponse":{}}]}"#,
        ),
        &rec(
            "a1",
            Some("zz"),
            "assistant",
            &text("model", "of rounding."),
        ),
        &rec("u2", Some("t1"), "user", &text("user", "And?")),
        &rec(
            "x",
            Some("u2"),
            "assistant",
            &format!(r#","isSidechain":true{}"#, text("model", "side")),
        ),
    ]);
    assert_eq!(
        marked_surface(&QwenCode, &log),
        owned(&[
            ("user", "Why?"),
            ("assistant", "Because of rounding."),
            ("user", "And?"),
        ])
    );
    let mut seqs = Vec::new();
    QwenCode
        .read(&log, &|| false, &mut |e| seqs.push(e.seq))
        .unwrap();
    let k = reader::SPACING;
    assert_eq!(seqs, [k, 2 * k, 6 * k]);
}

#[test]
fn a_compression_without_a_summary_and_titles() {
    let log = lines(&[
        &rec("u1", None, "user", &text("user", "first prompt")),
        &rec(
            "k",
            Some("u1"),
            "system",
            r#","subtype":"chat_compression","systemPayload":{"compressedHistory":[]}"#,
        ),
        &rec(
            "t",
            Some("k"),
            "system",
            r#","subtype":"custom_title","systemPayload":{"customTitle":"  ","titleSource":"auto"}"#,
        ),
        &rec("a", Some("t"), "assistant", &text("model", "after")),
    ]);
    assert_eq!(
        marked_surface(&QwenCode, &log),
        owned(&[
            ("checkpoint", crate::formats::copilot_cli::track::NO_SUMMARY),
            ("assistant", "after"),
        ])
    );
    // An empty custom title is none: the first user message is the title.
    let summary = QwenCode.read(&log, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.title.as_deref(), Some("first prompt"));
    // An auto title counts as a manual one.
    let auto = lines(&[
        &rec("u1", None, "user", &text("user", "first prompt")),
        &rec(
            "t",
            Some("u1"),
            "system",
            r#","subtype":"custom_title","systemPayload":{"customTitle":"Auto named","titleSource":"auto"}"#,
        ),
    ]);
    let summary = QwenCode.read(&auto, &|| false, &mut |_| {}).unwrap();
    assert_eq!(summary.title.as_deref(), Some("Auto named"));
}

#[test]
fn what_is_no_session() {
    // A file of system records only: no message.
    let log = unplaced(&own(NONE));
    let err = QwenCode.read(&log, &|| false, &mut |_| {}).unwrap_err();
    assert!(
        err.to_string().contains("no user or assistant message"),
        "{err}"
    );
    assert_eq!(scan_lines(&QwenCode, &log).header(), HeaderState::Pending);
    // A Claude Code line is not Qwen's, in a qwen-code store too.
    let claude = lines(&[
        r#"{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#,
    ]);
    assert!(QwenCode.read(&claude, &|| false, &mut |_| {}).is_err());
    assert!(matches!(
        scan_lines(&QwenCode, &claude).header(),
        HeaderState::NotASession(_)
    ));
    assert_eq!(
        detected(claude.bytes.strip_suffix(b"\n").unwrap()),
        Some("claude-code")
    );
    let qwen = rec("u1", None, "user", &text("user", "hi"));
    assert_eq!(detected(qwen.as_bytes()), Some("qwen-code"));
    // Invalid UTF-8 fails the read; the scan lists it, failed.
    let mut bytes = format!("{}\n", rec("u1", None, "user", &text("user", "hi"))).into_bytes();
    bytes.extend_from_slice(b"{\"uuid\":\"\xff\"}\n");
    let bad = MemoryLog::new(bytes);
    let err = QwenCode.read(&bad, &|| false, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains(":2: invalid UTF-8"), "{err}");
    assert!(scan_lines(&QwenCode, &bad).meta().failure.is_some());
}

fn pool() -> Vec<String> {
    vec![
        rec("u1", None, "user", &text("user", "one")),
        rec("a1", Some("u1"), "assistant", &text("model", "part ")),
        rec("a1", Some("u1"), "assistant", &text("model", "two")),
        rec("t1", Some("a1"), "tool_result", ""),
        rec("u2", Some("t1"), "user", &text("user", "three")),
        rec(
            "r",
            Some("a1"),
            "system",
            r#","subtype":"rewind","systemPayload":{"truncatedCount":1}"#,
        ),
        rec(
            "k",
            Some("u2"),
            "system",
            r#","subtype":"chat_compression","systemPayload":{"compressedHistory":[{"role":"user","parts":[{"text":"sum"}]},{"role":"model","parts":[{"text":"kept"}]}]}"#,
        ),
        rec(
            "a2",
            Some("k"),
            "assistant",
            &format!(r#","contextWindowSize":1000{}"#, text("model", "four")),
        ),
        rec(
            "ct",
            Some("a2"),
            "system",
            r#","subtype":"custom_title","systemPayload":{"customTitle":"T"}"#,
        ),
        rec(
            "s",
            None,
            "user",
            &format!(r#","isSidechain":true{}"#, text("user", "side")),
        ),
        rec(
            "n",
            Some("u2"),
            "user",
            &format!(r#","subtype":"cron"{}"#, text("user", "cron")),
        ),
        "not json".into(),
        String::new(),
        r#"{"uuid":"x"}"#.into(),
    ]
}

proptest::proptest! {
    /// Any generated log, cut anywhere, never panics; a scan and a read
    /// agree on the header, title, capacity and skipped lines; seqs
    /// increase.
    #[test]
    fn a_scan_and_a_read_agree_on_any_cut_of_any_log(
        picks in proptest::collection::vec(0usize..14, 0..30),
        cut in 0usize..5000,
    ) {
        let pool = pool();
        let mut bytes = format!("{}\n", pool[0]).into_bytes();
        for &p in &picks {
            bytes.extend_from_slice(pool[p].as_bytes());
            bytes.push(b'\n');
        }
        let cut = cut.min(bytes.len());
        let log = MemoryLog::new(bytes[..cut].to_vec()).modified(7);
        let mut seqs = Vec::new();
        let read = QwenCode.read(&log, &|| false, &mut |e| seqs.push(e.seq));
        proptest::prop_assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{:?}", seqs);
        let scanner = scan_lines(&QwenCode, &log);
        match read {
            Ok(summary) => {
                proptest::prop_assert_eq!(scanner.header(), HeaderState::Session(summary.header.clone()));
                let meta = scanner.meta();
                proptest::prop_assert_eq!(meta.title, summary.title);
                proptest::prop_assert_eq!(meta.capacity, summary.capacity);
                proptest::prop_assert_eq!(meta.skipped_lines, summary.skipped_lines);
            }
            Err(_) => proptest::prop_assert!(!matches!(scanner.header(), HeaderState::Session(_))),
        }
        // Fed in two parts, as after an append.
        let whole = scan_lines(&QwenCode, &MemoryLog::new(bytes.clone()));
        let complete = bytes[..cut].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut pieces = scan_lines(&QwenCode, &MemoryLog::new(bytes[..complete].to_vec()));
        if let Some(rest) = bytes[complete..].strip_suffix(b"\n") {
            for l in rest.split(|&b| b == b'\n') {
                pieces.line(l);
            }
        }
        proptest::prop_assert_eq!(pieces.header(), whole.header());
        proptest::prop_assert_eq!(pieces.meta(), whole.meta());
    }
}

#[test]
fn a_message_held_over_the_cap_is_handed_on_and_its_rest_follows() {
    let big = "x".repeat(5 << 20);
    let log = lines(&[
        &rec("u1", None, "user", &text("user", "start")),
        &rec("a1", Some("u1"), "assistant", &text("model", &big)),
        &rec("u2", Some("a1"), "user", &text("user", "go on")),
        &rec("a1", Some("u1"), "assistant", &text("model", "tail")),
        &rec("t", Some("u2"), "tool_result", ""),
    ]);
    let mut seen = Vec::new();
    QwenCode
        .read(&log, &|| false, &mut |e| {
            if let crate::model::Event::Message { text, .. } = e.event {
                seen.push((e.seq / reader::SPACING, text.len()));
            }
        })
        .unwrap();
    assert_eq!(seen, [(1, 5), (2, 5 << 20), (3, 5), (4, 4)]);
}
