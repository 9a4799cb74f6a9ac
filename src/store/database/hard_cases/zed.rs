//! Hand-written expectations of Zed's hardest cases (issue 27), each from
//! agent-logs-db-3.md "Zed (the native agent's threads)" (rule named per
//! test), not pasted from the reader's output: a `threads.db` made here
//! with Zed's DDL (the fixture's), read through the store.

use rusqlite::Connection;
use serde_json::{json, Value};

use crate::formats::toolkit::hard_case::{expect, store_surface};
use crate::formats::toolkit::test_support::in_clone;
use crate::store::database::{by_name, DatabaseStore};

fn db(dir: &std::path::Path) -> Connection {
    let conn = Connection::open(dir.join("threads.db")).unwrap();
    let schema = std::fs::read_to_string(in_clone("tests/fixtures/zed/schema.sql")).unwrap();
    conn.execute_batch(&schema).unwrap();
    conn
}

#[allow(clippy::too_many_arguments)]
fn thread(
    conn: &Connection,
    id: &str,
    summary: &str,
    kind: &str,
    data: &Value,
    parent: Option<&str>,
    folders: Option<(&str, &str)>,
    created: Option<&str>,
) {
    let json = data.to_string();
    let bytes = if kind == "zstd" {
        zstd::encode_all(json.as_bytes(), 3).unwrap()
    } else {
        json.into_bytes()
    };
    conn.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id, folder_paths,
            folder_paths_order, created_at) VALUES (?1, ?2, '2026-01-01T00:10:00Z', ?3, ?4, ?5, ?6, ?7, ?8)",
        rusqlite::params![id, summary, kind, bytes, parent, folders.map(|f| f.0),
            folders.map(|f| f.1), created],
    )
    .unwrap();
}

fn store(dir: &std::path::Path) -> DatabaseStore {
    DatabaseStore::open(dir, 0, "zed", vec![by_name("zed").unwrap()])
}

/// "Messages": `User` is its `Text` strings concatenated without
/// separator (a `Mention` and an `Image` add nothing); `Agent` its `Text`
/// strings joined with "\n"; `Resume`, thinking and tool uses never; an
/// entry of another shape is skipped. "title: `summary` … not `New
/// Thread` …; else `data.title`". "cwd: `folder_paths` … the path whose
/// order index is smallest". "createdAt: `created_at` when an RFC 3339
/// string".
#[test]
fn a_zstd_thread_reads_its_texts_folders_and_fallback_title() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db(dir.path());
    let data = json!({"version": "0.3.0", "title": "  Parser port ", "updated_at": "x", "messages": [
        {"User": {"id": "u1", "content": [{"Text": "Port "},
            {"Mention": {"uri": "file:///a/lib/p.rs", "content": "fn p() {}"}}, {"Text": "this file"}]}},
        {"Agent": {"content": [{"Thinking": {"text": "hm", "signature": null}}, {"Text": "Ported"},
            {"ToolUse": {"id": "t", "name": "edit"}}, {"Text": "and tested"}], "tool_results": {}}},
        "Resume",
        {"Agent": {"content": [{"Text": "Resumed"}], "tool_results": {}}},
        {"Bogus": {}},
    ]});
    // Sorted `/a/app`, `/a/lib`; opened `/a/lib` first.
    thread(
        &conn,
        "zt-1",
        "New Thread",
        "zstd",
        &data,
        None,
        Some(("/a/app\n/a/lib", "1,0")),
        Some("2026-01-01T00:00:00.750Z"),
    );
    assert_eq!(
        store_surface(&store(dir.path()), "zt-1"),
        expect(
            "zt-1",
            1_767_225_600_750,
            Some("/a/lib"),
            Some("Parser port"),
            None,
            &[
                ("user", "Port this file"),
                ("assistant", "Ported\nand tested"),
                ("assistant", "Resumed"),
            ],
        )
    );
}

/// "When `version` is not the string `0.3.0` … the first agent's
/// thread": user text segments are its content, assistant text segments
/// its text, `system` dropped. "Sub-agents: a non-empty `parent_id`
/// column … Display title = `summary` by the title test". "createdAt: …
/// else `updated_at`". No folders: no cwd.
#[test]
fn a_legacy_sub_agent_thread_is_upgraded_and_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db(dir.path());
    let data = json!({"summary": "old", "updated_at": "x", "messages": [
        {"role": "system", "segments": [{"type": "text", "text": "System prompt"}]},
        {"role": "user", "segments": [{"type": "text", "text": "Check the grammar"}]},
        {"role": "assistant", "segments": [{"type": "thinking", "text": "hm"},
            {"type": "text", "text": "It is LL(1)"}]},
    ]});
    thread(
        &conn,
        "zt-2",
        " Grammar check ",
        "json",
        &data,
        Some("zt-1"),
        None,
        None,
    );
    assert_eq!(
        store_surface(&store(dir.path()), "zt-2"),
        expect(
            "zt-2",
            1_767_226_200_000,
            None,
            Some("Grammar check"),
            Some("Grammar check"),
            &[("user", "Check the grammar"), ("assistant", "It is LL(1)")],
        )
    );
}
