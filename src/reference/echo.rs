//! Input repeated in an error message: at most [`MAX_ECHO`] bytes of it.
//!
//! A message that quotes what it was given grows with it: a 1 MB query
//! made a 1 MB error on stderr, in a hook's answer and on the wire. So an
//! error repeats the first [`MAX_ECHO`] bytes (cut at a character
//! boundary) and says it cut the rest. Only echoes are cut: text the
//! product makes (a `canonical` fix, a mention to type) is output and is
//! given whole.

/// The most bytes of an input an error message repeats.
pub const MAX_ECHO: usize = 300;

/// `text` as an error repeats it: whole when short, else its first
/// [`MAX_ECHO`] bytes, `…` and how long it was.
pub fn short(text: &str) -> String {
    match cut(text) {
        None => text.to_string(),
        Some(head) => format!("{head}… (cut from {} bytes)", text.len()),
    }
}

/// `text` quoted (as `{:?}` does), cut as [`short`] cuts it.
pub fn quoted(text: &str) -> String {
    match cut(text) {
        None => format!("{text:?}"),
        Some(head) => format!("{head:?}… (cut from {} bytes)", text.len()),
    }
}

/// The first [`MAX_ECHO`] bytes of `text` when it is longer.
fn cut(text: &str) -> Option<&str> {
    if text.len() <= MAX_ECHO {
        return None;
    }
    let mut end = MAX_ECHO;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(&text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_inputs_are_repeated_whole() {
        assert_eq!(short("tax"), "tax");
        assert_eq!(quoted("a\"b"), r#""a\"b""#);
        let exact = "x".repeat(MAX_ECHO);
        assert_eq!(short(&exact), exact);
    }

    #[test]
    fn long_inputs_are_cut_at_a_character_and_say_so() {
        let long = "é".repeat(1000);
        let cut = short(&long);
        assert!(cut.starts_with(&"é".repeat(MAX_ECHO / 2)));
        assert!(cut.ends_with("… (cut from 2000 bytes)"), "{cut}");
        assert!(cut.len() < MAX_ECHO + 40);
        let q = quoted(&"!".repeat(1 << 20));
        assert!(q.starts_with('"') && q.ends_with("… (cut from 1048576 bytes)"));
        assert!(q.len() < MAX_ECHO + 40);
    }
}
