//! Gemini CLI sessions read with zero configuration, through the built
//! binary: `candidates` and `prepare` on a `~/.gemini/tmp` layout written
//! here (HOME pointed at a temp dir, then `GEMINI_CLI_HOME`), and on the
//! shared real transcripts (`../shared/real-logs/gemini-cli`, skipped with
//! a message when absent).

use crate::real_logs;
use crate::support::{prepare, run, snapshots, stdout_json, store_status};

use std::path::Path;

use serde_json::{json, Value};

fn write(path: &Path, lines: &[Value]) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("dirs");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).expect("write");
}

const PARENT: &str = "5e551017-0000-4000-8000-000000000001";
const CHILD: &str = "c41d0000-0000-4000-8000-000000000002";
const LEGACY: &str = "1e6acy00-0000-4000-8000-000000000003";

/// One project as Gemini CLI 0.40 lays it out: a main session that ran a
/// sub-agent, was renamed by its summary and compressed, plus a legacy
/// `.json` resumed into a `.jsonl` beside it.
fn gemini_home(home: &Path) {
    let project = home.join(".gemini/tmp/shop");
    std::fs::create_dir_all(&project).expect("dirs");
    std::fs::write(project.join(".project_root"), "/home/ana/shop\n").expect("root");
    let chats = project.join("chats");
    write(
        &chats.join("session-2026-08-20T10-00-5e551017.jsonl"),
        &[
            json!({"sessionId": PARENT, "projectHash": "h", "startTime": "2026-08-20T10:00:00.000Z", "kind": "main"}),
            json!({"id": "u1", "type": "user", "content": [{"text": "Total the cart"}]}),
            json!({"id": "g1", "type": "gemini", "content": "", "toolCalls": [{"id": "t", "name": "invoke_agent", "args": {"agent_name": "tax_checker"}, "agentId": CHILD}]}),
            json!({"id": "g1", "type": "gemini", "content": "Totals use 7.25% tax.", "toolCalls": [{"id": "t", "name": "invoke_agent", "args": {"agent_name": "tax_checker"}, "agentId": CHILD}]}),
            json!({"$set": {"summary": "Cart totals"}}),
            json!({"id": "u2", "type": "user", "content": "round it wrong"}),
            json!({"$rewindTo": "u2"}),
            json!({"$set": {"messages": [
                {"id": "s1", "type": "user", "content": [{"text": "<state_snapshot>cart totals done</state_snapshot>"}]},
                {"id": "s2", "type": "gemini", "content": [{"text": "Got it. Thanks for the additional context!"}]}
            ]}}),
            json!({"id": "u3", "type": "user", "content": "Round per cart"}),
            json!({"id": "g3", "type": "gemini", "content": "Rounded per cart."}),
        ],
    );
    write(
        &chats.join(PARENT).join(format!("{CHILD}.jsonl")),
        &[
            json!({"sessionId": CHILD, "projectHash": "h", "startTime": "2026-08-20T10:00:30.000Z", "kind": "subagent"}),
            json!({"id": "c1", "type": "user", "content": "Check the tax rate"}),
            json!({"id": "c2", "type": "gemini", "content": "7.25%"}),
        ],
    );
    let legacy = json!({
        "sessionId": LEGACY, "projectHash": "h", "startTime": "2026-01-01T09:00:00.000Z",
        "messages": [
            {"id": "l1", "type": "user", "content": "old question"},
            {"id": "l2", "type": "gemini", "content": "old answer"}
        ]
    });
    let pretty = serde_json::to_vec_pretty(&legacy).expect("json");
    std::fs::write(
        chats.join("session-2026-01-01T09-00-1e6acy00.json"),
        &pretty,
    )
    .expect("json");
    // Resumed by a newer CLI: the whole conversation again, as JSONL.
    write(
        &chats.join("session-2026-01-01T09-00-1e6acy00.jsonl"),
        &[
            json!({"sessionId": LEGACY, "projectHash": "h", "startTime": "2026-01-01T09:00:00.000Z", "messages": legacy["messages"]}),
            json!({"id": "l3", "type": "user", "content": "new question"}),
        ],
    );
    // Never candidates.
    std::fs::write(chats.join("checkpoint-tag.json"), &pretty).expect("checkpoint");
    std::fs::write(project.join("logs.json"), b"[]").expect("logs");
}

