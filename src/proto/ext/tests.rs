use serde_json::json;

use super::*;
use crate::model::{StoreNote, StoreStatus as CoreStoreStatus};

#[test]
fn a_status_is_the_documented_json() {
    let store = |path: &str| CoreStoreStatus {
        path: path.into(),
        format: "auto".into(),
        sessions: 1,
        skipped_lines: 0,
        errors: Vec::new(),
    };
    let status = model::Status::new(
        vec![store("/a"), store("/b")],
        2,
        false,
        &[StoreNote::Missing { store: "/c".into() }],
    );
    let json = serde_json::to_value(Status::from(status)).unwrap();
    assert_eq!(
        json,
        json!({
            "store": "/a",
            "sessions": 2,
            "indexing": false,
            "stores": [
                {"path": "/a", "format": "auto", "sessions": 1, "skippedLines": 0, "errors": []},
                {"path": "/b", "format": "auto", "sessions": 1, "skippedLines": 0, "errors": []},
            ],
            "notes": [{
                "kind": "missingStore",
                "message": "the session store /c does not exist; it is empty",
            }],
            "notesOmitted": 0,
        })
    );
}

#[test]
fn a_candidate_leaves_out_what_it_does_not_have() {
    let core = core_candidates::Candidate {
        session_id: "s1".into(),
        label: "Fix".into(),
        display_title: None,
        cwd: Some("/w".into()),
        same_workspace: true,
        created_at: 7,
        mention: "[@Fix](session://s1)".into(),
        format: "hydra",
    };
    let text = serde_json::to_string(&candidates(vec![core])).unwrap();
    // The contract's field order, without `displayTitle`.
    assert_eq!(
        text,
        r#"[{"sessionId":"s1","label":"Fix","cwd":"/w","sameWorkspace":true,"createdAt":7,"mention":"[@Fix](session://s1)"}]"#
    );
}

#[test]
fn a_file_candidate_names_its_kind_in_lowercase() {
    let core = files::FileCandidate {
        path: "src/".into(),
        kind: files::FileKind::Directory,
    };
    let json = serde_json::to_value(file_candidates(vec![core])).unwrap();
    assert_eq!(json, json!([{"path": "src/", "kind": "directory"}]));
}

#[test]
fn a_prepare_result_without_references_has_no_context_and_no_title() {
    let core = core_prepare::Prepared {
        content: vec![core_prepare::TextBlock::new("hi".into())],
        additional_context: None,
    };
    let json = serde_json::to_value(Prepared::from(core)).unwrap();
    assert_eq!(json, json!({"content": [{"type": "text", "text": "hi"}]}));
    let stats = core_prepare::ReferenceStats {
        session_id: "s".into(),
        label: "l".into(),
        captured_format_version: None,
        captured_through_seq: Some(3),
        compacted: false,
        original_messages: 1,
        retained_messages: 1,
        omitted_messages: 0,
        omitted_bytes: 0,
        truncated: false,
        input_index: 0,
        title: Some("the title".into()),
    };
    let json = serde_json::to_value(ReferenceStats::from(stats)).unwrap();
    assert_eq!(json["capturedThroughSeq"], 3);
    assert!(json.get("capturedFormatVersion").is_none());
    assert!(
        json.get("title").is_none(),
        "the title is the hook's, not the wire's"
    );
}

#[test]
fn a_search_hit_is_the_documented_json_and_leaves_out_what_it_does_not_have() {
    let core = search::SessionHit {
        session_id: "s1".into(),
        title: None,
        display_title: Some("Fix".into()),
        agent: "codex".into(),
        cwd: None,
        created_at: 7,
        mention: "@[Fix](hydra-session:InMxIg)".into(),
        score: 1.5,
        snippets: vec![search::Snippet {
            turn: 2,
            role: "user".into(),
            text: "fix the tests".into(),
            ranges: vec![[0, 3]],
        }],
    };
    let json = serde_json::to_string(&SearchHit::from(core)).unwrap();
    assert_eq!(
        json,
        r#"{"sessionId":"s1","displayTitle":"Fix","agent":"codex","createdAt":7,"mention":"@[Fix](hydra-session:InMxIg)","score":1.5,"snippets":[{"turn":2,"role":"user","text":"fix the tests","ranges":[[0,3]]}]}"#
    );
}
