//! Error texts that repeat part of their input.

/// The longest part of an input an error message repeats: a 10 MB
/// argument is not echoed back.
const MAX_ECHO: usize = 300;

/// `text` cut to [`MAX_ECHO`] bytes (at a character boundary), with `…`.
pub fn short(text: &str) -> String {
    if text.len() <= MAX_ECHO {
        return text.to_string();
    }
    let mut end = MAX_ECHO;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_inputs_are_not_echoed_whole() {
        let long = "é".repeat(1000);
        let cut = short(&long);
        assert!(cut.len() <= MAX_ECHO + "…".len());
        assert!(cut.ends_with('…'));
        assert_eq!(short("short"), "short");
    }
}
