//! The store's reading of claude_code logs: a catalog of them scanned,
//! refreshed and appended to (moved from the format's own tests, which
//! stay below the store).

use crate::formats::claude_code::tests::*;
use crate::formats::claude_code::ClaudeCode;
use crate::formats::{HeaderState, LogFormat};
use crate::model::ReadError;
use crate::store::Catalog;

/// Each listed session's id, title and display title (its label).
fn listed(catalog: &Catalog) -> Vec<(String, Option<String>, Option<String>)> {
    catalog
        .sessions()
        .into_iter()
        .map(|s| (s.header.id, s.title, s.header.label))
        .collect()
}

/// The catalog's notes as the user reads them.
fn notes(catalog: &Catalog) -> Vec<String> {
    catalog.notes().iter().map(ToString::to_string).collect()
}

#[test]
fn the_store_lists_sessions_with_display_titles() {
    // Only the three projects these expectations are about.
    let Some(real) = fixtures() else { return };
    let store = tempfile::tempdir().unwrap();
    for project in [
        "-tmp-private",
        "-home-marco-projects-spotter",
        "-Users-User-repo-codemie-ai-codemie-code",
    ] {
        copy_tree(&real.join(project), &store.path().join(project));
    }
    let catalog = Catalog::scan(store.path());
    assert_eq!(
        listed(&catalog),
        [
            (
                "e9fb405b-169f-40eb-9396-7e75076f045d".to_string(),
                Some(
                    "@\"solution-architect (agent)\" analyze existing CLI command and create"
                        .into()
                ),
                None
            ),
            (
                "e9fb405b-169f-40eb-9396-7e75076f045d/a485154".to_string(),
                Some(
                    "Analyze the existing CLI command structure in this CodeMie CLI project and"
                        .into()
                ),
                // The parent's Task description.
                Some("Analyze CLI and spec new commands".into())
            ),
            (
                "d6e0bada-1959-4eec-a9d2-0bfade768d8f".to_string(),
                Some("start phoenix in background".into()),
                None
            ),
            (
                "4c2ddfdc-b619-4525-8d03-1950fb1b0257".to_string(),
                Some("create hello.py, md and js".into()),
                None
            ),
            (
                // Warmup: the parent has no Task call for it.
                "4c2ddfdc-b619-4525-8d03-1950fb1b0257/36541525".to_string(),
                Some("Warmup".into()),
                None
            ),
        ]
    );
    // The compaction worker's transcript is not a session.
    let notes = notes(&catalog);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with(COMPACT_WORKER), "{notes:?}");
    let bytes = std::fs::read(real.join(COMPACT_WORKER)).unwrap();
    assert!(matches!(scan(&bytes).header(), HeaderState::NotASession(_)));
}

/// A project of session `s1` whose Task calls ran the sub-agents `b1`
/// (2.0 layout: `agent-b1.jsonl` beside `s1.jsonl`) and `b2` (below
/// `s1/subagents/`), `b3` run by no call of it, and files that are no
/// session (spilled tool results, a sidecar).
fn sub_agent_project(root: &std::path::Path) {
    let project = root.join("-w");
    std::fs::create_dir(&project).unwrap();
    let task = serde_json::json!({
        "parentUuid": "u1", "sessionId": SID, "type": "assistant", "uuid": "a1",
        "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Task",
             "input": {"prompt": "\n  Find the bug\nin the parser", "subagent_type": "x"}},
            {"type": "tool_use", "id": "t2", "name": "Agent",
             "input": {"description": "  Second agent ", "prompt": "p"}}
        ]}
    });
    let result = |id: &str, tool: &str, uuid: &str| {
        serde_json::json!({
            "parentUuid": "a1", "sessionId": SID, "type": "user", "uuid": uuid,
            "message": {"content": [{"type": "tool_result", "tool_use_id": tool, "content": "done"}]},
            "toolUseResult": {"status": "completed", "agentId": id}
        })
        .to_string()
            + "\n"
    };
    let parent = user("u1", None, "go")
        + &task.to_string()
        + "\n"
        + &result("b1", "t1", "r1")
        + &result("b2", "t2", "r2");
    std::fs::write(project.join("s1.jsonl"), parent).unwrap();
    let child = |agent: &str| {
        serde_json::json!({"parentUuid": null, "isSidechain": true, "sessionId": SID,
            "agentId": agent, "type": "user", "uuid": "c1",
            "message": {"content": "do it"}})
        .to_string()
            + "\n"
    };
    std::fs::write(project.join("agent-b1.jsonl"), child("b1")).unwrap();
    std::fs::create_dir_all(project.join("s1/subagents")).unwrap();
    std::fs::write(project.join("s1/subagents/agent-b2.jsonl"), child("b2")).unwrap();
    std::fs::write(project.join("agent-b3.jsonl"), child("b3")).unwrap();
    // Not sessions: spilled tool results and sidecars.
    std::fs::create_dir_all(project.join("s1/tool-results")).unwrap();
    std::fs::write(
        project.join("s1/tool-results/x.jsonl"),
        user("z", None, "no"),
    )
    .unwrap();
    std::fs::write(project.join("s1/agent-b2.meta.json"), "{}\n").unwrap();
}

