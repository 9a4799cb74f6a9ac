//! The Gemini CLI format on fixtures written here (the rules of
//! agent-logs-more.md "Gemini CLI", one by one) and on the real and
//! source-following transcripts in `../shared/real-logs/gemini-cli`.

use std::path::{Path, PathBuf};

use super::*;
use crate::formats::lines::{self, Flow};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::{HeaderState, LogFormat, Scanner};
use crate::model::{ReadError, ReadSummary, Role, SessionHeader};
use crate::reference::projection::Projector;

/// A projected surface: `(role, checkpoint, text)` in order.
pub(crate) type Surface = Vec<(Role, bool, String)>;

pub(crate) const META: &str =
    r#"{"sessionId":"s1","projectHash":"h","startTime":"2026-08-20T10:00:00.000Z","kind":"main"}"#;

pub(crate) fn jsonl(lines: &[&str]) -> Vec<u8> {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out.into_bytes()
}

pub(crate) fn user(id: &str, text: &str) -> String {
    serde_json::json!({"id": id, "timestamp": "2026-08-20T10:00:01.000Z", "type": "user", "content": [{"text": text}]}).to_string()
}

pub(crate) fn gemini(id: &str, text: &str) -> String {
    serde_json::json!({"id": id, "type": "gemini", "content": text}).to_string()
}

pub(crate) fn read_at(
    bytes: &[u8],
    path: Option<PathBuf>,
) -> (Surface, Result<ReadSummary, ReadError>) {
    let log = MemoryLog {
        path,
        ..MemoryLog::new(bytes).modified(7)
    };
    let mut projector = Projector::new(None, usize::MAX);
    let summary = GeminiCli.read(&log, &|| false, &mut |e| projector.push(e));
    let surface = projector
        .finish()
        .messages
        .into_iter()
        .map(|m| (m.role, m.checkpoint, m.text))
        .collect();
    (surface, summary)
}

pub(crate) fn read(bytes: &[u8]) -> (Surface, ReadSummary) {
    let (surface, summary) = read_at(bytes, None);
    (surface, summary.expect("a session"))
}

pub(crate) fn texts(surface: &[(Role, bool, String)]) -> Vec<&str> {
    surface.iter().map(|(_, _, t)| t.as_str()).collect()
}

pub(crate) fn scan_at(bytes: &[u8], path: Option<&Path>) -> Box<dyn Scanner> {
    let mut scanner = GeminiCli.scanner();
    scanner.file_modified(7);
    if let Some(path) = path {
        scanner.file_path(path);
    }
    lines::for_each_line::<()>(&mut &bytes[..], bytes.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    })
    .expect("in memory");
    scanner
}

pub(crate) fn scan(bytes: &[u8]) -> Box<dyn Scanner> {
    scan_at(bytes, None)
}

pub(crate) fn header(scanner: &dyn Scanner) -> SessionHeader {
    match scanner.header() {
        HeaderState::Session(h) => h,
        other => panic!("not a session: {other:?}"),
    }
}

#[test]
fn a_message_written_again_keeps_its_place() {
    let log = jsonl(&[
        META,
        &user("u1", "first"),
        &gemini("g1", ""),
        &user("u2", "second"),
        // The CLI writes g1 again once its text (or tokens) arrive.
        &gemini("g1", "answer one"),
    ]);
    let (surface, summary) = read(&log);
    assert_eq!(texts(&surface), ["first", "answer one", "second"]);
    assert_eq!(summary.captured_through_seq, Some(5));
    assert_eq!(summary.title.as_deref(), Some("first"));
    assert_eq!(summary.header.created_at, 1_787_220_000_000);
    assert_eq!(summary.header.id, "s1");
    assert_eq!(summary.header.cwd, None);
}

