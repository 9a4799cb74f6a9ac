//! Agents that keep sessions in SQLite: OpenCode and Kilo Code (one
//! schema), Goose, Crush and Zed, each written with its own tables.

use std::path::Path;

use serde_json::json;

use crate::common::{timestamp, uuid, Words, CWDS};
use crate::support;

/// OpenCode's database of `logs` sessions of about `bytes` each, written
/// at `path` with the tables of `tests/fixtures/opencode/opencode.sql`
/// and OpenCode's indexes: per turn a user message with its prompt part and an assistant message
/// with reasoning, a tool call's large output and its text. Even sessions
/// keep OpenCode's default title (so the title is the first prompt's), odd
/// ones a given one. Returns the bytes of JSON `data` written.
pub fn opencode_db(
    rng: &mut support::Lcg,
    path: &Path,
    kind: u64,
    logs: usize,
    bytes: usize,
) -> u64 {
    let schema = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/opencode/opencode.sql"
    ))
    .expect("the OpenCode fixture");
    let mut conn = rusqlite::Connection::open(path).expect("create the database");
    let tx = conn.transaction().expect("a transaction");
    for table in schema.lines().filter(|l| l.starts_with("CREATE TABLE")) {
        tx.execute_batch(table).expect("a table");
    }
    // OpenCode's own indexes (its `session.sql.ts`): without them every
    // per-session read scans whole tables, which no real database does.
    tx.execute_batch(
        "CREATE INDEX session_project_idx ON session (project_id);
         CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
         CREATE INDEX part_message_id_id_idx ON part (message_id, id);
         CREATE INDEX part_session_idx ON part (session_id);",
    )
    .expect("the indexes");
    let mut total = 0u64;
    for n in 0..CWDS {
        tx.execute(
            "INSERT INTO project VALUES (?1, ?2, ?3)",
            rusqlite::params![
                format!("prj{n}"),
                format!("/home/u/proj{n}"),
                1_780_000_000_000i64
            ],
        )
        .expect("a project");
    }
    for i in 0..logs {
        let session = format!("ses_{}", uuid(kind, i, 0).replace('-', ""));
        let created = 1_780_000_000_000i64 + i as i64 * 3_600_000;
        let title = if i.is_multiple_of(2) {
            format!("New session - {}", timestamp(i, 0))
        } else {
            format!("OpenCode run {i}: {}", rng.words(4))
        };
        let mut size = 0;
        let mut j = 0i64;
        let (mut message, mut part) = (
            tx.prepare_cached("INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)")
                .expect("insert message"),
            tx.prepare_cached("INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)")
                .expect("insert part"),
        );
        while size < bytes {
            j += 1;
            let at = created + j * 10_000;
            let (user, reply) = (format!("msg_{i:05}_{j:06}a"), format!("msg_{i:05}_{j:06}b"));
            let rows = [
                (
                    &user,
                    json!({"role": "user", "agent": "build", "time": {"created": at}}),
                    vec![
                        json!({"type": "text", "text": format!("Fix the {} of opencode run {i}", rng.words(10))}),
                    ],
                ),
                (
                    &reply,
                    json!({"role": "assistant", "parentID": user, "finish": "stop",
                    "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "time": {"created": at, "completed": at + 5_000}}),
                    vec![
                        json!({"type": "reasoning", "text": rng.words(40)}),
                        json!({"type": "tool", "callID": format!("call_{i}_{j}"), "tool": "read",
                        "state": {"status": "completed", "input": {"filePath": "/home/u/src/lib.rs"},
                        "output": rng.words(900), "title": "src/lib.rs", "metadata": {}}}),
                        json!({"type": "text", "text": rng.words(60)}),
                    ],
                ),
            ];
            for (id, data, parts) in rows {
                let data = data.to_string();
                size += data.len();
                message
                    .execute(rusqlite::params![id, session, at, data])
                    .expect("a message");
                for (k, p) in parts.into_iter().enumerate() {
                    let p = p.to_string();
                    size += p.len();
                    part.execute(rusqlite::params![
                        format!("prt_{id}_{k}"),
                        id,
                        session,
                        at,
                        p
                    ])
                    .expect("a part");
                }
            }
        }
        drop((message, part));
        tx.execute(
            "INSERT INTO session VALUES (?1, ?2, NULL, ?3, ?4, ?5, '1.2.0', NULL, ?6, ?7)",
            rusqlite::params![
                session,
                format!("prj{}", i % CWDS),
                format!("slug-{i}"),
                format!("/home/u/proj{}", i % CWDS),
                title,
                created,
                created + j * 10_000
            ],
        )
        .expect("a session");
        total += size as u64;
    }
    tx.commit().expect("commit");
    total
}

/// Goose's `sessions.db` (schema v16's `sessions` and `messages`) of
/// `logs` sessions of about `bytes`: per turn a prompt, a reply with a
/// tool request, the tool's large response; every other session still
/// named `CLI Session` (so its title is its first prompt's).
pub fn goose_db(rng: &mut support::Lcg, path: &Path, logs: usize, bytes: usize) -> u64 {
    let mut conn = rusqlite::Connection::open(path).expect("create the database");
    let tx = conn.transaction().expect("a transaction");
    tx.execute_batch(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
             description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
             session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
             created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
             extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER,
             output_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
             accumulated_output_tokens INTEGER, schedule_id TEXT, recipe_json TEXT,
             user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
             archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT);
         CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
             session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
             content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
             timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
         CREATE INDEX idx_messages_session ON messages(session_id);
         CREATE INDEX idx_messages_timestamp ON messages(timestamp);",
    )
    .expect("the tables");
    let mut total = 0u64;
    for i in 0..logs {
        let session = format!("20261101_{}", i + 1);
        let created = 1_780_000_000i64 + i as i64 * 3_600;
        let name = if i.is_multiple_of(2) {
            "CLI Session".to_string()
        } else {
            format!("Goose run {i}: {}", rng.words(4))
        };
        tx.execute(
            "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, model_config_json)
             VALUES (?1, ?2, 0, 'user', ?3, datetime(?4, 'unixepoch'), ?5)",
            rusqlite::params![
                session,
                name,
                format!("/home/u/proj{}", i % CWDS),
                created,
                json!({"model_name": "gpt-5", "context_limit": 400_000}).to_string()
            ],
        )
        .expect("a session");
        let mut insert = tx
            .prepare_cached(
                "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .expect("insert message");
        let mut size = 0;
        let mut j = 0i64;
        while size < bytes {
            j += 1;
            let rows = [
                (
                    "user",
                    json!([{"type": "text", "text": format!("Fix the {} of goose run {i}", rng.words(10))}]),
                ),
                (
                    "assistant",
                    json!([{"type": "text", "text": rng.words(60)},
                    {"type": "toolRequest", "id": format!("call_{j}"),
                     "toolCall": {"status": "success", "value": {"name": "developer__shell", "arguments": {"command": "cat src/lib.rs"}}}}]),
                ),
                (
                    "user",
                    json!([{"type": "toolResponse", "id": format!("call_{j}"),
                    "toolResult": {"status": "success", "value": [{"type": "text", "text": rng.words(900)}]}}]),
                ),
            ];
            for (k, (role, content)) in rows.into_iter().enumerate() {
                let content = content.to_string();
                size += content.len();
                insert
                    .execute(rusqlite::params![
                        format!("msg_{i}_{j}_{k}"),
                        session,
                        role,
                        content,
                        created + j,
                        json!({"userVisible": true, "agentVisible": true}).to_string()
                    ])
                    .expect("a message");
            }
        }
        total += size as u64;
    }
    tx.commit().expect("commit");
    total
}

/// Crush's `crush.db` of `logs` sessions of about `bytes`: per turn a
/// prompt, a reply with a tool call, the tool's large result (times in
/// seconds, as Crush writes them); every other session still `New
/// Session`.
pub fn crush_db(rng: &mut support::Lcg, path: &Path, logs: usize, bytes: usize) -> u64 {
    let mut conn = rusqlite::Connection::open(path).expect("create the database");
    let tx = conn.transaction().expect("a transaction");
    tx.execute_batch(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
             message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
             completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
             updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT,
             todos TEXT);
         CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
             parts TEXT NOT NULL DEFAULT '[]', model TEXT, created_at INTEGER NOT NULL,
             updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT,
             is_summary_message INTEGER DEFAULT 0 NOT NULL);
         CREATE INDEX idx_messages_session_id ON messages (session_id);
         CREATE INDEX idx_messages_created_at ON messages (created_at);",
    )
    .expect("the tables");
    let mut total = 0u64;
    for i in 0..logs {
        let session = uuid(17, i, 0);
        let created = 1_780_000_000i64 + i as i64 * 3_600;
        let title = if i.is_multiple_of(2) {
            "New Session".to_string()
        } else {
            format!("Crush run {i}: {}", rng.words(4))
        };
        let mut insert = tx
            .prepare_cached(
                "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at, finished_at, provider)
                 VALUES (?1, ?2, ?3, ?4, 'gpt-5', ?5, ?5, ?5, 'openai')",
            )
            .expect("insert message");
        let mut size = 0;
        let mut j = 0i64;
        while size < bytes {
            j += 1;
            let rows = [
                (
                    "user",
                    json!([{"type": "text", "data": {"text": format!("Fix the {} of crush run {i}", rng.words(10))}},
                    {"type": "finish", "data": {"reason": "stop", "time": created + j}}]),
                ),
                (
                    "assistant",
                    json!([{"type": "text", "data": {"text": rng.words(60)}},
                    {"type": "tool_call", "data": {"id": format!("call_{j}"), "name": "view",
                     "input": "{\"file_path\":\"src/lib.rs\"}", "finished": true}},
                    {"type": "finish", "data": {"reason": "tool_use", "time": created + j}}]),
                ),
                (
                    "tool",
                    json!([{"type": "tool_result", "data": {"tool_call_id": format!("call_{j}"),
                    "name": "view", "content": rng.words(900), "is_error": false}}]),
                ),
            ];
            for (k, (role, parts)) in rows.into_iter().enumerate() {
                let parts = parts.to_string();
                size += parts.len();
                insert
                    .execute(rusqlite::params![
                        format!("{session}-{j}-{k}"),
                        session,
                        role,
                        parts,
                        created + j
                    ])
                    .expect("a message");
            }
        }
        drop(insert);
        tx.execute(
            "INSERT INTO sessions (id, title, message_count, updated_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![session, title, j * 3, created + j, created],
        )
        .expect("a session");
        total += size as u64;
    }
    tx.commit().expect("commit");
    total
}

