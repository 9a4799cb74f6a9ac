//! The text around a match, for a person to recognise the conversation:
//! a window of the message where the query's terms are densest, with the
//! matched ranges as Unicode scalar offsets into that window. One line:
//! line breaks and other controls become spaces, one for one, so the
//! offsets stay true.

use super::tokenizer;
use tantivy::tokenizer::TokenStream;

/// Characters of a snippet at most.
pub const WIDTH: usize = 160;
/// Characters shown before the first match of the window.
const LEAD: usize = 40;

/// One snippet of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Snippet {
    /// The message's place on the surface (from 1; 0: the session's title).
    pub turn: u64,
    /// `user`, `assistant` or `title`.
    pub role: String,
    pub text: String,
    /// `[start, end)` of each match in `text`, in Unicode scalars.
    pub ranges: Vec<[usize; 2]>,
}

/// The snippet of `text` for the terms `exact` (and terms starting with
/// `prefix`).
pub fn make(turn: u64, role: &str, text: &str, exact: &[String], prefix: Option<&str>) -> Snippet {
    // Matches as byte ranges of `text`.
    let mut matches: Vec<(usize, usize)> = Vec::new();
    let mut analyzer = tokenizer::analyzer();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let token = stream.token();
        let hit = exact.contains(&token.text) || prefix.is_some_and(|p| token.text.starts_with(p));
        if hit {
            // A joined form spans its parts: keep the widest range once.
            match matches.last_mut() {
                Some(last) if token.offset_from <= last.1 => {
                    last.0 = last.0.min(token.offset_from);
                    last.1 = last.1.max(token.offset_to);
                }
                _ => matches.push((token.offset_from, token.offset_to)),
            }
        }
    }
    matches.sort_unstable();
    // Character index of every byte offset we need.
    let starts: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    let char_at = |byte: usize| starts.partition_point(|&b| b < byte);
    let total = starts.len();
    let spans: Vec<(usize, usize)> = matches
        .iter()
        .map(|&(a, b)| (char_at(a), char_at(b)))
        .collect();
    // The window holding the most matches.
    let mut best = (0usize, 0usize); // (count, first match index)
    for (i, &(from, _)) in spans.iter().enumerate() {
        let count = spans[i..]
            .iter()
            .take_while(|&&(_, to)| to <= from + WIDTH - LEAD)
            .count();
        if count > best.0 {
            best = (count, i);
        }
    }
    let window_start = spans
        .get(best.1)
        .map_or(0, |&(from, _)| from.saturating_sub(LEAD));
    let window_start = window_start.min(total.saturating_sub(WIDTH));
    // Start at a word, not in one (never past the first match shown).
    let first_match = spans.get(best.1).map_or(0, |&(from, _)| from);
    let chars: Vec<char> = text.chars().collect();
    let mut window_start = window_start;
    if window_start > 0 && !chars[window_start - 1].is_whitespace() {
        if let Some(space) = (window_start..first_match).find(|&c| chars[c].is_whitespace()) {
            window_start = space + 1;
        }
    }
    let window_end = (window_start + WIDTH).min(total);
    let byte = |c: usize| starts.get(c).copied().unwrap_or(text.len());
    let shown: String = text[byte(window_start)..byte(window_end)]
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let ranges = spans
        .iter()
        .filter(|&&(from, to)| from >= window_start && to <= window_end)
        .map(|&(from, to)| [from - window_start, to - window_start])
        .collect();
    Snippet {
        turn,
        role: role.to_string(),
        text: shown,
        ranges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn matches_are_marked_in_scalars_on_one_line() {
        let s = make(
            3,
            "user",
            "Ünïcode tax\nrounding is off",
            &terms(&["tax"]),
            Some("round"),
        );
        assert_eq!(s.text, "Ünïcode tax rounding is off");
        let chars: Vec<char> = s.text.chars().collect();
        let shown: Vec<String> = s
            .ranges
            .iter()
            .map(|[a, b]| chars[*a..*b].iter().collect())
            .collect();
        assert_eq!(shown, ["tax", "rounding"]);
        assert_eq!((s.turn, s.role.as_str()), (3, "user"));
    }

    #[test]
    fn the_window_is_where_the_matches_are() {
        let text = format!(
            "{} the tax rounding fix {}",
            "filler ".repeat(100),
            "tail ".repeat(100)
        );
        let s = make(1, "assistant", &text, &terms(&["tax", "rounding"]), None);
        assert!(s.text.chars().count() <= WIDTH);
        assert_eq!(s.ranges.len(), 2);
        assert!(s.text.contains("the tax rounding fix"));
        assert!(
            s.text.starts_with("filler "),
            "starts at a word: {:?}",
            s.text
        );
        let camel = make(
            1,
            "user",
            "see ModuleSpec",
            &terms(&["module", "spec"]),
            None,
        );
        assert_eq!(camel.ranges, [[4, 14]]);
    }
}
