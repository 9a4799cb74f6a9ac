//! Claude Code's own text rules: wrapper elements and the first line of a
//! prompt. The rules shared with other formats are in `formats::text`.

use crate::formats::text::is_entirely_elements;
pub use crate::formats::text::{
    cut_title, given_title, parse_timestamp, person_text, prompt_title, readable_mentions,
};

/// The elements whose text is the client's, not the person's (agent-logs.md
/// "Claude Code", Messages).
const WRAPPERS: &[&str] = &[
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "task-notification",
    "system-reminder",
];

/// Whether `text`, trimmed, is one or more `<T …>…</T>` wrapper elements
/// separated only by white space. An empty text is not.
pub fn is_wrapper_only(text: &str) -> bool {
    is_entirely_elements(text, WRAPPERS)
}

/// The first line of a prompt: the text before the first `\n`, `\r` or
/// U+2028, trimmed; when that is empty, the first non-empty line.
pub fn first_line(text: &str) -> Option<String> {
    text.split(['\n', '\r', '\u{2028}'])
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers() {
        assert!(is_wrapper_only(
            "<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>\n            <command-args></command-args>"
        ));
        assert!(is_wrapper_only(
            "  <local-command-stdout>Reconnected to tidewave.</local-command-stdout>\n"
        ));
        assert!(is_wrapper_only(
            "<system-reminder a=\"1\">x</system-reminder>"
        ));
        assert!(!is_wrapper_only(
            "<command-name>/mcp</command-name> and more"
        ));
        assert!(!is_wrapper_only("<command-names>x</command-names>"));
        assert!(!is_wrapper_only("<other>x</other>"));
        assert!(!is_wrapper_only("<command-name>unclosed"));
        assert!(!is_wrapper_only("   "));
        assert!(!is_wrapper_only("[Request interrupted by user]"));
    }

    #[test]
    fn titles() {
        assert_eq!(cut_title("  a \n\t b  ").as_deref(), Some("a b"));
        assert_eq!(cut_title(" \n "), None);
        let long = "word ".repeat(30);
        let cut = cut_title(&long).unwrap_or_default();
        assert_eq!(cut, "word ".repeat(16).trim_end());
        assert_eq!(cut_title(&"x".repeat(100)), Some("x".repeat(80)));
        // Scalar values, not bytes.
        let accents = "é".repeat(79) + " tail";
        assert_eq!(cut_title(&accents), Some("é".repeat(79)));
        assert_eq!(cut_title(&"é".repeat(80)), Some("é".repeat(80)));
        assert_eq!(
            first_line("\n  \r\n first \u{2028} second").as_deref(),
            Some("first")
        );
        assert_eq!(given_title("  "), None);
    }
}
