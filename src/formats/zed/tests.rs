use super::*;
use crate::model::Event;

fn thread(data_type: &str, data: &[u8]) -> ThreadRow {
    ThreadRow {
        id: "t".into(),
        summary: Some("New Thread".into()),
        updated_at: Some("2026-09-01T08:00:00Z".into()),
        data_type: Some(data_type.into()),
        data: Some(data.to_vec()),
        ..ThreadRow::default()
    }
}

#[test]
fn the_cwd_is_the_first_folder_as_opened() {
    assert_eq!(cwd(Some("/a\n/b"), Some("1,0")), Some("/b".into()));
    assert_eq!(cwd(Some("/a\n/b"), Some("0,1")), Some("/a".into()));
    // Counts differ or paths unsorted: the identity order.
    assert_eq!(cwd(Some("/a\n/b"), Some("1")), Some("/a".into()));
    assert_eq!(cwd(Some("/b\n/a"), Some("0,1")), Some("/b".into()));
    assert_eq!(cwd(Some("rel"), None), None);
    assert_eq!(cwd(Some(""), None), None);
    assert_eq!(cwd(None, None), None);
}

#[test]
fn zstd_and_json_data_decode_and_anything_else_is_skipped() {
    let json = br#"{"version":"0.3.0","title":"From data","messages":[{"User":{"id":"u","content":[{"Text":"Hel"},{"Mention":{"uri":"file:///x","content":"x"}},{"Text":"lo"}]}},"Resume",{"Agent":{"content":[{"Thinking":{"text":"hm"}},{"Text":"Hi"},{"Text":"there"}],"tool_results":{}}},{"Odd":{}},{"Resume":null}]}"#;
    let compressed = zstd::encode_all(&json[..], 3).unwrap();
    for row in [thread("zstd", &compressed), thread("json", json)] {
        let p = project(&row, None, 0);
        let texts: Vec<_> = p
            .entries
            .iter()
            .map(|e| match &e.event {
                Event::Message { role, text } => format!("{} {text}", role.as_str()),
                _ => String::new(),
            })
            .collect();
        assert_eq!(texts, ["user Hello", "assistant Hi\nthere"]);
        assert_eq!((p.rows, p.skipped), (5, 1));
        assert_eq!(p.title.as_deref(), Some("From data"));
        assert_eq!(p.header.created_at, 1_788_249_600_000);
    }
    for row in [
        thread("zstd", b"not zstd"),
        thread("lz4", json),
        thread("json", b"[1]"),
        thread("json", b"\xff"),
    ] {
        let p = project(&row, None, 0);
        assert!(p.entries.is_empty());
        assert_eq!(p.skipped, 1);
    }
}

#[test]
fn a_legacy_thread_reads_its_segments() {
    let json = br#"{"summary":"Old one","updated_at":"x","messages":[{"role":"system","segments":[{"type":"text","text":"sys"}]},{"role":"user","segments":[{"type":"thinking","text":"think"},{"type":"text","text":"ask"}],"context":"ctx"},{"role":"user","segments":[],"context":"only context"},{"role":"assistant","segments":[{"type":"text","text":"a"},{"type":"redacted_thinking","data":"x"},{"type":"text","text":"b"}]},{"role":"assistant","text":"oldest"}]}"#;
    let p = project(&thread("json", json), None, 0);
    let texts: Vec<_> = p
        .entries
        .iter()
        .map(|e| match &e.event {
            Event::Message { text, .. } => text.to_string(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(texts, ["think\nask", "only context", "a\nb", "oldest"]);
    assert_eq!(p.title.as_deref(), Some("Old one"));
}

#[test]
fn a_sub_agent_is_named_by_its_summary_and_its_parent() {
    let json = br#"{"version":"0.3.0","messages":[{"User":{"content":[{"Text":"go"}]}}],"subagent_context":{"parent_thread_id":"p","depth":1}}"#;
    let mut row = thread("json", json);
    row.summary = Some("Search the docs".into());
    let p = project(&row, None, 0);
    assert_eq!(p.header.label.as_deref(), Some("Search the docs"));
    row.summary = Some("New Thread".into());
    let p = project(&row, None, 0);
    assert_eq!(p.header.label, None);
    assert_eq!(p.title.as_deref(), Some("go"));
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    fn entry() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{0,10}".prop_map(|t| format!(r#"{{"User":{{"content":[{{"Text":"{t}"}}]}}}}"#)),
            "[a-z ]{0,10}".prop_map(|t| format!(
                r#"{{"Agent":{{"content":[{{"Text":"{t}"}},{{"Thinking":{{"text":"x"}}}}]}}}}"#
            )),
            Just(r#""Resume""#.to_string()),
            Just(r#"{"Resume":null}"#.to_string()),
            Just(r#"{"User":1}"#.to_string()),
            Just("[]".to_string()),
        ]
    }

    proptest! {
        /// Any bytes as `data`, compressed or not, project without a panic.
        #[test]
        fn any_data_projects(data in prop::collection::vec(any::<u8>(), 0..64), zstd in any::<bool>()) {
            let row = thread(if zstd { "zstd" } else { "json" }, &data);
            let p = project(&row, None, 0);
            prop_assert!(p.entries.is_empty() || p.skipped == 0 || p.rows > 0);
        }

        /// A limited read is the whole read's first entries, compressed
        /// or not.
        #[test]
        fn a_limited_read_is_a_prefix_of_the_whole(entries in prop::collection::vec(entry(), 0..10), n in 0u64..12) {
            let json = format!(r#"{{"version":"0.3.0","messages":[{}]}}"#, entries.join(","));
            let compressed = zstd::encode_all(json.as_bytes(), 3).unwrap();
            let whole = project(&thread("zstd", &compressed), None, 0);
            prop_assert_eq!(&whole, &project(&thread("json", json.as_bytes()), None, 0));
            prop_assert_eq!(whole.rows, entries.len() as u64);
            let part = project(&thread("zstd", &compressed), Some(n), 0);
            let expected: Vec<_> = whole.entries.iter().filter(|e| e.seq <= n).cloned().collect();
            prop_assert_eq!(part.entries, expected);
        }
    }
}
