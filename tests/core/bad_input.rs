//! Bad logs and bad documents: a clear error, never a panic or a partial
//! context.

use std::fs;
use std::path::Path;

use hydra_session_lsp::formats::hydra::line::{parse_event, parse_header};
use hydra_session_lsp::model::SessionStore;
use hydra_session_lsp::proto::ext;
use hydra_session_lsp::reference::budget::BudgetSetting;
use hydra_session_lsp::reference::diagnostics::{diagnose, DiagnosticOptions};
use hydra_session_lsp::reference::prepare::{prepare_text, PrepareOptions};
use hydra_session_lsp::reference::{mention, uri, ErrorCode};
use hydra_session_lsp::store::FsStore;
use proptest::prelude::*;

const HEADER: &str = r#"{"type":"session","version":1,"id":"s","createdAt":1,"cwd":"/w"}"#;
const GOOD: &str = r#"{"seq":1,"type":"user/message","data":{"source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]}}"#;

fn options() -> PrepareOptions<'static> {
    PrepareOptions {
        target: None,
        max_references: 3,
        max_reference_bytes: BudgetSetting::Fixed(65_536),
    }
}

fn prepare_in(store: &Path) -> Result<String, hydra_session_lsp::reference::ReferenceError> {
    let catalog = FsStore::scan(store);
    let text = format!("see {}", mention::format("s", None));
    prepare_text(&text, options(), &catalog, None, &|| false)
        .map(|p| serde_json::to_string(&ext::Prepared::from(p)).unwrap_or_default())
}

fn store_with(log: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join("s.jsonl"), log).expect("write log");
    dir
}

#[test]
fn every_corrupt_line_names_file_and_line() {
    let bad_lines = [
        "{not json",
        "[1,2]",
        "   ",
        r#"{"type":"user/message"}"#,
        r#"{"seq":1}"#,
        r#"{"seq":"1","type":"x"}"#,
        r#"{"seq":1.0,"type":"x"}"#,
        r#"{"seq":1,"type":"user/message","data":{"source":{"kind":"user"},"content":"text"}}"#,
        r#"{"seq":1,"type":"assistant/message","data":{"message":null}}"#,
        r#"{"seq":1,"type":"session/title","data":{"title":5}}"#,
        r#"{"seq":1,"type":"x","note":"\udead"}"#,
    ];
    for bad in bad_lines {
        let log = format!("{HEADER}\n{GOOD}\n\n{bad}\n");
        let store = store_with(log.as_bytes());
        let error = prepare_in(store.path()).expect_err(bad);
        assert_eq!(error.code, ErrorCode::ReadFailed, "{bad}");
        assert!(
            error.message.contains("s.jsonl:4:"),
            "{bad}: {}",
            error.message
        );
    }
    // A seq that does not grow.
    let log = format!("{HEADER}\n{GOOD}\n{GOOD}\n");
    let error = prepare_in(store_with(log.as_bytes()).path()).expect_err("repeated seq");
    assert!(error.message.contains("s.jsonl:3:"), "{}", error.message);
    // Invalid UTF-8.
    let mut log = format!("{HEADER}\n").into_bytes();
    log.extend_from_slice(b"{\"seq\":1,\"type\":\"x\",\"y\":\"\xc3\x28\"}\n");
    let error = prepare_in(store_with(&log).path()).expect_err("bad UTF-8");
    assert!(
        error.message.contains("s.jsonl:2: invalid UTF-8"),
        "{}",
        error.message
    );
}