#[test]
fn sub_agents_beside_the_session_get_the_task_description() {
    let dir = tempfile::tempdir().unwrap();
    sub_agent_project(dir.path());
    let catalog = Catalog::scan_with(
        dir.path(),
        0,
        crate::formats::FormatChoice::Fixed(&ClaudeCode),
        true,
    );
    let label = |id: &str| catalog.get(id).map(|s| s.header.label);
    assert_eq!(label("s1/b1"), Some(Some("Find the bug".into())));
    assert_eq!(label("s1/b2"), Some(Some("Second agent".into())));
    assert_eq!(label("s1/b3"), Some(None));
    assert_eq!(label("s1"), Some(None));
    assert_eq!(catalog.len(), 4);
    assert!(catalog.notes().is_empty(), "{:?}", catalog.notes());
    assert!(!ClaudeCode.is_log_name(b"p/s1/tool-results/x.jsonl"));
    assert!(!ClaudeCode.is_log_name(b"p/s1/agent-b2.meta.json"));
    assert!(ClaudeCode.is_log_name(b"p/s1/subagents/agent-b2.jsonl"));
}

/// A long-lived face's first scan lets go of old logs' scanners batch by
/// batch, but not of a sub-agent's (its parent may come in a later batch)
/// nor of a parent's that titles sub-agents (a later child asks it): the
/// labels are those of one pass, whatever the batches.
#[test]
fn sub_agents_and_the_parents_that_title_them_keep_their_scanners() {
    use crate::store::file_state::Found;
    use crate::store::release::KEEP_SCANNER_FOR;
    let dir = tempfile::tempdir().unwrap();
    sub_agent_project(dir.path());
    let choice = crate::formats::FormatChoice::Fixed(&ClaudeCode);
    let whole = Catalog::scan_with(dir.path(), 0, choice, true);
    let later = std::time::SystemTime::now() + 2 * KEEP_SCANNER_FOR;
    for first in [1, 2, 100] {
        let mut catalog = Catalog::empty(dir.path(), 0, choice, true);
        let walked = catalog.walker().walk();
        let mut batches = catalog.begin_walk(walked).with_first_batch(first);
        while catalog.scan_batch(&mut batches, Some(later)) {}
        assert_eq!(listed(&catalog), listed(&whole), "first batch {first}");
        let scanners: Vec<&[u8]> = catalog
            .files
            .iter()
            .filter(|(_, s)| matches!(s.found, Found::Scanner(_)))
            .map(|(rel, _)| &rel[..])
            .collect();
        let kept: [&[u8]; 4] = [
            b"-w/agent-b1.jsonl",
            b"-w/agent-b3.jsonl",
            b"-w/s1.jsonl",
            b"-w/s1/subagents/agent-b2.jsonl",
        ];
        assert_eq!(scanners, kept, "first batch {first}");
    }
}

#[test]
fn no_session_id_is_not_a_session() {
    let log = r#"{"type":"summary","summary":"a","leafUuid":"x"}
{"type":"summary","summary":"b","leafUuid":"y"}
{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}
"#;
    let scanner = scan(log.as_bytes());
    assert_eq!(scanner.header(), HeaderState::Pending);
    assert!(!scanner.is_done());
    assert!(read_bytes(log.as_bytes()).is_err());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("only-summaries.jsonl"), log).unwrap();
    let catalog = Catalog::scan(dir.path());
    assert!(catalog.is_empty());
    assert_eq!(
        notes(&catalog),
        ["only-summaries.jsonl: skipped, not a session: no complete line identifies a session"]
    );
    // A session line appended later makes it one.
    let path = dir.path().join("only-summaries.jsonl");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, user("u1", None, "late").as_bytes()).unwrap();
    let mut catalog = catalog;
    assert!(catalog.refresh_path(&path));
    assert_eq!(catalog.get(SID).and_then(|s| s.title), Some("late".into()));
}

#[test]
fn undated_sessions_take_the_file_time() {
    let log = r#"{"type":"user","sessionId":"s1","uuid":"u","message":{"content":"hi"},"timestamp":"yesterday"}
"#;
    let (summary, _) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(summary.header.created_at, 42);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, log).unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    let expected = modified
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let catalog = Catalog::scan(dir.path());
    assert_eq!(
        catalog.get("s1").map(|s| s.header.created_at),
        Some(expected)
    );
    // The earliest parsable timestamp, wherever it is.
    let log = user("u1", None, "a")
        + r#"{"type":"system","sessionId":"s1","timestamp":"2020-01-01T00:00:00.999999Z"}"#
        + "\n";
    let (summary, _) = read_bytes(log.as_bytes()).unwrap();
    assert_eq!(summary.header.created_at, 1_577_836_800_999);
}

