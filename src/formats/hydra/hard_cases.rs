//! Hand-written expectations of the hydra log's hardest cases (issue 27),
//! each from session-log.md (section named per test), not pasted from the
//! reader's output.

use super::Hydra;
use crate::formats::toolkit::hard_case::{expect, read_surface};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::LogFormat;

fn log(lines: &[&str], torn_tail: &str) -> MemoryLog {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(torn_tail);
    MemoryLog::new(text).modified(7)
}

const HEADER: &str = r#"{"type":"session","version":1,"id":"checkout-bug","createdAt":1764400000000,"cwd":"/home/ana/shop"}"#;

/// "Example": "Surface: checkpoint 5, then user 6. Title: 'Checkout tax
/// rounding'." — the contract's own example, its lines as written there,
/// and an append in progress after them ("bytes after the last `\n` …
/// are ignored").
#[test]
fn the_contract_example_reads_as_it_says() {
    let log = log(
        &[
            HEADER,
            r#"{"seq":1,"type":"user/message","data":{"id":"m1","source":{"kind":"user"},"content":[{"type":"text","text":"Why does checkout fail?"}]}}"#,
            r#"{"seq":2,"type":"assistant/delta","data":{"messageId":"m2","text":"Let me"}}"#,
            r#"{"seq":3,"type":"assistant/message","data":{"message":{"id":"m2","content":[{"type":"reasoning","text":"..."},{"type":"text","text":"The tax rounding is off."}]}}}"#,
            r#"{"seq":4,"type":"session/title","data":{"title":"Checkout tax rounding"}}"#,
            r#"{"seq":5,"type":"user/message","data":{"id":"m3","source":{"kind":"compaction","marker":"@hydraharness/harness-compaction","throughSeq":3},"content":[{"type":"text","text":"Summary: tax rounding bug found in cart.rs."}]}}"#,
            r#"{"seq":6,"type":"user/message","data":{"id":"m4","source":{"kind":"user"},"content":[{"type":"text","text":"Fix it."}]}}"#,
        ],
        r#"{"seq":7,"type":"user/message","data":{"source":{"kind":"user"},"con"#,
    );
    assert_eq!(
        read_surface(&Hydra, &log),
        expect(
            "checkout-bug",
            1_764_400_000_000,
            Some("/home/ana/shop"),
            Some("Checkout tax rounding"),
            None,
            &[
                ("checkpoint", "Summary: tax rounding bug found in cart.rs."),
                ("user", "Fix it."),
            ],
        )
    );
}

/// "Folding": the last checkpoint `C` shadows `seq ≤ throughSeq`; "an
/// earlier checkpoint that is not shadowed stays on the surface, still a
/// checkpoint". "Source": only the exact marker makes a checkpoint (any
/// other `compaction` source is a plugin message, never projected);
/// `session-reference` and plugin sources never. "Title: the last
/// `session/title` with a non-empty string title" (an empty one later
/// changes nothing). Header `label`: the display title. Unknown event
/// types are ignored; multiple text blocks — joined with "\n" (the
/// projection's rule, reference.md).
#[test]
fn an_unshadowed_checkpoint_stays_and_only_the_exact_marker_counts() {
    let cp = |seq: u32, through: u32, text: &str| {
        format!(
            r#"{{"seq":{seq},"type":"user/message","data":{{"source":{{"kind":"compaction","marker":"@hydraharness/harness-compaction","throughSeq":{through}}},"content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
    };
    let lines = [
        r#"{"type":"session","id":"s-7","createdAt":5,"label":"test-writer"}"#.to_string(),
        r#"{"seq":1,"type":"user/message","data":{"source":{"kind":"user"},"content":[{"type":"text","text":"Old"}]}}"#.into(),
        cp(2, 1, "First summary"),
        r#"{"seq":3,"type":"user/message","data":{"source":{"kind":"user"},"content":[{"type":"text","text":"Middle"},{"type":"image","url":"x"},{"type":"text","text":"part two"}]}}"#.into(),
        cp(4, 1, "Second summary"),
        r#"{"seq":5,"type":"user/message","data":{"source":{"kind":"compaction","marker":"other","throughSeq":4},"content":[{"type":"text","text":"Not a checkpoint"}]}}"#.into(),
        r#"{"seq":6,"type":"user/message","data":{"source":{"kind":"session-reference"},"content":[{"type":"text","text":"Injected"}]}}"#.into(),
        r#"{"seq":7,"type":"user/message","data":{"source":{"kind":"plugin","plugin":"p"},"content":[{"type":"text","text":"Plugin"}]}}"#.into(),
        r#"{"seq":9,"type":"session/title","data":{"title":"Named"}}"#.into(),
        r#"{"seq":10,"type":"future/event","data":{}}"#.into(),
        r#"{"seq":11,"type":"session/title","data":{"title":""}}"#.into(),
        r#"{"seq":12,"type":"assistant/message","data":{"message":{"content":[{"type":"text","text":"Done"}]}}}"#.into(),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        read_surface(&Hydra, &log(&lines, "")),
        expect(
            "s-7",
            5,
            None,
            Some("Named"),
            Some("test-writer"),
            &[
                ("checkpoint", "Second summary"),
                ("checkpoint", "First summary"),
                ("user", "Middle\npart two"),
                ("assistant", "Done"),
            ],
        )
    );
}

/// "Lines": "Every complete line after line 1 must be a valid event … a
/// `seq` missing or not greater than the one before … makes the read
/// fail …, naming the file and the line number" — strict, unlike the
/// agents' lenient formats.
#[test]
fn a_seq_that_does_not_increase_fails_the_read_at_its_line() {
    let log = log(
        &[
            HEADER,
            r#"{"seq":2,"type":"user/message","data":{"source":{"kind":"user"},"content":[]}}"#,
            "",
            r#"{"seq":2,"type":"session/title","data":{"title":"x"}}"#,
        ],
        "",
    );
    let error = Hydra.read(&log, &|| false, &mut |_| {}).unwrap_err();
    assert!(error.to_string().contains(":4:"), "{error}");
}
