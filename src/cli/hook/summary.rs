//! The hook's `systemMessage`: what was attached, for the person (both
//! agents show it in their terminal; the model never sees it).
//!
//! Computed from what `prepare` returned: each source's counts and title
//! from its stats, its full snapshot's path from its data object in the
//! rendered context (reference.md §5a).

use serde_json::Value;

use crate::reference::one_line::one_line;
use crate::reference::prepare::{Prepared, ReferenceStats};
use crate::reference::render;

/// A title longer than this many characters is cut (a title may be a
/// whole first prompt).
const TITLE_CHARS: usize = 60;

/// One line per source under a heading; `None` without context.
pub fn system_message(prepared: &Prepared) -> Option<String> {
    let context = prepared.additional_context.as_ref()?;
    let references = &context.source.references;
    let text: String = context.content.iter().map(|b| b.text.as_str()).collect();
    let locators = full_snapshots(&text);
    let count = references.len();
    let mut out = format!(
        "Attached the context of {count} referenced session{}:",
        if count == 1 { "" } else { "s" }
    );
    for (i, stats) in references.iter().enumerate() {
        out.push_str("\n- ");
        out.push_str(&source_line(
            stats,
            locators.get(i).and_then(Option::as_ref),
        ));
    }
    Some(out)
}

/// Where a truncated source's full snapshot went.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Locator {
    Path(String),
    Unavailable(String),
}

/// Each data object's `fullSnapshot`, in source order.
fn full_snapshots(context: &str) -> Vec<Option<Locator>> {
    let objects: Vec<Value> = render::data_objects(context)
        .and_then(|array| serde_json::from_str(array).ok())
        .unwrap_or_default();
    objects
        .iter()
        .map(|object| {
            let full = object.get("fullSnapshot")?;
            if let Some(path) = full.get("path").and_then(Value::as_str) {
                return Some(Locator::Path(path.to_string()));
            }
            full.get("unavailable")
                .and_then(Value::as_str)
                .map(|why| Locator::Unavailable(why.to_string()))
        })
        .collect()
}

fn source_line(stats: &ReferenceStats, full: Option<&Locator>) -> String {
    let name = title(stats.title.as_deref().unwrap_or(&stats.label));
    let kept = stats.retained_messages;
    let total = stats.original_messages;
    if !stats.truncated {
        let noun = if total == 1 { "message" } else { "messages" };
        return format!("{name}: all {total} {noun}");
    }
    let mut line = format!(
        "{name}: {kept} of {total} messages kept, {} omitted ({})",
        stats.omitted_messages,
        bytes(stats.omitted_bytes)
    );
    match full {
        Some(Locator::Path(path)) => {
            line.push_str("; full snapshot: ");
            line.push_str(&one_line(path));
        }
        Some(Locator::Unavailable(why)) => {
            line.push_str("; no full snapshot (");
            line.push_str(&one_line(why));
            line.push(')');
        }
        None => {}
    }
    line
}

/// The title as one short line.
fn title(text: &str) -> String {
    let line = one_line(text);
    if line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let mut cut: String = line.chars().take(TITLE_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// A byte count for a person: bytes, kB or MB (powers of 1000).
fn bytes(n: u64) -> String {
    match n {
        0..=999 => format!("{n} bytes"),
        1_000..=999_999 => format!("{:.1} kB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::prepare::{AdditionalContext, TextBlock};

    fn stats(label: &str, title: Option<&str>, kept: usize, total: usize) -> ReferenceStats {
        ReferenceStats {
            session_id: label.into(),
            label: label.into(),
            captured_format_version: None,
            captured_through_seq: Some(1),
            compacted: false,
            original_messages: total,
            retained_messages: kept,
            omitted_messages: total - kept,
            omitted_bytes: if kept < total { 51_234 } else { 0 },
            truncated: kept < total,
            input_index: 0,
            title: title.map(Into::into),
        }
    }

    fn prepared(references: Vec<ReferenceStats>, objects: &[&str]) -> Prepared {
        Prepared {
            content: vec![TextBlock::new("hi".into())],
            additional_context: Some(AdditionalContext::recall(
                references,
                render::render_context(objects.iter().copied()),
            )),
        }
    }

    #[test]
    fn each_source_is_named_with_what_was_kept() {
        let message = system_message(&prepared(
            vec![
                stats("tests", Some("Write the\ntax tests\u{202e}"), 2, 2),
                stats("inventory", None, 40, 120),
                stats("ops", None, 1, 3),
            ],
            &[
                r#"{"sessionId":"tests"}"#,
                r#"{"sessionId":"inventory","omitted":{"messages":80,"bytes":51234},"fullSnapshot":{"path":"/c/s/a.json","bytes":90000}}"#,
                r#"{"sessionId":"ops","omitted":{"messages":2,"bytes":51234},"fullSnapshot":{"unavailable":"spill disabled"}}"#,
            ],
        ));
        assert_eq!(
            message.as_deref(),
            Some(
                "Attached the context of 3 referenced sessions:\n\
                 - Write the tax tests: all 2 messages\n\
                 - inventory: 40 of 120 messages kept, 80 omitted (51.2 kB); full snapshot: /c/s/a.json\n\
                 - ops: 1 of 3 messages kept, 2 omitted (51.2 kB); no full snapshot (spill disabled)"
            )
        );
    }

    #[test]
    fn no_context_no_message() {
        let none = Prepared {
            content: vec![TextBlock::new("hi".into())],
            additional_context: None,
        };
        assert_eq!(system_message(&none), None);
        let one = system_message(&prepared(vec![stats("a", None, 1, 1)], &["{}"]));
        assert_eq!(
            one.as_deref(),
            Some("Attached the context of 1 referenced session:\n- a: all 1 message")
        );
    }

    #[test]
    fn long_titles_are_cut() {
        let long = "word ".repeat(40);
        let cut = title(&long);
        assert!(cut.chars().count() <= TITLE_CHARS, "{cut}");
        assert!(cut.ends_with("word…"), "{cut}");
        assert_eq!(bytes(999), "999 bytes");
        assert_eq!(bytes(2_500_000), "2.5 MB");
    }
}
