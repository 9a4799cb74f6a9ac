use super::*;

fn message(id: &str, role: &str, parts: &str, created_at: i64) -> MessageRow {
    MessageRow {
        id: id.into(),
        role: Some(role.into()),
        parts: Some(parts.into()),
        created_at: Some(created_at),
        is_summary_message: None,
    }
}

#[test]
fn times_are_seconds_up_to_ten_to_the_eleventh_then_milliseconds() {
    assert_eq!(millis(Some(1_754_104_814)), Some(1_754_104_814_000));
    assert_eq!(millis(Some(0)), Some(0));
    assert_eq!(millis(Some(99_999_999_999)), Some(99_999_999_999_000));
    assert_eq!(millis(Some(100_000_000_000)), Some(100_000_000_000));
    assert_eq!(millis(Some(1 << 53)), None);
    assert_eq!(millis(Some(-1)), None);
    assert_eq!(millis(None), None);
}

#[test]
fn a_message_is_the_text_of_its_first_text_part() {
    assert_eq!(
        message_text(Some(
            r#"[{"type":"reasoning","data":{"thinking":"x"}},{"type":"text","data":{"text":"one"}},{"type":"text","data":{"text":"two"}}]"#
        )),
        Ok("one".into())
    );
    assert_eq!(
        message_text(Some("[1, \"x\", {\"type\":\"odd\"}]")),
        Ok(String::new())
    );
    assert_eq!(message_text(Some("{}")), Err(()));
    assert_eq!(message_text(None), Ok(String::new()));
}

#[test]
fn a_summary_named_by_the_session_shadows_what_came_before() {
    let row = SessionRow {
        id: "s".into(),
        title: Some("  New Session ".into()),
        summary_message_id: Some("b".into()),
        ..SessionRow::default()
    };
    let messages = [
        message(
            "a",
            "user",
            r#"[{"type":"text","data":{"text":"first ask"}}]"#,
            10,
        ),
        message("b", "assistant", "[]", 20),
        message(
            "c",
            "user",
            r#"[{"type":"text","data":{"text":"next"}}]"#,
            30,
        ),
    ];
    let p = project(&row, &messages, None, Some("/p"), 7);
    assert_eq!(
        p.entries,
        [
            Entry {
                seq: 1,
                event: Event::Message {
                    role: Role::User,
                    text: "first ask".into()
                }
            },
            Entry {
                seq: 2,
                event: Event::Checkpoint {
                    through_seq: 1,
                    text: NO_SUMMARY.into()
                }
            },
            Entry {
                seq: 3,
                event: Event::Message {
                    role: Role::User,
                    text: "next".into()
                }
            },
        ]
    );
    // A placeholder is no title: the first prompt is.
    assert_eq!(p.title.as_deref(), Some("first ask"));
    assert_eq!(p.header.created_at, 10_000);
    assert_eq!(p.header.cwd.as_deref(), Some("/p"));
    assert_eq!(p.header.label, None);
    // Read to the second row only: the same first rows.
    let two = project(&row, &messages, Some(2), None, 7);
    assert_eq!(two.rows, 2);
    assert_eq!(two.entries.len(), 2);
}

#[test]
fn title_sessions_and_placeholders_are_told_apart() {
    let title = SessionRow {
        id: "title-1".into(),
        parent_session_id: Some("p".into()),
        ..SessionRow::default()
    };
    assert!(is_title_session(&title));
    assert!(!is_title_session(&SessionRow {
        parent_session_id: None,
        ..title.clone()
    }));
    for placeholder in PLACEHOLDERS {
        assert_eq!(given(Some(placeholder)), None);
    }
    assert_eq!(
        given(Some(" Fetch Analysis ")),
        Some("Fetch Analysis".into())
    );
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// A `parts` value from pieces Crush writes, and some it never does.
    fn parts() -> impl Strategy<Value = String> {
        let part = prop_oneof![
            "[a-z ]{0,12}".prop_map(|t| format!(r#"{{"type":"text","data":{{"text":"{t}"}}}}"#)),
            Just(r#"{"type":"reasoning","data":{"thinking":"t"}}"#.to_string()),
            Just(r#"{"type":"tool_call","data":{"id":"c","name":"ls"}}"#.to_string()),
            Just(r#"{"type":"finish","data":{"reason":"stop","time":0}}"#.to_string()),
            Just(r#"{"type":"text"}"#.to_string()),
            Just("7".to_string()),
        ];
        prop_oneof![
            4 => prop::collection::vec(part, 0..4).prop_map(|p| format!("[{}]", p.join(","))),
            1 => ".{0,8}",
        ]
    }

    fn messages() -> impl Strategy<Value = Vec<MessageRow>> {
        let role = prop_oneof![
            Just("user"),
            Just("assistant"),
            Just("tool"),
            Just("system")
        ];
        prop::collection::vec((role, parts(), 0i64..2, any::<bool>()), 0..12).prop_map(|rows| {
            rows.into_iter()
                .enumerate()
                .map(|(i, (role, parts, summary, created))| MessageRow {
                    id: format!("m{i}"),
                    role: Some(role.to_string()),
                    parts: Some(parts),
                    created_at: created.then_some(1_790_000_000 + i as i64),
                    is_summary_message: Some(summary),
                })
                .collect()
        })
    }

    proptest! {
        /// Any rows project without a panic, every row counted, and a
        /// read limited to the first rows gives exactly those rows'
        /// entries (a second pass over a capture reads the same).
        #[test]
        fn a_limited_read_is_a_prefix_of_the_whole(messages in messages(), summary in 0usize..14, n in 0u64..14) {
            let row = SessionRow {
                id: "s".into(),
                title: Some("t".into()),
                summary_message_id: Some(format!("m{summary}")),
                ..SessionRow::default()
            };
            let whole = project(&row, &messages, None, None, 0);
            prop_assert_eq!(whole.rows, messages.len() as u64);
            let part = project(&row, &messages, Some(n), None, 0);
            let expected: Vec<_> = whole.entries.iter().filter(|e| e.seq <= n).cloned().collect();
            prop_assert_eq!(part.entries, expected);
            prop_assert!(whole.entries.windows(2).all(|w| w[0].seq < w[1].seq));
        }
    }
}