#[test]
fn appended_lines_update_titles_and_display_titles() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("s1.jsonl");
    let child = dir.path().join("agent-b1.jsonl");
    std::fs::write(&parent, user("u1", None, "first prompt")).unwrap();
    let sub = serde_json::json!({"parentUuid": null, "isSidechain": true, "sessionId": SID,
        "agentId": "b1", "type": "user", "uuid": "c1", "message": {"content": "do it"}});
    std::fs::write(&child, sub.to_string() + "\n").unwrap();
    let mut catalog = Catalog::scan(dir.path());
    let get = |c: &Catalog, id: &str| c.get(id).map(|s| (s.title, s.header.label));
    assert_eq!(
        get(&catalog, "s1"),
        Some((Some("first prompt".into()), None))
    );
    assert_eq!(get(&catalog, "s1/b1"), Some((Some("do it".into()), None)));
    let append = |text: String| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&parent)
            .unwrap();
        std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
    };
    append(
        serde_json::json!({"type": "ai-title", "aiTitle": "Named", "sessionId": SID}).to_string()
            + "\n"
            + &serde_json::json!({"parentUuid": "u1", "sessionId": SID, "type": "assistant", "uuid": "a1",
                "message": {"id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Task",
                "input": {"description": "Look around", "prompt": "do it"}}]}})
            .to_string()
            + "\n",
    );
    assert!(catalog.refresh_path(&parent));
    assert_eq!(get(&catalog, "s1"), Some((Some("Named".into()), None)));
    // No result yet: the Task call is not tied to an agent.
    assert_eq!(get(&catalog, "s1/b1"), Some((Some("do it".into()), None)));
    append(
        serde_json::json!({"parentUuid": "a1", "sessionId": SID, "type": "user", "uuid": "r1",
            "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
            "toolUseResult": {"status": "completed", "agentId": "b1"}})
        .to_string()
            + "\n",
    );
    assert!(catalog.refresh_path(&parent));
    assert_eq!(
        get(&catalog, "s1/b1"),
        Some((Some("do it".into()), Some("Look around".into())))
    );
}

#[test]
fn a_transcript_without_a_message_is_not_a_session() {
    let scanner = scan(BLOCKED.as_bytes());
    assert_eq!(scanner.header(), HeaderState::Pending);
    assert!(!scanner.is_done());
    match read_bytes(BLOCKED.as_bytes()) {
        Err(ReadError::Log(e)) => assert_eq!(e.reason, "no user or assistant message"),
        other => panic!("{other:?}"),
    }
    // Meta lines and wrappers are no message either.
    let meta = serde_json::json!({
        "type": "user", "sessionId": SID, "isMeta": true, "uuid": "m1",
        "message": {"role": "user", "content": "<local-command-caveat>x</local-command-caveat>"}
    })
    .to_string()
        + "\n";
    let wrapper = user("w1", None, "<command-name>/mcp</command-name>");
    assert_eq!(
        scan(format!("{BLOCKED}{meta}{wrapper}").as_bytes()).header(),
        HeaderState::Pending
    );
    // An assistant line alone makes one.
    let answer = assistant("a1", None, "msg_1", "hi");
    assert!(matches!(
        scan(format!("{BLOCKED}{answer}").as_bytes()).header(),
        HeaderState::Session(_)
    ));

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, BLOCKED).unwrap();
    let mut catalog = Catalog::scan(dir.path());
    assert!(catalog.is_empty());
    assert!(catalog.get(SID).is_none());
    assert_eq!(
        notes(&catalog),
        ["s1.jsonl: skipped, not a session: no complete line identifies a session"]
    );
    // The first message, appended later, makes it a session.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, user("u1", None, "now a prompt").as_bytes()).unwrap();
    assert!(catalog.refresh_path(&path));
    assert_eq!(
        catalog.get(SID).and_then(|s| s.title),
        Some("now a prompt".into())
    );
}

#[test]
fn the_own_store_lists_sessions_with_display_titles() {
    let store = tempfile::tempdir().unwrap();
    copy_tree(&own_project(), &store.path().join("-home-ana-shop"));
    for entry in walk_files(store.path()) {
        if entry.to_string_lossy().ends_with(".expected.json") {
            std::fs::remove_file(entry).unwrap();
        }
    }
    let catalog = Catalog::scan(store.path());
    assert_eq!(
        listed(&catalog),
        [
            (
                "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b".to_string(),
                Some("Cart rounding".into()),
                None
            ),
            (
                "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b/b1c2d3".to_string(),
                Some("List every caller of cart::total.".into()),
                // The parent's Task description.
                Some("Find callers of cart::total".into())
            ),
            (
                // Warmup: the parent has no Task call for it.
                "5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b/77aa88bb".to_string(),
                Some("Warmup".into()),
                None
            ),
        ]
    );
    // The compaction worker's transcript is not a session.
    let notes = notes(&catalog);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("agent-acompact-1a2b3c.jsonl"),
        "{notes:?}"
    );
}
