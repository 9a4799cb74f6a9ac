//! Byte offsets ↔ LSP positions, in the negotiated encoding.
//!
//! Lines end at `\n`, `\r\n` or `\r`, as LSP says (ropey's `cr_lines`).
//! Positions past the end of a line or of the document are clamped.

use lsp_types::{Position, Range};
use ropey::Rope;

/// The position encoding negotiated at `initialize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    Utf8,
    #[default]
    Utf16,
}

/// The LSP position of byte `offset` (clamped to the text).
pub fn position(rope: &Rope, offset: usize, encoding: Encoding) -> Position {
    let offset = offset.min(rope.len_bytes());
    let line = rope.byte_to_line(offset);
    let line_start = rope.line_to_byte(line);
    let character = match encoding {
        Encoding::Utf8 => offset - line_start,
        Encoding::Utf16 => {
            let char_index = rope.byte_to_char(offset);
            rope.char_to_utf16_cu(char_index) - rope.char_to_utf16_cu(rope.line_to_char(line))
        }
    };
    Position::new(line as u32, character as u32)
}

/// The LSP range of a byte range.
pub fn range(rope: &Rope, bytes: std::ops::Range<usize>, encoding: Encoding) -> Range {
    Range::new(
        position(rope, bytes.start, encoding),
        position(rope, bytes.end, encoding),
    )
}

/// The byte offset of an LSP position, clamped: a line past the end is the
/// end of the text, a column past the end of a line is the line's end
/// (before its line break), and a column inside a character is that
/// character's start.
pub fn offset(rope: &Rope, position: Position, encoding: Encoding) -> usize {
    let line = position.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let line_start = rope.line_to_byte(line);
    let line_slice = rope.line(line);
    let content_bytes = line_slice.len_bytes() - line_break_len(&line_slice);
    let column = position.character as usize;
    match encoding {
        Encoding::Utf8 => {
            let within = column.min(content_bytes);
            // Floor to a character boundary.
            let char_index = line_slice.byte_to_char(within);
            line_start + line_slice.char_to_byte(char_index)
        }
        Encoding::Utf16 => {
            let content_chars = line_slice.byte_to_char(content_bytes);
            let content_units = line_slice.char_to_utf16_cu(content_chars);
            let units = column.min(content_units);
            let char_index = line_slice.utf16_cu_to_char(units);
            line_start + line_slice.char_to_byte(char_index)
        }
    }
}

/// 1-based line and column in Unicode scalar values (for `check`).
pub fn line_column(rope: &Rope, offset: usize) -> (usize, usize) {
    let offset = offset.min(rope.len_bytes());
    let line = rope.byte_to_line(offset);
    let column = rope.byte_to_char(offset) - rope.line_to_char(line);
    (line + 1, column + 1)
}

fn line_break_len(line: &ropey::RopeSlice<'_>) -> usize {
    let len = line.len_bytes();
    if len >= 2 && line.byte(len - 2) == b'\r' && line.byte(len - 1) == b'\n' {
        2
    } else if len >= 1 && matches!(line.byte(len - 1), b'\n' | b'\r') {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        let rope = Rope::from_str("a😀b\nx");
        assert_eq!(position(&rope, 5, Encoding::Utf16), Position::new(0, 3));
        assert_eq!(position(&rope, 5, Encoding::Utf8), Position::new(0, 5));
        assert_eq!(offset(&rope, Position::new(0, 3), Encoding::Utf16), 5);
        // Inside the surrogate pair: the character's start.
        assert_eq!(offset(&rope, Position::new(0, 2), Encoding::Utf16), 1);
    }

    #[test]
    fn line_breaks_of_all_kinds() {
        let rope = Rope::from_str("a\r\nb\rc\nd");
        assert_eq!(position(&rope, 3, Encoding::Utf16), Position::new(1, 0));
        assert_eq!(position(&rope, 5, Encoding::Utf16), Position::new(2, 0));
        assert_eq!(line_column(&rope, 7), (4, 1));
    }

    #[test]
    fn clamps_out_of_range_positions() {
        let rope = Rope::from_str("ab\r\ncd");
        assert_eq!(offset(&rope, Position::new(0, 99), Encoding::Utf16), 2);
        assert_eq!(offset(&rope, Position::new(9, 0), Encoding::Utf8), 6);
        assert_eq!(offset(&rope, Position::new(1, 99), Encoding::Utf8), 6);
    }
}
