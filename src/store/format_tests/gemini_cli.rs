//! The store's reading of gemini_cli logs: a catalog of them scanned,
//! refreshed and appended to (moved from the format's own tests, which
//! stay below the store).

use crate::formats::gemini_cli::tests::*;

/// The known gap: a `.json` already indexed was not judged again when the
/// `.jsonl` of the same name appeared beside it later (its own stamp did
/// not change), so the stale document stayed the session, before the log
/// (`X.json` sorts first). Both through a rescan and a change notice.
#[test]
fn a_json_indexed_before_its_jsonl_appears_is_judged_again() {
    use crate::store::Catalog;
    for notified in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("proj/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let json = chats.join("session-2026-01-10T02-08-doc1.json");
        std::fs::write(&json, document(Some("From the document"))).unwrap();
        let mut catalog = Catalog::scan(dir.path());
        let titles = |c: &Catalog| -> Vec<Option<String>> {
            c.sessions().into_iter().map(|s| s.title).collect()
        };
        assert_eq!(titles(&catalog), [Some("From the document".to_string())]);
        let meta = r#"{"sessionId":"doc-1","projectHash":"h","startTime":"2026-01-10T02:08:00.000Z","summary":"From the log"}"#;
        let log = chats.join("session-2026-01-10T02-08-doc1.jsonl");
        std::fs::write(&log, jsonl(&[meta, &user("a", "hello")])).unwrap();
        if notified {
            assert!(catalog.refresh_path(&log));
        } else {
            catalog.rescan();
        }
        assert_eq!(
            titles(&catalog),
            [Some("From the log".to_string())],
            "notified: {notified}"
        );
    }
}
