//! What a Cursor role line shows (agent-logs-more.md "Cursor", Messages):
//! the person's words inside `<user_query>` wrappers, the model's text
//! blocks without the `[REDACTED]` stand-ins for its thinking, and the time
//! a prompt's `<timestamp>` element gives.

use std::borrow::Cow;

use super::unverified;
use crate::formats::text;

const QUERY_OPEN: &str = "<user_query>";
const QUERY_CLOSE: &str = "</user_query>";

/// The message of a user line's text blocks, `None` when nothing is left
/// after trimming (a line of tool results or images only). When any block
/// holds `<user_query>`: every such element's contents in order (up to the
/// next `</user_query>` or the block's end), each trimmed, joined with
/// `"\n"`; otherwise the blocks that are not entirely wrapper elements.
pub fn user_text(blocks: &[Cow<'_, str>]) -> Option<String> {
    let joined = if blocks.iter().any(|b| b.contains(QUERY_OPEN)) {
        let mut queries = Vec::new();
        for block in blocks {
            let mut rest: &str = block;
            while let Some(at) = rest.find(QUERY_OPEN) {
                let inner = &rest[at + QUERY_OPEN.len()..];
                let end = inner.find(QUERY_CLOSE).unwrap_or(inner.len());
                queries.push(inner[..end].trim());
                rest = &inner[end..];
            }
        }
        queries.join("\n")
    } else {
        let kept: Vec<&str> = blocks
            .iter()
            .map(|b| b.as_ref())
            .filter(|b| !text::is_entirely_elements(b, unverified::WRAPPERS))
            .collect();
        kept.join("\n")
    };
    if joined.trim().is_empty() {
        return None;
    }
    Some(text::person_text(Cow::Owned(joined)).into_owned())
}

/// The time of the first `<timestamp>…</timestamp>` in a user line's text
/// blocks, when its contents are a time Cursor writes.
pub fn prompt_time(blocks: &[Cow<'_, str>]) -> Option<u64> {
    const OPEN: &str = "<timestamp>";
    const CLOSE: &str = "</timestamp>";
    let inner = blocks.iter().find_map(|b| {
        let at = b.find(OPEN)?;
        let inner = &b[at + OPEN.len()..];
        Some(&inner[..inner.find(CLOSE)?])
    })?;
    unverified::prompt_time(inner)
}

/// Whether an assistant text block is shown: not empty and not the
/// `[REDACTED]` that stands for hidden thinking.
pub fn is_shown(block: &str) -> bool {
    let trimmed = block.trim();
    !trimmed.is_empty() && trimmed != "[REDACTED]"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(texts: &[&'static str]) -> Vec<Cow<'static, str>> {
        texts.iter().map(|t| Cow::Borrowed(*t)).collect()
    }

    #[test]
    fn queries_are_the_message_when_there_are_any() {
        let b = blocks(&[
            "<timestamp>Thursday, Aug 20, 2026, 9:15 AM (UTC+2)</timestamp>\n<user_query>\n  Why?\n</user_query>",
            "<user_info>os</user_info>",
            "<user_query>and\nhow</user_query> tail <user_query> unclosed ",
        ]);
        assert_eq!(user_text(&b).as_deref(), Some("Why?\nand\nhow\nunclosed"));
        assert_eq!(
            prompt_time(&b),
            unverified::prompt_time("Thursday, Aug 20, 2026, 9:15 AM (UTC+2)")
        );
    }

    #[test]
    fn without_queries_the_wrappers_are_dropped() {
        let b = blocks(&[
            "<timestamp>x</timestamp>",
            "List the files.",
            "<system_reminder>r</system_reminder>\n<system-reminder>s</system-reminder>",
            "and <user_info>u</user_info> this",
        ]);
        assert_eq!(
            user_text(&b).as_deref(),
            Some("List the files.\nand <user_info>u</user_info> this")
        );
        assert_eq!(prompt_time(&b), None);
        assert_eq!(
            user_text(&blocks(&["<user_info>u</user_info>", " \n"])),
            None
        );
        assert_eq!(user_text(&blocks(&["<user_query> </user_query>"])), None);
        assert_eq!(user_text(&[]), None);
    }

    #[test]
    fn redacted_thinking_is_not_shown() {
        assert!(is_shown("Done."));
        for hidden in ["", "  \n", "[REDACTED]", " [REDACTED]\n"] {
            assert!(!is_shown(hidden), "{hidden:?}");
        }
    }
}
