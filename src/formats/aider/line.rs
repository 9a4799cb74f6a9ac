//! One line of an Aider chat history, classified as Aider's own reader
//! (`split_chat_history_markdown`) classifies it (agent-logs-files-3.md
//! "Aider": [V]), plus the run header that starts each session.

use super::unverified;

/// The text after which a run header's stamp follows.
const HEADER_PREFIX: &[u8] = b"# aider chat started at ";
/// `YYYY-MM-DD HH:MM:SS`.
const STAMP_LEN: usize = 19;

/// What a line of the file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// `# aider chat started at YYYY-MM-DD HH:MM:SS`: a run starts; the
    /// stamp as written.
    Header(&'a str),
    /// `#### <text>`: a line of what the person typed, its text with
    /// trailing white space removed.
    User(&'a str),
    /// `> <text>`: tool output, a warning, an error or a confirmation.
    /// Never projected.
    Tool,
    /// Empty after trimming.
    Blank(&'a str),
    /// Anything else: a line of the reply, as written.
    Assistant(&'a str),
}

/// The stamp of a run header line, if `line` is one (exactly
/// `^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})$`).
pub fn header_stamp(line: &[u8]) -> Option<&str> {
    let stamp = line.strip_prefix(HEADER_PREFIX)?;
    if stamp.len() != STAMP_LEN {
        return None;
    }
    let shaped = stamp.iter().enumerate().all(|(i, &c)| match i {
        4 | 7 => c == b'-',
        10 => c == b' ',
        13 | 16 => c == b':',
        _ => c.is_ascii_digit(),
    });
    // All ASCII when shaped, so always UTF-8.
    shaped.then(|| std::str::from_utf8(stamp).ok()).flatten()
}

/// Classifies one line (its `\n` and a `\r` before it already gone).
pub fn classify(line: &str) -> Line<'_> {
    if let Some(stamp) = header_stamp(line.as_bytes()) {
        return Line::Header(stamp);
    }
    if let Some(text) = line.strip_prefix("#### ") {
        return Line::User(text.trim_end());
    }
    if line.starts_with("> ") {
        return Line::Tool;
    }
    if line.trim().is_empty() {
        return Line::Blank(line);
    }
    if !unverified::HEADING_IN_REPLY_IS_TEXT && line.starts_with("# ") {
        return Line::Tool;
    }
    Line::Assistant(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified_as_aider_reads_them() {
        assert_eq!(
            classify("# aider chat started at 2025-05-04 17:02:36"),
            Line::Header("2025-05-04 17:02:36")
        );
        // Not exactly a header: reply text.
        for near in [
            "# aider chat started at 2025-05-04 17:02:36 ",
            "# aider chat started at 2025-05-04T17:02:36",
            "# aider chat started at 2025-5-04 17:02:36",
            " # aider chat started at 2025-05-04 17:02:36",
            "# Heading in a reply",
        ] {
            assert_eq!(classify(near), Line::Assistant(near), "{near}");
        }
        assert_eq!(classify("#### hello  "), Line::User("hello"));
        assert_eq!(classify("####   "), Line::User(""));
        assert_eq!(classify("#### <blank>"), Line::User("<blank>"));
        assert_eq!(classify("####"), Line::Assistant("####"));
        assert_eq!(classify("> Tokens: 1k sent"), Line::Tool);
        assert_eq!(classify(">  "), Line::Tool);
        assert_eq!(classify(">"), Line::Assistant(">"));
        assert_eq!(classify("   "), Line::Blank("   "));
        assert_eq!(classify(""), Line::Blank(""));
        assert_eq!(classify("  code"), Line::Assistant("  code"));
    }
}
