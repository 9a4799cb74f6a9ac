//! Lone UTF-16 surrogates in JSON string escapes (`"\ud83d"`, what
//! `JSON.stringify` writes for half an emoji) become `\ufffd` before the
//! one parse of a message: serde_json rejects them, and dropping the
//! message would make the server's text diverge from the editor's (issue 18
//! item 4). VS Code decodes them as U+FFFD too; both are one UTF-16 unit,
//! so positions the client computes stay right.

use crate::model::surrogates::lone_surrogates;

/// Rewrites, in place, every lone surrogate escape
/// ([`lone_surrogates`]) as `\ufffd` (the same length). Returns how many
/// were replaced.
pub fn replace_lone_surrogates(body: &mut [u8]) -> usize {
    let lone: Vec<usize> = lone_surrogates(body).collect();
    for &at in &lone {
        body[at..at + 6].copy_from_slice(br"\ufffd");
    }
    lone.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::surrogates::tests::NONE_LONE;

    fn fixed(text: &str) -> (String, usize) {
        let mut bytes = text.as_bytes().to_vec();
        let n = replace_lone_surrogates(&mut bytes);
        (String::from_utf8(bytes).unwrap(), n)
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            fixed(r#"{"t":"hello\ud83d World"}"#),
            (r#"{"t":"hello\ufffd World"}"#.to_string(), 1)
        );
        assert_eq!(
            fixed(r#"{"t":"\uDE00x\ud83d"}"#),
            (r#"{"t":"\ufffdx\ufffd"}"#.to_string(), 2)
        );
        let (text, _) = fixed(r#"{"t":"a\ud83db"}"#);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["t"], "a\u{FFFD}b");
    }

    #[test]
    fn pairs_escaped_backslashes_and_keys_are_left_alone() {
        for text in NONE_LONE {
            assert_eq!(fixed(text), (text.to_string(), 0), "{text}");
        }
        // A high surrogate followed by another high one: the first is alone.
        assert_eq!(
            fixed(r#""\ud83d\ud83d\ude00""#),
            (r#""\ufffd\ud83d\ude00""#.to_string(), 1)
        );
    }
}