#[test]
fn a_session_resumed_in_the_same_file_keeps_its_first_start() {
    // Resumed within the minute its file is named by, Gemini CLI appends a
    // second metadata line with the resume's `startTime` (and its summary).
    let resumed = r#"{"sessionId":"s1","projectHash":"h","startTime":"2026-08-20T10:00:40.000Z","kind":"main","summary":"Tax rounding"}"#;
    let log = jsonl(&[
        META,
        &user("u1", "first"),
        &gemini("g1", "answer one"),
        resumed,
        &user("u2", "second"),
    ]);
    let (surface, summary) = read(&log);
    assert_eq!(texts(&surface), ["first", "answer one", "second"]);
    assert_eq!(summary.header.created_at, 1_787_220_000_000);
    assert_eq!(summary.header.id, "s1");
    // The later line is read for the rest: its summary names the session.
    assert_eq!(summary.title.as_deref(), Some("Tax rounding"));
    let scanned = header(scan(&log).as_ref());
    assert_eq!(scanned.created_at, 1_787_220_000_000);
    assert_eq!(scanned, summary.header);
}

#[test]
fn set_replaces_the_list_and_names_the_session() {
    let replaced = format!(
        r#"{{"$set":{{"messages":[{},{}],"lastUpdated":"x"}}}}"#,
        user("a", "kept"),
        gemini("b", "reply")
    );
    let log = jsonl(&[
        META,
        &user("u1", "gone"),
        &replaced,
        r#"{"$set":{"summary":"  Named by Gemini  "}}"#,
        r#"{"$set":{"summary":""}}"#,
        &user("u2", "after"),
    ]);
    let (surface, summary) = read(&log);
    assert_eq!(texts(&surface), ["kept", "reply", "after"]);
    assert_eq!(summary.title.as_deref(), Some("Named by Gemini"));
    assert_eq!(scan(&log).meta().title.as_deref(), Some("Named by Gemini"));
}

