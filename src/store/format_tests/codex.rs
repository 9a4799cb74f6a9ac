//! The store's reading of codex logs: a catalog of them scanned,
//! refreshed and appended to (moved from the format's own tests, which
//! stay below the store).

use crate::formats::codex::tests::*;
use crate::formats::HeaderState;
use crate::formats::Scanner;
use crate::model::ReadError;

#[test]
fn the_index_dates_a_rollout_without_timestamps_by_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(
        &path,
        format!(
            "{{\"type\":\"session_meta\",\"payload\":{{\"id\":\"t\"}}}}\n{}\n",
            user("hi")
        ),
    )
    .unwrap();
    let modified = std::fs::metadata(&path)
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let catalog = crate::store::Catalog::scan(dir.path());
    assert_eq!(catalog.get("t").unwrap().header.created_at, modified);
}

#[test]
fn the_index_reads_only_appended_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(&path, rollout(&[meta("grow"), user_event("first prompt")])).unwrap();
    let mut catalog = crate::store::Catalog::scan(dir.path());
    let session = catalog.get("grow").unwrap();
    assert_eq!(session.title.as_deref(), Some("first prompt"));
    assert_eq!(session.locator.format, "codex");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    // A rename, a capacity, a line that is not understood, and half a line.
    std::io::Write::write_all(
        &mut file,
        &rollout(&[
            event("thread_name_updated", r#","thread_name":"Renamed""#),
            event("task_started", r#","model_context_window":4096"#),
            "{oops".into(),
        ]),
    )
    .unwrap();
    std::io::Write::write_all(&mut file, br#"{"type":"event_msg","#).unwrap();
    assert!(catalog.refresh_path(&path));
    let session = catalog.get("grow").unwrap();
    assert_eq!(session.title.as_deref(), Some("Renamed"));
    assert_eq!(session.capacity, Some(4096));
    assert_eq!(session.skipped_lines, 1);
    // The half line, once finished, is read from where the index stopped.
    std::io::Write::write_all(
        &mut file,
        b"\"payload\":{\"type\":\"thread_name_updated\",\"thread_name\":\"Again\"}}\n",
    )
    .unwrap();
    catalog.refresh_path(&path);
    let session = catalog.get("grow").unwrap();
    assert_eq!(session.title.as_deref(), Some("Again"));
    assert_eq!(session.skipped_lines, 1);
}

#[test]
fn a_rollout_without_a_message_is_not_a_session() {
    // What a blocked first prompt can leave: the meta, developer and
    // injected context, no message of the person's or the model's.
    let lines = [
        meta("blocked"),
        line(
            "response_item",
            &message("developer", "input_text", &["dev"]),
        ),
        line("response_item", &message("user", "input_text", &[ENV])),
        event("task_started", r#","model_context_window":200"#),
    ];
    let bytes = rollout(&lines);
    let scanner = scan(&bytes);
    assert_eq!(scanner.header(), HeaderState::Pending);
    assert!(scanner.header_ref().is_none());
    assert!(!scanner.is_done());
    match read(&bytes).summary {
        Err(ReadError::Log(e)) => {
            assert_eq!(e.reason, "not a session: no user or assistant message")
        }
        other => panic!("{other:?}"),
    }
    // The index lists it as skipped until a message is appended.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    let mut catalog = crate::store::Catalog::scan(dir.path());
    assert!(catalog.get("blocked").is_none());
    assert_eq!(catalog.notes().len(), 1);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, (user_event("typed at last") + "\n").as_bytes()).unwrap();
    assert!(catalog.refresh_path(&path));
    assert_eq!(
        catalog.get("blocked").and_then(|s| s.title),
        Some("typed at last".into())
    );
    // An assistant message alone is one too.
    assert!(matches!(
        scan(&rollout(&[meta("x"), assistant("hi")])).header(),
        HeaderState::Session(_)
    ));
}

/// The own fixtures (their reads are checked in the format's tests).
#[test]
fn the_store_lists_the_own_sub_agent_under_its_parents_name() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(OWN_SESSIONS);
    // The store lists the sub-agent under the name its parent gave it.
    let catalog = crate::store::Catalog::scan(&dir);
    let labels: Vec<(String, Option<String>)> = catalog
        .sessions()
        .into_iter()
        .map(|s| (s.header.id, s.header.label))
        .collect();
    assert!(
        labels.contains(&(
            "019ad0c1-9e8d-7c6b-a5f4-e3d2c1b0a998".into(),
            Some("Callers finder".into())
        )),
        "{labels:?}"
    );
    assert_eq!(labels.len(), 3, "{labels:?}");
}