#[test]
fn an_unfinished_last_line_is_ignored() {
    let log = format!("{HEADER}\n{GOOD}\n{{\"seq\":2,\"type\":\"user/mess");
    let store = store_with(log.as_bytes());
    let prepared = prepare_in(store.path()).expect("reads up to the last newline");
    assert!(prepared.contains(r#""capturedThroughSeq":1"#), "{prepared}");
}

#[test]
fn a_huge_line_is_read_whole() {
    let text = "x".repeat(3 << 20);
    let line = format!(
        r#"{{"seq":1,"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    );
    let store = store_with(format!("{HEADER}\n{line}\n").as_bytes());
    let prepared = prepare_in(store.path()).expect("fits after truncation");
    assert!(prepared.len() < 70_000);
    // The one message is kept, cut in the middle (reference.md §4): what
    // was cut is exactly the bytes that did not make it into the context.
    let prepared: serde_json::Value = serde_json::from_str(&prepared).expect("JSON");
    let stats = &prepared["additionalContext"]["source"]["references"][0];
    assert_eq!(stats["retainedMessages"], 1, "{stats}");
    assert_eq!(stats["omittedMessages"], 0, "{stats}");
    assert_eq!(stats["truncated"], true, "{stats}");
    let omitted = stats["omittedBytes"]
        .as_u64()
        .expect("omittedBytes is a number");
    let rendered = prepared["additionalContext"]["content"][0]["text"]
        .as_str()
        .expect("the rendered context");
    let start = rendered
        .find("<referenced-sessions>\n")
        .expect("opening tag")
        + "<referenced-sessions>\n".len();
    let end = rendered
        .rfind("\n</referenced-sessions>")
        .expect("closing tag");
    let sources: serde_json::Value = serde_json::from_str(&rendered[start..end]).expect("JSON");
    let cut = sources[0]["conversation"][0]["text"]
        .as_str()
        .expect("the message's text");
    // Head, notice, tail: the head and tail are the text's own bytes, and
    // with the omitted ones they make the whole text.
    let notice = format!("\n[… omitted {omitted} UTF-8 bytes …]\n");
    let (head, tail) = cut
        .split_once(notice.as_str())
        .expect("a notice of the omitted bytes");
    assert!(head.bytes().chain(tail.bytes()).all(|b| b == b'x'));
    let kept = (head.len() + tail.len()) as u64;
    assert_eq!(
        kept + omitted,
        text.len() as u64,
        "kept {kept}, omitted {omitted}"
    );
    assert!(kept > 0 && kept < 65_536, "kept {kept}");
}

#[test]
fn files_that_are_not_sessions_are_skipped() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, bytes) in [
        ("empty.jsonl", &b""[..]),
        ("unterminated.jsonl", HEADER.as_bytes()),
        ("blank.jsonl", b"\n"),
        ("array.jsonl", b"[]\n"),
    ] {
        fs::write(dir.path().join(name), bytes).expect("write");
    }
    let catalog = FsStore::scan(dir.path());
    assert!(catalog.is_empty());
    assert_eq!(catalog.notes().len(), 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bytes_never_panic_as_lines(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = parse_header(&bytes);
        let _ = parse_event(&bytes);
    }

    #[test]
    fn json_like_lines_never_panic(line in r#"\{("(seq|type|data|source|kind|content|text|message|title|throughSeq|marker)":(1|-1|1\.5|"user"|"text"|null|\[|\{|\]|\}|,|"\\ud800"))*\}?"#) {
        let _ = parse_event(line.as_bytes());
    }

    #[test]
    fn random_logs_never_panic(body in prop::collection::vec(any::<u8>(), 0..2000), cut in 0usize..2000) {
        let mut log = format!("{HEADER}\n{GOOD}\n").into_bytes();
        log.extend_from_slice(&body[..cut.min(body.len())]);
        let store = store_with(&log);
        match prepare_in(store.path()) {
            Ok(prepared) => prop_assert!(prepared.contains("## Referenced sessions")),
            Err(error) => prop_assert_eq!(error.code, ErrorCode::ReadFailed),
        }
    }

    #[test]
    fn random_documents_never_panic(text in any::<String>(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        let catalog = FsStore::scan(Path::new("/nonexistent-store"));
        let diagnostic_options = DiagnosticOptions { target: Some("s"), max_references: 3, max_reference_bytes: BudgetSetting::Fixed(100) };
        for doc in [text.as_str(), lossy.as_str(), &format!("@[{text}](hydra-session:{lossy})")] {
            let _ = mention::parse(doc);
            let _ = uri::decode(doc);
            let _ = diagnose(doc, diagnostic_options, &catalog, &|| false);
            let _ = prepare_text(doc, options(), &catalog, None, &|| false);
        }
    }

    /// The server's framing (issue 10 item 4; also the fuzz target
    /// `edge_frames`): garbage without a `Content-Length` header costs
    /// nothing after it.
    #[test]
    fn framing_resynchronises_after_garbage(garbage in prop::collection::vec(any::<u8>(), 0..600)) {
        use hydra_session_lsp::server::edge::frame::{read_all_frames, Input};
        prop_assume!(!garbage.to_ascii_lowercase().windows(15).any(|w| w == b"content-length:"));
        let good = br#"{"jsonrpc":"2.0","id":7,"method":"sessionReference/status"}"#;
        let mut stream = garbage.clone();
        stream.extend_from_slice(b"\r\n\r\n");
        stream.extend_from_slice(format!("Content-Length: {}\r\n\r\n", good.len()).as_bytes());
        stream.extend_from_slice(good);
        let messages: Vec<Vec<u8>> = read_all_frames(&stream)
            .into_iter()
            .filter_map(|f| match f { Input::Message(body) => Some(body), _ => None })
            .collect();
        prop_assert_eq!(messages, vec![good.to_vec()]);
    }
}