/// Zed's `threads.db` of `logs` threads of about `bytes` of JSON each,
/// saved as Zed saves them: the whole thread zstd-compressed (level 3)
/// in `data`, its title in `summary`; user messages, agent messages with
/// a tool use, the tool's large result. Returns the uncompressed bytes.
pub fn zed_db(rng: &mut support::Lcg, path: &Path, logs: usize, bytes: usize) -> u64 {
    let mut conn = rusqlite::Connection::open(path).expect("create the database");
    let tx = conn.transaction().expect("a transaction");
    tx.execute_batch(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL,
             data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT,
             folder_paths_order TEXT, created_at TEXT);",
    )
    .expect("the table");
    let mut total = 0u64;
    for i in 0..logs {
        let thread = uuid(18, i, 0);
        let title = if i.is_multiple_of(2) {
            "New Thread".to_string()
        } else {
            format!("Zed thread {i}: {}", rng.words(4))
        };
        let mut messages = Vec::new();
        let mut size = 0;
        let mut j = 0;
        while size < bytes {
            j += 1;
            let tool = format!("toolu_{i}_{j}");
            let turn = [
                json!({"User": {"id": uuid(19, i, j), "content": [{"Text": format!("Fix the {} of zed thread {i}", rng.words(10))}]}}),
                json!({"Agent": {"content": [{"Text": rng.words(60)},
                    {"ToolUse": {"id": tool, "name": "read_file", "raw_input": "{\"path\":\"src/lib.rs\"}",
                     "input": {"path": "src/lib.rs"}, "is_input_complete": true}}],
                    "tool_results": {tool.clone(): {"tool_use_id": tool, "tool_name": "read_file",
                     "is_error": false, "content": {"Text": rng.words(900)}, "output": null}},
                    "reasoning_details": null}}),
            ];
            for item in turn {
                size += item.to_string().len();
                messages.push(item);
            }
        }
        let updated = crate::common::timestamp(i, j);
        let data = json!({"version": "0.3.0", "title": title, "messages": messages,
            "updated_at": updated, "detailed_summary": null, "model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"}})
        .to_string();
        let compressed = zstd::encode_all(data.as_bytes(), 3).expect("zstd");
        tx.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, folder_paths_order, created_at)
             VALUES (?1, ?2, ?3, 'zstd', ?4, ?5, '0', ?6)",
            rusqlite::params![
                thread,
                title,
                updated,
                compressed,
                format!("/home/u/proj{}", i % CWDS),
                crate::common::timestamp(i, 0)
            ],
        )
        .expect("a thread");
        total += data.len() as u64;
    }
    tx.commit().expect("commit");
    total
}
