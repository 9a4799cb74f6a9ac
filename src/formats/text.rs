//! Text rules shared by the agents' log formats (agent-logs.md "Stores and
//! formats"): titles cut to 80, names used as written, wrapper elements,
//! RFC 3339 timestamps, the person's part of a prompt and a title taken
//! from it. Said once here, used by every agent's format (never the hydra
//! format, whose bytes the contract fixes).

use std::borrow::Cow;

use crate::reference::{mention, render};

/// Each canonical mention read as its `@label` (see [`prompt_title`]).
pub use crate::reference::mention::readable as readable_mentions;

/// Longest title taken from a message, in Unicode scalar values.
const TITLE_MAX: usize = 80;

/// How much of a first prompt a format keeps to take a title from (and a
/// database listing reads of a string, `store::database::shrink`): far
/// more than a title's 80 scalars, so mention markup before the words
/// still fits, and never a copy of a 100 MB message (issue 27 item 14).
pub const TITLE_SOURCE_MAX: usize = 16 << 10;

/// The start of `text` a title is taken from: its leading white space
/// dropped, then at most [`TITLE_SOURCE_MAX`] bytes, cut at a character.
pub fn title_source(text: &str) -> String {
    let text = text.trim_start();
    let mut end = text.len().min(TITLE_SOURCE_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// A message's text as a title: white space runs collapsed to one space,
/// trimmed, then cut to at most 80 scalar values after the last space
/// within them (that space dropped), or hard at 80 when there is none.
/// `None` when nothing is left.
pub fn cut_title(text: &str) -> Option<String> {
    let mut collapsed = String::with_capacity(text.len().min(4 * TITLE_MAX + 4));
    let mut chars = 0usize;
    for word in text.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
            chars += 1;
        }
        collapsed.push_str(word);
        chars += word.chars().count();
        // Enough to decide the cut: the first 81 scalars tell whether the
        // text is longer than 80 and where the last space within 80 is.
        if chars > TITLE_MAX {
            break;
        }
    }
    if collapsed.is_empty() {
        return None;
    }
    if chars <= TITLE_MAX {
        return Some(collapsed);
    }
    let end = collapsed
        .char_indices()
        .nth(TITLE_MAX)
        .map_or(collapsed.len(), |(i, _)| i);
    let head = &collapsed[..end];
    let cut = head.rfind(' ').map_or(head, |space| &head[..space]);
    Some(cut.to_string())
}

/// What the person wrote in a prompt: without a context this program
/// rendered in front of it (`prepare --format text | claude -p`), so the
/// session is neither titled by the old snapshot nor nests it when
/// mentioned again. Any other text is handed on as it is.
pub fn person_text(text: Cow<'_, str>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(t) => Cow::Borrowed(render::strip_rendered_context(t).unwrap_or(t)),
        Cow::Owned(t) => match render::strip_rendered_context(&t) {
            Some(person) => Cow::Owned(person.to_string()),
            None => Cow::Owned(t),
        },
    }
}

/// A title taken from a prompt: each canonical mention read as its
/// `@label` (markup such as `@[Review](hydra-session:…)` is noise in a
/// list of sessions), then cut to 80 ([`cut_title`]). The same as
/// `cut_title(&readable_mentions(prompt))`, but it reads only as much of
/// the prompt as the title can show: once the text read has more than
/// `TITLE_MAX + 1` scalars that are not white space, the rest cannot
/// change the first 81 scalars `cut_title` looks at.
pub fn prompt_title(prompt: &str) -> Option<String> {
    const ENOUGH: usize = TITLE_MAX + 2;
    let mut read = String::new();
    let mut read_visible = 0;
    let mut copied = 0;
    let mut mentions = mention::Mentions::new(prompt);
    while read_visible < ENOUGH && copied < prompt.len() {
        // Where the raw text after `copied` gives the scalars still needed.
        let rest = &prompt[copied..];
        let mut window = rest.len();
        let mut visible = read_visible;
        for (i, c) in rest.char_indices() {
            if !c.is_whitespace() {
                visible += 1;
                if visible >= ENOUGH {
                    window = i + c.len_utf8();
                    break;
                }
            }
        }
        let Some(found) = mentions.next_before(copied + window) else {
            read.push_str(&rest[..window]);
            break;
        };
        let before = &prompt[copied..found.span.start];
        let markup = &prompt[found.span.clone()];
        let text = found.readable_label().map(|label| format!("@{label}"));
        for part in [before, text.as_deref().unwrap_or(markup)] {
            read.push_str(part);
            read_visible += part.chars().filter(|c| !c.is_whitespace()).count();
        }
        copied = found.span.end;
    }
    cut_title(&read)
}

/// A name the agent or person gave: used as written, trimmed, when not
/// empty.
pub fn given_title(name: &str) -> Option<String> {
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// Whether `text`, trimmed, is one or more `<T …>…</T>` elements with `T`
/// from `names`, separated only by white space.
pub fn is_entirely_elements(text: &str, names: &[&str]) -> bool {
    let mut rest = text.trim();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let Some(tag) = rest.strip_prefix('<') else {
            return false;
        };
        let name_len = tag
            .find(|c: char| c == '>' || c.is_whitespace())
            .unwrap_or(tag.len());
        let name = &tag[..name_len];
        if !names.contains(&name) {
            return false;
        }
        let Some(open_end) = tag[name_len..].find('>').map(|i| name_len + i + 1) else {
            return false;
        };
        let body = &tag[open_end..];
        let Some(close) = find_close_tag(body, name) else {
            return false;
        };
        rest = body[close..].trim_start();
    }
    true
}

