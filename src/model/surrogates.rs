//! The one scanner of lone UTF-16 surrogates in JSON string escapes
//! (`"\ud83d"`, what `JSON.stringify` writes for half an emoji). serde_json
//! rejects such an escape only in a string it decodes, so both readers that
//! must judge every string look here: the hydra format (the contract makes
//! any unpaired surrogate escape invalid) and the language server's input
//! (which reads them as U+FFFD, as VS Code does).

/// The offsets of the `\uXXXX` escapes inside JSON strings of `json` that
/// are a high surrogate not followed by a low one, or a low surrogate not
/// after a high one, in order. Bytes outside strings, other escapes and
/// malformed `\u` escapes are passed over: what is not JSON still fails
/// its parse.
pub fn lone_surrogates(json: &[u8]) -> LoneSurrogates<'_> {
    LoneSurrogates {
        json,
        at: 0,
        in_string: false,
    }
}

/// Whether `json` holds a lone surrogate escape; only text with a `\ud`
/// or `\uD` is walked (most lines have none).
pub fn has_lone_surrogate(json: &[u8]) -> bool {
    static ESCAPE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
    ESCAPE
        .find_iter(json)
        .any(|i| matches!(json.get(i + 2), Some(b'd' | b'D')))
        && lone_surrogates(json).next().is_some()
}

/// See [`lone_surrogates`].
#[derive(Debug, Clone)]
pub struct LoneSurrogates<'a> {
    json: &'a [u8],
    at: usize,
    in_string: bool,
}

impl Iterator for LoneSurrogates<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let json = self.json;
        while self.at < json.len() {
            let at = self.at;
            match (self.in_string, json[at]) {
                (false, b'"') => self.in_string = true,
                (true, b'"') => self.in_string = false,
                (true, b'\\') => {
                    let Some(unit) = escaped_unit(json, at) else {
                        // `\"`, `\\`, `\n`…: skip the escaped byte too.
                        self.at += 2;
                        continue;
                    };
                    self.at += 6;
                    if is_high(unit) {
                        if escaped_unit(json, at + 6).is_some_and(is_low) {
                            // A whole pair: both kept.
                            self.at += 6;
                            continue;
                        }
                        return Some(at);
                    }
                    if is_low(unit) {
                        // A low surrogate after a high one was passed with
                        // its pair above, so this one is alone.
                        return Some(at);
                    }
                    continue;
                }
                _ => {}
            }
            self.at += 1;
        }
        None
    }
}

/// The code unit of the `\uXXXX` escape at `at`, if there is one.
fn escaped_unit(json: &[u8], at: usize) -> Option<u16> {
    let escape = json.get(at..at + 6)?;
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// JSON texts with no lone half: pairs, escaped backslashes, text
    /// outside strings, an escape that is no hex. The server's rewrite of
    /// lone halves leaves each as it is.
    pub(crate) const NONE_LONE: [&str; 7] = [
        r#"{"t":"\ud83d\ude00"}"#,
        r#"{"t":"\\ud83d"}"#,
        r#"{"t":"\"\ud83d\ude00\""}"#,
        r#"{"t":"plain"}"#,
        r#"\ud83d outside a string"#,
        r#"{"t":"\ud83d\ude00 \\ud800"}"#,
        r#"{"t":"\uzz"}"#,
    ];

    fn lone(text: &str) -> Vec<usize> {
        lone_surrogates(text.as_bytes()).collect()
    }

    #[test]
    fn lone_halves_are_found_where_they_stand() {
        assert_eq!(lone(r#"{"t":"hello\ud83d World"}"#), [11]);
        assert_eq!(lone(r#"{"t":"\uDE00x\ud83d"}"#), [6, 13]);
        // A high surrogate followed by another high one: the first is alone.
        assert_eq!(lone(r#""\ud83d\ud83d\ude00""#), [1]);
        assert_eq!(lone(r#"{"z":"\udc00\ud800"}"#), [6, 12]);
    }

    #[test]
    fn pairs_escaped_backslashes_and_text_outside_strings_are_not() {
        for text in NONE_LONE {
            assert_eq!(lone(text), Vec::<usize>::new(), "{text}");
            assert!(!has_lone_surrogate(text.as_bytes()), "{text}");
        }
        assert!(has_lone_surrogate(br#"{"z":"\ud800"}"#));
    }
}
