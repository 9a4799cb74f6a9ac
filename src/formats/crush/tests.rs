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
