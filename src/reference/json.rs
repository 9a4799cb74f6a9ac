//! Byte-exact ECMAScript `JSON.stringify` for the few value shapes we emit,
//! plus the *tag-safe* variant (every `<` written as `\u003c`) whose length
//! can be counted without building the string.

/// Appends `JSON.stringify(s)` to `out`.
pub fn write_string(out: &mut String, s: &str) {
    write_string_with(out, s, false);
}

/// Appends the tag-safe JSON of `s` (`JSON.stringify(s)` with `<` → `\u003c`).
pub fn write_tag_safe_string(out: &mut String, s: &str) {
    write_string_with(out, s, true);
}

/// `JSON.stringify(s)` as a new string.
pub fn stringify(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(&mut out, s);
    out
}

fn write_string_with(out: &mut String, s: &str, tag_safe: bool) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut plain_from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Only ASCII bytes are ever escaped, so slicing at `i` is always on a
        // char boundary.
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            b'<' if tag_safe => Some("\\u003c"),
            0x00..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[plain_from..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xf) as usize] as char);
            }
        }
        plain_from = i + 1;
    }
    out.push_str(&s[plain_from..]);
    out.push('"');
}

/// Length in bytes of the tag-safe JSON of `s`, quotes included, computed
/// without building it.
pub fn tag_safe_len(s: &str) -> usize {
    // Branch-free per byte so the compiler vectorises it: this runs over
    // every projected message of every log read.
    let extra: u64 = s
        .as_bytes()
        .chunks(4096)
        .map(|chunk| chunk.iter().map(|&b| escape_extra(b)).sum::<u32>() as u64)
        .sum();
    2 + s.len() + extra as usize
}

/// Bytes an escape adds to one input byte: 1 for `"` `\` and the short
/// control escapes, 5 for `<` and other controls (`\u00xx`), else 0.
#[inline(always)]
fn escape_extra(b: u8) -> u32 {
    let control = (b < 0x20) as u32;
    let short_control = (b == 0x08) as u32
        + (b == 0x09) as u32
        + (b == 0x0a) as u32
        + (b == 0x0c) as u32
        + (b == 0x0d) as u32;
    control * 5 - short_control * 4
        + (b == b'"') as u32
        + (b == b'\\') as u32
        + 5 * (b == b'<') as u32
}

/// Number of decimal digits of `n` (its JSON length).
pub fn decimal_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_ecmascript() {
        assert_eq!(stringify("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(stringify("\u{8}\u{c}\n\r\t"), r#""\b\f\n\r\t""#);
        assert_eq!(stringify("\u{1}\u{1f}"), r#""\u0001\u001f""#);
        assert_eq!(
            stringify("\u{7f}\u{2028}\u{2029}/é😀<"),
            "\"\u{7f}\u{2028}\u{2029}/é😀<\""
        );
    }

    #[test]
    fn tag_safe_escapes_only_less_than() {
        let mut out = String::new();
        write_tag_safe_string(&mut out, "</x> > <");
        assert_eq!(out, r#""\u003c/x> > \u003c""#);
    }

    #[test]
    fn counted_length_matches_built_length() {
        for s in ["", "plain", "<<\u{0}\"\\\n😀é", "\u{1f}\u{7f}\u{2028}"] {
            let mut out = String::new();
            write_tag_safe_string(&mut out, s);
            assert_eq!(tag_safe_len(s), out.len(), "{s:?}");
        }
    }

    #[test]
    fn decimal_lengths() {
        assert_eq!(decimal_len(0), 1);
        assert_eq!(decimal_len(9), 1);
        assert_eq!(decimal_len(10), 2);
        assert_eq!(decimal_len(u64::MAX), 20);
    }
}