#[test]
fn rewind_drops_that_message_and_what_follows() {
    let log = jsonl(&[
        META,
        &user("u1", "keep me"),
        &user("u2", "undo from here"),
        &gemini("g2", "undone"),
        r#"{"$rewindTo":"u2"}"#,
        &user("u3", "instead"),
    ]);
    let (surface, summary) = read(&log);
    assert_eq!(texts(&surface), ["keep me", "instead"]);
    assert_eq!(summary.skipped_lines, 0);
    // An id not in the list removes all; with nothing left it is no session.
    let log = jsonl(&[META, &user("u1", "x"), r#"{"$rewindTo":"nope"}"#]);
    assert_eq!(scan(&log).header(), HeaderState::Pending);
    assert!(read_at(&log, None).1.is_err());
}

#[test]
fn titles_skip_commands_context_and_snapshots_and_count_every_record() {
    let log = jsonl(&[
        META,
        &user("c", "<session_context>\nsetup\n</session_context>"),
        &user("q", "/help"),
        &user("q2", "?"),
        &user("s", "<state_snapshot>old</state_snapshot>"),
        &user("u1", "the   first real\nprompt"),
        r#"{"$rewindTo":"u1"}"#,
        &user("u2", "second"),
    ]);
    let (surface, summary) = read(&log);
    // The rewound prompt still titles it, as in Gemini's own list.
    assert_eq!(summary.title.as_deref(), Some("the first real prompt"));
    // The snapshot turn shadows what precedes it.
    assert_eq!(
        texts(&surface),
        ["<state_snapshot>old</state_snapshot>", "second"]
    );
    let long = "word ".repeat(30);
    let log = jsonl(&[META, &user("u", &long)]);
    assert_eq!(scan(&log).meta().title.map(|t| t.chars().count()), Some(79));
}

#[test]
fn display_content_and_tool_responses() {
    let log = jsonl(&[
        META,
        r#"{"id":"u1","type":"user","content":[{"text":"Explain @a.rs"},{"text":"\n--- Content from referenced files ---"}],"displayContent":[{"text":"Explain @a.rs"}]}"#,
        r#"{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"t","name":"read_file"}]}"#,
        r#"{"id":"u2","type":"user","content":[{"functionResponse":{"id":"t","name":"read_file","response":{}}}]}"#,
        r#"{"id":"g2","type":"gemini","content":[{"text":"think","thought":true},{"text":"It "},{"text":"works."}]}"#,
        r#"{"id":"i","type":"info","content":"Request cancelled."}"#,
        "not json",
        "[1,2]",
        "   ",
    ]);
    let (surface, summary) = read(&log);
    assert_eq!(
        surface,
        [
            (Role::User, false, "Explain @a.rs".to_string()),
            (Role::Assistant, false, "It works.".to_string())
        ]
    );
    assert_eq!(summary.skipped_lines, 2);
    assert_eq!(scan(&log).meta().skipped_lines, 2);
}

#[test]
fn compression_is_a_checkpoint() {
    let compressed = format!(
        r#"{{"$set":{{"messages":[{},{},{},{}]}}}}"#,
        user("c", "<session_context>x</session_context>"),
        user(
            "s1",
            "<state_snapshot>\n<goal>split</goal>\n</state_snapshot>"
        ),
        gemini("s2", "Got it. Thanks for the additional context!"),
        user("u5", "kept after it"),
    );
    let log = jsonl(&[
        META,
        &user("u1", "before"),
        &compressed,
        &gemini("g6", "done"),
    ]);
    let (surface, _) = read(&log);
    assert_eq!(
        surface,
        [
            (
                Role::User,
                true,
                "<state_snapshot>\n<goal>split</goal>\n</state_snapshot>".to_string()
            ),
            (Role::User, false, "kept after it".to_string()),
            (Role::Assistant, false, "done".to_string()),
        ]
    );
}

#[test]
fn a_log_without_a_message_is_no_session_and_a_bad_first_line_none_ever() {
    let log = jsonl(&[META, r#"{"id":"i","type":"info","content":"hi"}"#]);
    assert_eq!(scan(&log).header(), HeaderState::Pending);
    let log = jsonl(&[&user("u1", "x"), META]);
    let scanner = scan(&log);
    assert!(matches!(scanner.header(), HeaderState::NotASession(_)));
    assert!(scanner.is_done());
    // No start time: the earliest message time, else the file's.
    let log = jsonl(&[r#"{"sessionId":"s","projectHash":"h"}"#, &user("u", "x")]);
    assert_eq!(header(&*scan(&log)).created_at, 1_787_220_001_000);
    let log = jsonl(&[r#"{"sessionId":"s","projectHash":"h"}"#, &gemini("g", "x")]);
    assert_eq!(header(&*scan(&log)).created_at, 7);
    // Invalid UTF-8 fails the read, naming the line.
    let mut log = jsonl(&[META, &user("u", "x")]);
    log.extend_from_slice(b"{\"id\":\"\xff\"}\n");
    let scanner = scan(&log);
    assert!(scanner.meta().failure.is_some());
    assert!(matches!(scanner.header(), HeaderState::Session(_)));
    match read_at(&log, None).1 {
        Err(ReadError::Log(e)) => assert_eq!(e.line, Some(3)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn detection() {
    let detected = |line: &str| crate::formats::detect(line.as_bytes()).map(|f| f.name());
    assert_eq!(detected(META), Some("gemini"));
    assert_eq!(detected("{"), Some("gemini"));
    assert_eq!(
        detected(r#"{"sessionId":"s","messages":[],"projectHash":1}"#),
        Some("gemini")
    );
    // A string sessionId alone is Claude Code's.
    assert_eq!(
        detected(r#"{"sessionId":"s","type":"user","uuid":"u"}"#),
        Some("claude-code")
    );
    assert_ne!(detected(&user("u", "x")), Some("gemini"));
    assert!(GeminiCli.is_log_name(b"p/chats/session-2026-01-01T00-00-abcd.json"));
    assert!(GeminiCli.is_log_name(b"p/chats/x/y.jsonl"));
    for not in [
        &b"p/chats/checkpoint-tag.json"[..],
        b"p/logs.json",
        b"p/chats/session-x.json.tmp-1",
        b"p/chats/session-x.jsonl.unreadable-1",
    ] {
        assert!(!GeminiCli.is_log_name(not));
    }
}

/// A pretty-printed document as Gemini writes it: no newline at the end.
pub(crate) fn document(summary: Option<&str>) -> Vec<u8> {
    let mut doc = serde_json::json!({
        "sessionId": "doc-1",
        "projectHash": "h",
        "startTime": "2026-01-10T02:08:00.000Z",
        "lastUpdated": "2026-01-10T02:09:00.000Z",
        "messages": [
            {"id": "a", "timestamp": "2026-01-10T02:08:01.000Z", "type": "user", "content": "hello, {\"you\"}"},
            {"id": "b", "type": "gemini", "content": "hi"},
            {"type": "gemini", "content": "no id: skipped"},
            {"id": "c", "type": "warning", "content": "update available"}
        ]
    });
    if let Some(s) = summary {
        doc["summary"] = s.into();
    }
    serde_json::to_vec_pretty(&doc).unwrap()
}

#[test]
fn the_whole_json_form() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let path = chats.join("session-2026-01-10T02-08-doc1.json");
    let bytes = document(Some("Greetings"));
    assert_ne!(bytes.last(), Some(&b'\n'));
    let (surface, summary) = read_at(&bytes, Some(path.clone()));
    let summary = summary.unwrap();
    assert_eq!(texts(&surface), ["hello, {\"you\"}", "hi"]);
    assert_eq!(summary.captured_through_seq, Some(4));
    assert_eq!(summary.skipped_lines, 1);
    assert_eq!(summary.title.as_deref(), Some("Greetings"));
    assert_eq!(summary.header.id, "doc-1");
    let scanner = scan_at(&bytes, Some(&path));
    assert_eq!(header(&*scanner), summary.header);
    assert_eq!(scanner.meta().title.as_deref(), Some("Greetings"));
    // Rewritten whole: an index scans it again rather than append to it.
    assert!(!scanner.resumable());
    assert!(scan(&jsonl(&[META, &user("u", "x")])).resumable());
    // Without a path the first line tells the form.
    assert_eq!(
        read(&document(None)).1.title.as_deref(),
        Some("hello, {\"you\"}")
    );
    // Half written: no messages yet, not yet a session.
    let half = &bytes[..bytes.windows(8).position(|w| w == b"messages").unwrap()];
    assert_eq!(scan_at(half, Some(&path)).header(), HeaderState::Pending);
    assert!(matches!(
        scan_at(b"[\n1\n]", Some(&path)).header(),
        HeaderState::NotASession(_)
    ));
}

#[test]
fn a_json_beside_its_jsonl_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let json = chats.join("session-2026-01-10T02-08-doc1.json");
    let bytes = document(None);
    assert!(matches!(
        scan_at(&bytes, Some(&json)).header(),
        HeaderState::Session(_)
    ));
    std::fs::write(chats.join("session-2026-01-10T02-08-doc1.jsonl"), b"").unwrap();
    let scanner = scan_at(&bytes, Some(&json));
    assert!(matches!(scanner.header(), HeaderState::NotASession(_)));
    assert!(scanner.is_done());
    assert!(read_at(&bytes, Some(json)).1.is_err());
}

#[test]
fn the_project_root_is_the_cwd_and_sub_agents_live_in_the_parents_folder() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("myproj");
    std::fs::create_dir_all(project.join("chats/s1")).unwrap();
    std::fs::write(project.join(".project_root"), "  /home/me/myproj\n").unwrap();
    let call = r#"{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"c","name":"invoke_agent","args":{"agent_name":"codebase_investigator"},"agentId":"child-1"},{"id":"d","name":"old_agent_tool","agentId":"child-2"}]}"#;
    let parent = jsonl(&[META, &user("u1", "go"), call]);
    let parent_path = project.join("chats/session-2026-08-20T10-00-s1.jsonl");
    let parent_scan = scan_at(&parent, Some(&parent_path));
    let h = header(&*parent_scan);
    assert_eq!(
        (h.id.as_str(), h.cwd.as_deref()),
        ("s1", Some("/home/me/myproj"))
    );
    assert_eq!(parent_scan.parent(), None);
    assert_eq!(
        parent_scan.child_title("child-1").as_deref(),
        Some("codebase_investigator")
    );
    assert_eq!(
        parent_scan.child_title("child-2").as_deref(),
        Some("old_agent_tool")
    );
    // The store keeps this scanner while children may ask it.
    assert!(parent_scan.names_children());

    let child = jsonl(&[
        r#"{"sessionId":"child-1","projectHash":"h","kind":"subagent"}"#,
        &user("x", "Map src/"),
    ]);
    let child_path = project.join("chats/s1/child-1.jsonl");
    let child_scan = scan_at(&child, Some(&child_path));
    let h = header(&*child_scan);
    assert_eq!(
        (h.id.as_str(), h.cwd.as_deref()),
        ("s1/child-1", Some("/home/me/myproj"))
    );
    assert_eq!(child_scan.parent(), Some(("s1".into(), "child-1".into())));
    assert!(!child_scan.names_children());
    let (_, summary) = read_at(&child, Some(child_path));
    assert_eq!(summary.unwrap().header, h);
    // Outside a `chats` folder: no cwd, no parent.
    let h = header(&*scan_at(&child, Some(&dir.path().join("loose.jsonl"))));
    assert_eq!((h.id.as_str(), h.cwd), ("child-1", None));
}

#[test]
fn real_logs_read_as_the_contract_expects() {
    let Some(dir) = real_logs("gemini-cli") else {
        return;
    };
    let chats = dir.join("jsonl/synthetic-tree/tmp/myproj/chats");
    let main = chats.join("session-2026-08-20T10-00-1b2c3d4e.jsonl");
    let (surface, summary) = read_at(&std::fs::read(&main).unwrap(), Some(main.clone()));
    let summary = summary.unwrap();
    assert_eq!(summary.header.id, "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d");
    assert_eq!(summary.header.created_at, 1_787_220_000_000);
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/user/myproj"));
    assert_eq!(
        summary.title.as_deref(),
        Some("Explain the server entry point")
    );
    assert!(surface[0].1);
    assert!(surface[0].2.starts_with("<state_snapshot>"));
    assert_eq!(
        texts(&surface[1..]),
        [
            "Split server.rs into modules",
            "Done: server.rs is now http.rs, db.rs and config.rs.",
            "add tests for db.rs",
            "Added 4 tests in db.rs."
        ]
    );
    let parent = scan_at(&std::fs::read(&main).unwrap(), Some(&main));
    let child = chats
        .join("1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/a9f0c1d2-3e4f-4a5b-8c7d-9e0f1a2b3c4d.jsonl");
    let child_scan = scan_at(&std::fs::read(&child).unwrap(), Some(&child));
    assert_eq!(
        header(&*child_scan).id,
        "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/a9f0c1d2-3e4f-4a5b-8c7d-9e0f1a2b3c4d"
    );
    let (parent_id, key) = child_scan.parent().unwrap();
    assert_eq!(parent_id, header(&*parent).id);
    assert_eq!(
        parent.child_title(&key).as_deref(),
        Some("codebase_investigator")
    );

    let curated = dir.join("jsonl/curated-agent-sessions-jsonl_v040.jsonl");
    let (surface, summary) = read_at(&std::fs::read(&curated).unwrap(), None);
    assert_eq!(
        texts(&surface),
        ["Say hello and list files.", "Hello! I listed the files."]
    );
    assert_eq!(summary.unwrap().header.id, "gemini_stage0_jsonl");

    for (name, title, messages) in [
        ("session-2026-01-10T02-08-faff42ab.json", None, 4),
        ("session-2025-12-01T21-45-5b959dae.json", Some("hi"), 0),
        ("session-2026-01-15T20-51-f7633853.json", None, 0),
        ("session-2026-01-16T11-01-37b7abef.json", None, 0),
    ] {
        let path = dir.join("legacy-json").join(name);
        let bytes = std::fs::read(&path).unwrap();
        let (surface, summary) = read_at(&bytes, Some(path.clone()));
        let summary = summary.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(summary.header.id.len() > 8, "{name}");
        assert!(surface.iter().any(|m| m.0 == Role::User), "{name}");
        assert!(surface.iter().any(|m| m.0 == Role::Assistant), "{name}");
        if let Some(title) = title {
            assert_eq!(summary.title.as_deref(), Some(title), "{name}");
        }
        if messages > 0 {
            assert_eq!(surface.len(), messages, "{name}");
        }
        assert_eq!(
            header(&*scan_at(&bytes, Some(&path))),
            summary.header,
            "{name}"
        );
    }
    // A single `warning` record: a valid file, but no session.
    let warning = dir.join("legacy-json/session-2026-02-03T04-09-29eb990e.json");
    let bytes = std::fs::read(&warning).unwrap();
    assert_eq!(
        scan_at(&bytes, Some(&warning)).header(),
        HeaderState::Pending
    );
}

/// The index's scanner and a full read agree, on every log built from a
/// pool of records (replays, rewinds, lists, snapshots, junk).
#[test]
fn the_scanner_and_a_read_agree() {
    let pool: Vec<String> = vec![
        META.to_string(),
        r#"{"sessionId":"s2","projectHash":"h"}"#.to_string(),
        user("u1", "first prompt"),
        user("u1", "first prompt, rewritten"),
        user("u2", "/command"),
        gemini("g1", "an answer"),
        gemini("g1", ""),
        user("c", "<session_context>x</session_context>"),
        user("s", "<state_snapshot>summary</state_snapshot>"),
        gemini("a", "Got it. Thanks for the additional context!"),
        r#"{"$rewindTo":"u1"}"#.to_string(),
        r#"{"$rewindTo":"zz"}"#.to_string(),
        r#"{"$set":{"summary":"Named"}}"#.to_string(),
        format!(
            r#"{{"$set":{{"messages":[{},7]}}}}"#,
            gemini("g9", "listed")
        ),
        "junk".to_string(),
        String::new(),
    ];
    let mut seed = 11u64;
    for _ in 0..3000 {
        let mut lines = Vec::new();
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        for _ in 0..(seed >> 60) {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            lines.push(pool[(seed >> 33) as usize % pool.len()].as_str());
        }
        let log = jsonl(&lines);
        let scanner = scan(&log);
        match read_at(&log, None).1 {
            Ok(summary) => {
                assert_eq!(
                    scanner.header(),
                    HeaderState::Session(summary.header),
                    "{lines:?}"
                );
                assert_eq!(scanner.meta().title, summary.title, "{lines:?}");
                assert_eq!(scanner.meta().skipped_lines, summary.skipped_lines);
            }
            Err(_) => assert!(
                !matches!(scanner.header(), HeaderState::Session(_)),
                "{lines:?}"
            ),
        }
    }
}

/// The project written here (`tests/fixtures/gemini-cli/tmp/shop/`, small
/// and invented): a session replayed (an initial `$set.messages` with a
/// `<session_context>` turn, `displayContent`, one `gemini` id written
/// twice, `$rewindTo`, `$set.summary`, an `info` record, a skipped line, a
/// compression checkpoint and its acknowledgement), its `.project_root`,
/// and a sub-agent in `chats/<parentId>/`; golden files beside each log.
#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    use crate::formats::toolkit::golden::{assert_golden, read_as_json};
    let chats =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-cli/tmp/shop/chats");
    let main = chats.join("session-2026-11-30T12-00-7a8b9c0d.jsonl");
    let child = chats
        .join("7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d/0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e.jsonl");
    for path in [&main, &child] {
        let log = MemoryLog {
            path: Some(path.clone()),
            ..MemoryLog::new(std::fs::read(path).unwrap()).modified(7)
        };
        assert_golden(path, &read_as_json(&GeminiCli, &log));
    }
    let (surface, summary) = read_at(&std::fs::read(&main).unwrap(), Some(main.clone()));
    let summary = summary.unwrap();
    assert_eq!(summary.title.as_deref(), Some("Cart rounding"));
    assert_eq!(summary.header.cwd.as_deref(), Some("/home/ana/shop"));
    assert_eq!(summary.skipped_lines, 1);
    assert_eq!(
        texts(&surface),
        [
            "<state_snapshot>\nAna asked why the cart total drifts; it rounds once.\n</state_snapshot>",
            "Round per line instead",
            "Done: cart::total rounds each line."
        ]
    );
    let parent = scan_at(&std::fs::read(&main).unwrap(), Some(&main));
    let child_scan = scan_at(&std::fs::read(&child).unwrap(), Some(&child));
    let (parent_id, key) = child_scan.parent().unwrap();
    assert_eq!(parent_id, header(&*parent).id);
    assert_eq!(
        parent.child_title(&key).as_deref(),
        Some("codebase_investigator")
    );
}

proptest::proptest! {
    /// Issue 27 (generated logs, as Claude Code's and Codex's): logs put
    /// together from the format's records (metadata, messages written
    /// again, commands, context, snapshots, rewinds, lists, summaries,
    /// junk), cut anywhere at a character. The read never panics; the
    /// scanner says "a session" exactly when the read succeeds (a read
    /// that succeeds where the scanner said "not a session" is a
    /// finding), and then both name the same header and title.
    #[test]
    fn any_generated_log_is_a_session_to_the_scanner_exactly_when_it_reads(
        picks in proptest::collection::vec(0usize..16, 0..24),
        cut in 0usize..3000,
    ) {
        let pool: Vec<String> = vec![
            META.to_string(),
            r#"{"sessionId":"s2","projectHash":"h"}"#.to_string(),
            user("u1", "first prompt"),
            user("u1", "first prompt, rewritten"),
            user("u2", "/command"),
            gemini("g1", "an answer"),
            gemini("g1", ""),
            user("c", "<session_context>x</session_context>"),
            user("s", "<state_snapshot>summary</state_snapshot>"),
            gemini("a", "Got it. Thanks for the additional context!"),
            r#"{"$rewindTo":"u1"}"#.to_string(),
            r#"{"$rewindTo":"zz"}"#.to_string(),
            r#"{"$set":{"summary":"Named"}}"#.to_string(),
            format!(r#"{{"$set":{{"messages":[{},7]}}}}"#, gemini("g9", "listed")),
            "junk".to_string(),
            String::new(),
        ];
        let lines: Vec<&str> = picks.iter().map(|&i| pool[i].as_str()).collect();
        let log = jsonl(&lines);
        let text = String::from_utf8(log).expect("UTF-8 pieces");
        let cut = text.char_indices().map(|(i, _)| i).find(|&i| i >= cut).unwrap_or(text.len());
        let bytes = &text.as_bytes()[..cut];
        let scanner = scan(bytes);
        match read_at(bytes, None).1 {
            Ok(summary) => {
                proptest::prop_assert_eq!(scanner.header(), HeaderState::Session(summary.header));
                proptest::prop_assert_eq!(scanner.meta().title, summary.title);
            }
            Err(_) => proptest::prop_assert!(!matches!(scanner.header(), HeaderState::Session(_))),
        }
    }
}
