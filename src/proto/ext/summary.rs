//! The Markdown an editor shows for a prepare result (`prepare` with
//! `format: "markdown"`): the rendered context as the model will see it,
//! then a table of what each reference kept. The editors render this text
//! as it comes, so the table's columns live here, once.

use super::{Prepared, ReferenceStats};

const HEADER: [&str; 2] = [
    "| label | session | messages kept | omitted messages | omitted bytes | truncated | compacted | through seq |",
    "|---|---|---|---|---|---|---|---|",
];

impl Prepared {
    /// The context, a rule, then "Reference statistics"; `None` when the
    /// prompt references no session (there is no context to show).
    pub fn summary_markdown(&self) -> Option<String> {
        let context = self.additional_context.as_ref()?;
        let text: Vec<&str> = context.content.iter().map(|c| c.text.as_str()).collect();
        let mut out = text.join("\n");
        out.push_str("\n\n\n---\n\n## Reference statistics\n\n");
        for line in HEADER {
            out.push_str(line);
            out.push('\n');
        }
        for r in &context.source.references {
            out.push_str(&row(r));
            out.push('\n');
        }
        Some(out)
    }
}

fn row(r: &ReferenceStats) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let seq = r
        .captured_through_seq
        .map_or_else(|| "–".to_string(), |s| s.to_string());
    format!(
        "| {} | `{}` | {} of {} | {} | {} | {} | {} | {} |",
        cell(&r.label),
        cell(&r.session_id),
        r.retained_messages,
        r.original_messages,
        r.omitted_messages,
        r.omitted_bytes,
        yes(r.truncated),
        yes(r.compacted),
        seq
    )
}

/// A table cell: a backslash or a `|` escaped, a line break a space, so a
/// title cannot end its cell or its row.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            // CR LF is one break, as a lone CR or LF is.
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{AdditionalContext, ContextSource, TextBlock};
    use super::*;

    fn stats(label: &str, seq: Option<u64>) -> ReferenceStats {
        ReferenceStats {
            session_id: "s|1".into(),
            label: label.into(),
            captured_format_version: Some(1),
            captured_through_seq: seq,
            compacted: true,
            original_messages: 121,
            retained_messages: 82,
            omitted_messages: 39,
            omitted_bytes: 4096,
            truncated: false,
            input_index: 0,
        }
    }

    fn prepared(references: Vec<ReferenceStats>) -> Prepared {
        let block = |t: &str| TextBlock {
            kind: "text".into(),
            text: t.into(),
        };
        Prepared {
            content: vec![block("prompt")],
            additional_context: Some(AdditionalContext {
                role: "user".into(),
                source: ContextSource {
                    kind: "session-reference".into(),
                    form: "recall".into(),
                    version: 1,
                    references,
                },
                content: vec![block("## Referenced sessions"), block("body")],
            }),
        }
    }

    #[test]
    fn the_context_then_one_row_per_reference() {
        let md = prepared(vec![stats("a\\b|c\r\nd", Some(8)), stats("e", None)]).summary_markdown();
        let expected = "## Referenced sessions\nbody\n\n\n---\n\n## Reference statistics\n\n\
            | label | session | messages kept | omitted messages | omitted bytes | truncated | compacted | through seq |\n\
            |---|---|---|---|---|---|---|---|\n\
            | a\\\\b\\|c d | `s\\|1` | 82 of 121 | 39 | 4096 | no | yes | 8 |\n\
            | e | `s\\|1` | 82 of 121 | 39 | 4096 | no | yes | – |\n";
        assert_eq!(md.as_deref(), Some(expected));
    }

    #[test]
    fn no_reference_no_summary() {
        let mut p = prepared(Vec::new());
        p.additional_context = None;
        assert_eq!(p.summary_markdown(), None);
    }
}