/// The byte offset just after the first `</name>` in `body`.
fn find_close_tag(body: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = body[from..].find("</") {
        let at = from + i + 2;
        let after = &body[at..];
        if after.starts_with(name) && after[name.len()..].starts_with('>') {
            return Some(at + name.len() + 1);
        }
        from = at;
    }
    None
}

/// An RFC 3339 date-time as Unix epoch milliseconds (finer digits
/// truncated); `None` when it does not parse or is before 1970.
pub fn parse_timestamp(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let digits = b.get(from..from + len)?;
        digits.iter().try_fold(0i64, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let sep = |at: usize, ok: &[u8]| b.get(at).is_some_and(|c| ok.contains(c));
    let year = num(0, 4)?;
    let month = num(5, 2)?;
    let day = num(8, 2)?;
    let hour = num(11, 2)?;
    let minute = num(14, 2)?;
    let second = num(17, 2)?;
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        for _ in (i - start)..3 {
            millis *= 10;
        }
    }
    let offset_minutes = match b.get(i) {
        Some(b'Z' | b'z') => {
            i += 1;
            0
        }
        Some(&sign @ (b'+' | b'-')) => {
            let (oh, om) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if !sep(i + 3, b":") || oh > 23 || om > 59 {
                return None;
            }
            i += 6;
            let minutes = oh * 60 + om;
            if sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    if i != b.len()
        || !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        // 60: a leap second.
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    u64::try_from(seconds * 1_000 + millis).ok()
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_collapse_and_cut_at_a_space() {
        assert_eq!(cut_title("  a\n\t b  ").as_deref(), Some("a b"));
        assert_eq!(cut_title(" \n "), None);
        let exact = "x".repeat(80);
        assert_eq!(cut_title(&exact).as_deref(), Some(exact.as_str()));
        // 81 scalars: cut after the last space within the first 80.
        let long = format!("{} {}", "a".repeat(70), "b".repeat(20));
        assert_eq!(cut_title(&long), Some("a".repeat(70)));
        // No space within the first 80: a hard cut.
        assert_eq!(cut_title(&"é".repeat(100)), Some("é".repeat(80)));
        // The 81st scalar being a space still cuts at the last space
        // within the first 80.
        let edge = format!("{} {} tail", "a".repeat(9), "b".repeat(70));
        assert_eq!(cut_title(&edge), Some("a".repeat(9)));
        // Runs of white space count as one.
        let spaced = format!("{}\n\n\n{}", "a".repeat(40), "b".repeat(39));
        assert_eq!(
            cut_title(&spaced),
            Some(format!("{} {}", "a".repeat(40), "b".repeat(39)))
        );
    }

    #[test]
    fn prompt_titles_read_mentions_as_labels() {
        let prompt = "Continue the review from @[Review the cart totals](hydra-session:ImEi)";
        assert_eq!(
            prompt_title(prompt).as_deref(),
            Some("Continue the review from @Review the cart totals")
        );
        // Read before the cut: the label counts, the markup does not.
        let long = format!("{} @[x](hydra-session:ImEi)", "a".repeat(76));
        assert_eq!(prompt_title(&long), Some(format!("{} @x", "a".repeat(76))));
        let malformed = "see @[x](hydra-session:!!)";
        assert_eq!(prompt_title(malformed).as_deref(), Some(malformed));
    }

    /// `prompt_title` reads only the start, and says the same as reading
    /// everything.
    #[test]
    fn prompt_titles_equal_the_whole_reading() {
        let long_label = format!("@[{}](hydra-session:ImEi)", "l ".repeat(60));
        let pieces = [
            "word",
            " ",
            "\n\n",
            "@[Review the cart](hydra-session:ImEi)",
            "hydra-session:ImIi",
            "@[bad](hydra-session:!!)",
            "@[open",
            "é",
            "x".repeat(90).leak(),
            long_label.leak(),
        ];
        let mut seed = 7u64;
        for _ in 0..2000 {
            let mut prompt = String::new();
            for _ in 0..(seed % 40) {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                prompt.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            assert_eq!(
                prompt_title(&prompt),
                cut_title(&mention::readable(&prompt)),
                "{prompt:?}"
            );
        }
    }

    #[test]
    fn person_text_drops_only_a_rendered_context() {
        let context = render::render_context([
            r#"{"sessionId":"a","label":"A","cwd":null,"conversation":[]}"#,
        ]);
        let text = format!("{context}\n\nWhat next?");
        assert_eq!(person_text(Cow::Borrowed(&text)), "What next?");
        assert_eq!(person_text(Cow::Owned(text.clone())), "What next?");
        let similar = format!("{context}\nWhat next?");
        assert_eq!(person_text(Cow::Borrowed(&similar)), similar);
    }

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_timestamp("2025-12-10T19:37:45.343Z"),
            Some(1_765_395_465_343)
        );
        assert_eq!(
            parse_timestamp("2025-12-10T20:37:45.3439999+01:00"),
            Some(1_765_395_465_343)
        );
        assert_eq!(
            parse_timestamp("2025-12-10t19:37:45.3z"),
            Some(1_765_395_465_300)
        );
        assert_eq!(
            parse_timestamp("2024-02-29T00:00:00Z"),
            Some(1_709_164_800_000)
        );
        for bad in [
            "",
            "2025-12-10",
            "2025-13-10T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2025-12-10T24:00:00Z",
            "2025-12-10T19:37:45",
            "2025-12-10T19:37:45.Z",
            "2025-12-10T19:37:45Zjunk",
            "1969-12-31T23:59:59Z",
            "２０２５-12-10T19:37:45Z",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }
}
