//! Lone UTF-16 surrogates in JSON string escapes (`"\ud83d"`, what
//! `JSON.stringify` writes for half an emoji) become `\ufffd` before the
//! one parse of a message: serde_json rejects them, and dropping the
//! message would make the server's text diverge from the editor's (issue 18
//! item 4). VS Code decodes them as U+FFFD too; both are one UTF-16 unit,
//! so positions the client computes stay right.

/// Rewrites, in place, every `\uXXXX` escape inside a JSON string that is a
/// high surrogate not followed by a low one, or a low surrogate not after a
/// high one, as `\ufffd` (the same length). Returns how many were replaced.
/// Bytes outside strings and other escapes are left as they are: a body
/// that is not JSON still fails its parse.
pub fn replace_lone_surrogates(body: &mut [u8]) -> usize {
    let mut replaced = 0;
    let mut in_string = false;
    let mut at = 0;
    while at < body.len() {
        match (in_string, body[at]) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            (true, b'\\') => {
                let Some(unit) = escaped_unit(body, at) else {
                    // `\"`, `\\`, `\n`…: skip the escaped byte too.
                    at += 2;
                    continue;
                };
                if is_high(unit) {
                    let next = escaped_unit(body, at + 6);
                    if next.is_some_and(is_low) {
                        // A whole pair: keep both.
                        at += 12;
                        continue;
                    }
                    write_replacement(body, at);
                    replaced += 1;
                } else if is_low(unit) {
                    // A low surrogate after a high one was skipped with
                    // its pair above, so this one is alone.
                    write_replacement(body, at);
                    replaced += 1;
                }
                at += 6;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    replaced
}

/// The code unit of the `\uXXXX` escape at `at`, if there is one.
fn escaped_unit(body: &[u8], at: usize) -> Option<u16> {
    let escape = body.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

fn is_high(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

fn is_low(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

fn write_replacement(body: &mut [u8], at: usize) {
    body[at..at + 6].copy_from_slice(br"\ufffd");
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for text in [
            r#"{"t":"\ud83d\ude00"}"#,
            r#"{"t":"\\ud83d"}"#,
            r#"{"t":"\"\ud83d\ude00\""}"#,
            r#"{"t":"plain"}"#,
            r#"\ud83d outside a string"#,
        ] {
            assert_eq!(fixed(text), (text.to_string(), 0), "{text}");
        }
        // A high surrogate followed by another high one: the first is alone.
        assert_eq!(
            fixed(r#""\ud83d\ud83d\ude00""#),
            (r#""\ufffd\ud83d\ude00""#.to_string(), 1)
        );
    }
}
