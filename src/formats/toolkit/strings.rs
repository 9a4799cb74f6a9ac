//! Where a byte of JSON text stands against its strings, for the
//! splitters that cut JSON text at its structure as the bytes come
//! ([`super::document::Members`], [`super::elements::Elements`]): a `,`,
//! `}` or `]` inside a string is text, not structure.

/// Inside a string or not, and after a backslash in one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Takes the next byte: whether it is a string's (its closing quote
    /// included). An opening quote is not yet the string's: the splitter
    /// keeps it as it keeps any byte of the structure.
    pub fn take(&mut self, b: u8) -> bool {
        if !self.inside {
            self.inside = b == b'"';
            return false;
        }
        match (self.escaped, b) {
            (true, _) => self.escaped = false,
            (false, b'\\') => self.escaped = true,
            (false, b'"') => self.inside = false,
            _ => {}
        }
        true
    }

    /// Whether the bytes so far end inside a string.
    pub fn is_inside(&self) -> bool {
        self.inside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_escaped_in_a_string_do_not_end_it() {
        let mut strings = Strings::default();
        let text = br#"{"a":"x\"},\\","b"#;
        let taken: Vec<bool> = text.iter().map(|&b| strings.take(b)).collect();
        // `{`, `:` and `,` are structure, and each string's opening quote.
        let inside: String = text
            .iter()
            .zip(&taken)
            .filter(|(_, &t)| t)
            .map(|(&b, _)| b as char)
            .collect();
        assert_eq!(inside, r#"a"x\"},\\"b"#);
        assert!(strings.is_inside(), "the last `\"b` opens a string");
    }
}
