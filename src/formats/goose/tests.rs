use super::*;

#[test]
fn created_at_text_is_read_to_the_millisecond_in_utc() {
    assert_eq!(created_text("2025-12-02 16:58:55"), Some(1_764_694_735_000));
    assert_eq!(
        created_text("2025-12-02T16:58:55.987654321+00:00"),
        Some(1_764_694_735_987)
    );
    assert_eq!(
        created_text("2025-12-02T16:58:55Z"),
        Some(1_764_694_735_000)
    );
    assert_eq!(
        created_text("2025-12-02T18:58:55+02:00"),
        Some(1_764_694_735_000)
    );
    for bad in [
        "2025-12-02",
        "2025-12-02 16:58",
        "2025-12-02 16:58:55.",
        "2025-12-02 16:58:55.1234567890",
        "2025-12-02 16:58:55 UTC",
        "2025-12-02x16:58:55",
    ] {
        assert_eq!(created_text(bad), None, "{bad}");
    }
}

#[test]
fn message_times_are_seconds_below_goose_threshold() {
    assert_eq!(message_millis(1_788_249_600), Some(1_788_249_600_000));
    assert_eq!(message_millis(10_000_000_000), Some(10_000_000_000_000));
    assert_eq!(message_millis(10_000_000_001), Some(10_000_000_001));
    assert_eq!(message_millis(-5), None);
}

fn row(name: &str, user_set: bool) -> SessionRow {
    SessionRow {
        id: "20260901_1".into(),
        name: Some(name.into()),
        user_set_name: Some(i64::from(user_set)),
        ..SessionRow::default()
    }
}

fn message(id: i64, role: &str, content: &str, metadata: Option<&str>) -> MessageRow {
    MessageRow {
        id,
        role: Some(role.into()),
        content_json: Some(content.into()),
        created_timestamp: Some(100 + id),
        metadata_json: metadata.map(str::to_string),
    }
}

#[test]
fn generated_names_give_way_to_the_first_visible_prompt() {
    let messages = [
        message(
            1,
            "user",
            r#"[{"type":"text","text":"hidden prompt"}]"#,
            Some(r#"{"userVisible":0}"#),
        ),
        message(
            2,
            "user",
            r#"[{"type":"text","text":"shown prompt"}]"#,
            None,
        ),
    ];
    let p = project(&row("ACP Session", false), &messages, None, 0);
    assert_eq!(p.title.as_deref(), Some("shown prompt"));
    assert_eq!(p.entries.len(), 1, "userVisible 0 is not projected");
    assert_eq!(p.header.created_at, 101_000);
    let long = "x ".repeat(60);
    let p = project(&row(&long, false), &messages, None, 0);
    assert_eq!(p.title.as_deref().map(str::len), Some(79));
    let p = project(&row(&long, true), &messages, None, 0);
    assert_eq!(p.title.as_deref(), Some(long.trim()));
}

#[test]
fn bad_rows_are_skipped_and_counted() {
    let messages = [
        message(1, "user", "{}", None),
        message(2, "user", "[]", Some("[1]")),
        message(3, "user", "not json", None),
        message(4, "tool", r#"[{"type":"text","text":"x"}]"#, None),
        message(5, "assistant", r#"[{"type":"text","text":"ok"}]"#, None),
    ];
    let p = project(&row("", false), &messages, None, 0);
    assert_eq!(p.skipped, 3);
    assert_eq!(p.rows, 5);
    assert_eq!(p.entries.len(), 1);
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    fn content() -> impl Strategy<Value = String> {
        let item = prop_oneof![
            "[a-z ]{0,10}".prop_map(|t| format!(r#"{{"type":"text","text":"{t}"}}"#)),
            Just(
                r#"{"type":"text","text":"a","annotations":{"audience":["assistant"]}}"#
                    .to_string()
            ),
            Just(r#"{"type":"text","text":"u","annotations":{"audience":["user"]}}"#.to_string()),
            Just(r#"{"type":"toolRequest","id":"t"}"#.to_string()),
            Just(r#"{"type":"text","text":5}"#.to_string()),
        ];
        prop_oneof![
            4 => prop::collection::vec(item, 0..3).prop_map(|i| format!("[{}]", i.join(","))),
            1 => ".{0,6}",
        ]
    }

    fn metadata() -> impl Strategy<Value = Option<String>> {
        prop_oneof![
            Just(None),
            Just(Some(
                r#"{"userVisible":false,"agentVisible":true}"#.to_string()
            )),
            Just(Some(r#"{"userVisible":true}"#.to_string())),
            Just(Some(r#"{"userVisible":0}"#.to_string())),
            Just(Some("[]".to_string())),
        ]
    }

    proptest! {
        /// Any rows project without a panic: every row counted, entries in
        /// order, at most one checkpoint, nothing projected before it.
        #[test]
        fn any_rows_project(rows in prop::collection::vec((prop_oneof![Just("user"), Just("assistant"), Just("tool")], content(), metadata()), 0..12), n in 0u64..14) {
            let messages: Vec<MessageRow> = rows
                .into_iter()
                .enumerate()
                .map(|(i, (role, content, metadata))| MessageRow {
                    id: i as i64,
                    role: Some(role.to_string()),
                    content_json: Some(content),
                    created_timestamp: Some(1_788_249_600 + i as i64),
                    metadata_json: metadata,
                })
                .collect();
            let row = SessionRow { id: "s".into(), ..SessionRow::default() };
            for limit in [None, Some(n)] {
                let p = project(&row, &messages, limit, 0);
                let read = limit.map_or(messages.len() as u64, |n| n.min(messages.len() as u64));
                prop_assert_eq!(p.rows, read);
                prop_assert!(p.entries.windows(2).all(|w| w[0].seq < w[1].seq));
                let checkpoints = p.entries.iter().filter(|e| matches!(e.event, Event::Checkpoint { .. })).count();
                prop_assert!(checkpoints <= 1);
            }
        }
    }
}