#[test]
fn candidates_and_prepare_with_zero_configuration() {
    let home = tempfile::tempdir().expect("temp dir");
    gemini_home(home.path());
    let output = run(home.path(), &[], &["candidates"], b"");
    let list = stdout_json(&output);
    let rows: Vec<Value> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| {
            json!({
                "id": c["sessionId"], "label": c["label"], "displayTitle": c["displayTitle"],
                "cwd": c["cwd"], "createdAt": c["createdAt"]
            })
        })
        .collect();
    assert_eq!(
        rows,
        [
            json!({"id": format!("{PARENT}/{CHILD}"), "label": "Check the tax rate", "displayTitle": "tax_checker", "cwd": "/home/ana/shop", "createdAt": 1_787_220_030_000u64}),
            json!({"id": PARENT, "label": "Cart totals", "displayTitle": null, "cwd": "/home/ana/shop", "createdAt": 1_787_220_000_000u64}),
            json!({"id": LEGACY, "label": "old question", "displayTitle": null, "cwd": "/home/ana/shop", "createdAt": 1_767_258_000_000u64}),
        ]
    );
    // The `.json` beside its `.jsonl` is not read, and is no duplicate.
    let status = stdout_json(&run(home.path(), &[], &["status"], b""));
    let gemini = store_status(&status, "gemini");
    assert_eq!(gemini["sessions"], 3);
    assert_eq!(gemini["errors"], json!([]));

    let mention = list[1]["mention"].as_str().expect("a mention");
    let prepared = prepare(home.path(), mention);
    let snapshot = snapshots(&prepared);
    assert_eq!(
        snapshot[0]["conversation"],
        json!([
            {"role": "user", "text": "<state_snapshot>cart totals done</state_snapshot>"},
            {"role": "user", "text": "Round per cart"},
            {"role": "assistant", "text": "Rounded per cart."}
        ])
    );
    assert_eq!(snapshot[0]["cwd"], "/home/ana/shop");
    assert_eq!(snapshot[0]["capturedThroughSeq"], 10);
    assert_eq!(
        prepared["additionalContext"]["source"]["references"][0]["compacted"],
        true
    );
}

#[test]
fn gemini_cli_home_moves_the_store() {
    let home = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    gemini_home(elsewhere.path());
    let none = stdout_json(&run(home.path(), &[], &["candidates"], b""));
    assert_eq!(none, json!([]));
    let moved = stdout_json(&run(
        home.path(),
        &[("GEMINI_CLI_HOME", elsewhere.path())],
        &["candidates"],
        b"",
    ));
    assert_eq!(moved.as_array().map(Vec::len), Some(3));
}

#[test]
fn the_real_logs_as_a_store() {
    let Some(dir) = real_logs::real_logs("gemini-cli") else {
        return;
    };
    let home = tempfile::tempdir().expect("temp dir");
    let store = dir.to_str().expect("UTF-8 path");
    let list = stdout_json(&run(
        home.path(),
        &[],
        &["candidates", "--store", store, "--store-format", "gemini"],
        b"",
    ));
    let ids: Vec<&str> = list
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|c| c["sessionId"].as_str())
        .collect();
    // Every file with a user or assistant message (not the warning-only one).
    assert_eq!(ids.len(), 7, "{ids:?}");
    let main = list
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["sessionId"] == "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d")
        .expect("the synthetic tree's main session");
    assert_eq!(main["label"], "Explain the server entry point");
    assert_eq!(main["cwd"], "/home/user/myproj");
    let child = list
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| {
            c["sessionId"]
                == "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/a9f0c1d2-3e4f-4a5b-8c7d-9e0f1a2b3c4d"
        })
        .expect("its sub-agent");
    assert_eq!(child["displayTitle"], "codebase_investigator");
    let legacy = list
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["sessionId"] == "5b959dae-8655-4cd1-b10f-720b8c336ea2")
        .expect("a legacy document");
    assert_eq!(legacy["label"], "hi");

    let mention = main["mention"].as_str().expect("a mention");
    let prepared = stdout_json(&run(
        home.path(),
        &[],
        &["prepare", "--store", store, "--store-format", "gemini"],
        mention.as_bytes(),
    ));
    let reference = &prepared["additionalContext"]["source"]["references"][0];
    assert_eq!(reference["compacted"], true);
    assert_eq!(reference["retainedMessages"], 5);
}
