//! The one-line rule: how text from a log becomes one line that the
//! product writes for a person to read or for an editor to insert (a
//! mention's label, a terminal line, an MCP resource's name, a hook's
//! `systemMessage`).
//!
//! A title is whatever a log says, so it may hold line breaks (a mention
//! printed per line becomes two), terminal controls (ESC clears the
//! screen) or bidirectional overrides (a label that shows one session's
//! name and is another's). The rule never applies to the contract's JSON
//! nor to the rendered context, whose bytes reference.md fixes, nor to
//! what a person typed.

/// Applies the rule, in its order: (a) line breaks, tabs and every other
/// C0 or C1 control and DEL become a space; (b) bidirectional controls and
/// zero-width characters are removed (the zero-width joiner stays: emoji
/// sequences need it); (c) runs of white space become one space and the
/// ends are trimmed.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Whether the last character written was white space (or nothing was
    // written yet): the next white space is then dropped.
    let mut after_space = true;
    for c in text.chars() {
        let c = if is_control(c) { ' ' } else { c };
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() {
            if !after_space {
                out.push(' ');
                after_space = true;
            }
            continue;
        }
        out.push(c);
        after_space = false;
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Whether `text` holds a character that (b) removes: what `check` and
/// the server flag in a mention's label.
pub fn has_invisible(text: &str) -> bool {
    text.chars().any(is_invisible)
}

/// C0, DEL, C1 (NEL among them), and the line and paragraph separators.
fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Bidirectional controls and zero-width characters, ZWJ excepted.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200B}'
            | '\u{200C}'
            | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_and_controls_become_one_space() {
        assert_eq!(
            one_line("first line\nsecond line"),
            "first line second line"
        );
        assert_eq!(one_line("a\r\n\tb"), "a b");
        assert_eq!(one_line("a\u{85}b\u{2028}c\u{2029}d"), "a b c d");
        assert_eq!(one_line("\x1b[2J\x1b[31mred\x07"), "[2J [31mred");
        assert_eq!(one_line("del\x7fete"), "del ete");
        assert_eq!(one_line("c1\u{9b}x"), "c1 x");
    }

    #[test]
    fn bidi_and_zero_width_characters_are_removed_but_zwj_stays() {
        assert_eq!(one_line("abc\u{202E}fed"), "abcfed");
        assert_eq!(one_line("\u{2066}a\u{2069}\u{200B}b\u{200C}\u{FEFF}"), "ab");
        assert_eq!(one_line("\u{200E}x\u{200F}"), "x");
        assert_eq!(one_line("👩\u{200D}💻"), "👩\u{200D}💻");
        assert!(has_invisible("a\u{202E}b"));
        assert!(!has_invisible("a\u{200D}b"));
    }

    #[test]
    fn runs_of_white_space_collapse_and_the_ends_are_trimmed() {
        assert_eq!(one_line("  a   b  "), "a b");
        assert_eq!(one_line("a \u{202E} b"), "a b");
        assert_eq!(one_line("a\u{3000}\u{a0}b"), "a b");
        assert_eq!(one_line(" \n\t "), "");
        assert_eq!(one_line(""), "");
    }

    #[test]
    fn the_rule_is_idempotent() {
        for s in ["a\n b", "\u{202E} x \u{200B}", "\x1b\x1b[", "  "] {
            assert_eq!(one_line(&one_line(s)), one_line(s));
        }
    }
}
