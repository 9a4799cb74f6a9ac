//! Markdown for hover and completion previews: what `prepare` would take
//! from one session.

use std::fmt::Write;

use crate::model::{PublishedVersion, Session};
use crate::reference::budget::Budget;
use crate::reference::one_line::one_line;
use crate::reference::prepare::RetainedSource;
use crate::reference::retention::Turn;

/// Turns shown in a hover, newest last.
const HOVER_TURNS: usize = 3;
/// A turn is cut to this many characters.
const TURN_CHARS: usize = 160;

/// The hover summary of one referenced session.
/// `published`: a team store's session, the lines [`version`] gives it.
pub fn hover(
    session: &Session,
    source: &RetainedSource,
    same_workspace: bool,
    budget: &Budget,
    published: &str,
) -> String {
    let mut out = heading(session, &source.label);
    let stats = &source.retained.stats;
    let _ = writeln!(out, "- id: {}", code(&session.header.id));
    out.push_str(published);
    let _ = writeln!(out, "- cwd: {}", cwd(session, same_workspace));
    let _ = writeln!(out, "- created: {}", timestamp(session.header.created_at));
    match source.captured_through_seq {
        Some(seq) => {
            let _ = writeln!(out, "- capturedThroughSeq: {seq}");
        }
        None => out.push_str("- capturedThroughSeq: none (no events)\n"),
    }
    let _ = writeln!(out, "- compacted: {}", yes_no(stats.compacted));
    let _ = writeln!(
        out,
        "- messages: {} original, {} retained, {} omitted",
        stats.original_messages, stats.retained_messages, stats.omitted_messages
    );
    let _ = writeln!(out, "- omitted bytes: {}", stats.omitted_bytes);
    let _ = writeln!(out, "- truncated: {}", yes_no(stats.truncated()));
    let _ = writeln!(out, "- budget: {}", escape(&budget.describe()));
    match source.skipped_lines {
        0 => {}
        1 => out.push_str("- 1 line skipped (not understood)\n"),
        n => {
            let _ = writeln!(out, "- {n} lines skipped (not understood)");
        }
    }
    let turns = &source.retained.conversation;
    if !turns.is_empty() {
        let shown = turns.len().min(HOVER_TURNS);
        let _ = writeln!(out, "\n**Last {shown} of {} turns**\n", turns.len());
        for turn in turns.iter().skip(turns.len() - shown) {
            let _ = writeln!(out, "- {}", turn_line(turn));
        }
    }
    out
}

/// Which published version a team store's session is (issue 26), as
/// hover lines: a pinned mention's version, its place in the session's
/// manifest, when it was published, and whether a newer one exists; a
/// live id's latest version.
pub fn version(published: &PublishedVersion, pinned: bool) -> String {
    let sha = |hex: &str| code(&format!("sha256:{}", hex.get(..12).unwrap_or(hex)));
    let place = match (published.position, &published.published_at) {
        (Some(n), Some(at)) => format!(
            " ({n} of {} in the manifest, published {})",
            published.versions,
            escape(at)
        ),
        (Some(n), None) => format!(" ({n} of {} in the manifest)", published.versions),
        (None, _) if published.versions == 0 => " (the session's manifest is not listed)".into(),
        (None, _) => " (not in the session's manifest)".into(),
    };
    let mut out = String::new();
    let what = if pinned {
        "pinned version"
    } else {
        "latest version"
    };
    let _ = writeln!(out, "- {what}: {}{place}", sha(&published.sha256));
    if pinned {
        match &published.newer {
            Some(newer) => {
                let _ = writeln!(
                    out,
                    "- a newer version exists: {} (published {})",
                    sha(&newer.sha256),
                    escape(&newer.published_at)
                );
            }
            None if published.position.is_some() => out.push_str("- no newer version\n"),
            None => {}
        }
    }
    out
}

/// The completion preview: counts, the first and last turns, truncation.
pub fn preview(session: &Session, source: &RetainedSource, same_workspace: bool) -> String {
    let mut out = heading(session, &source.label);
    let stats = &source.retained.stats;
    let _ = writeln!(
        out,
        "{} · {}\n",
        cwd(session, same_workspace),
        timestamp(session.header.created_at)
    );
    let _ = write!(
        out,
        "{} messages; {} kept, {} omitted",
        stats.original_messages, stats.retained_messages, stats.omitted_messages
    );
    if stats.truncated() {
        let _ = writeln!(
            out,
            " — **will be truncated** ({} bytes omitted)",
            stats.omitted_bytes
        );
    } else {
        out.push_str(" — fits the budget\n");
    }
    let turns = &source.retained.conversation;
    if let Some(first) = turns.first() {
        let _ = writeln!(out, "\n- first: {}", turn_line(first));
    }
    if let Some(last) = turns.last().filter(|_| turns.len() > 1) {
        let _ = writeln!(out, "- last: {}", turn_line(last));
    }
    out
}

/// `**label** — title · agent`: which session, and which agent ran it.
fn heading(session: &Session, label: &str) -> String {
    let mut out = format!("**{}**", escape(label));
    if let Some(title) = session.title.as_deref().filter(|t| *t != label) {
        let _ = write!(out, " — {}", escape(title));
    }
    if let Some(agent) = crate::formats::display_name(session.locator.format) {
        let _ = write!(out, " · {agent}");
    }
    out.push_str("\n\n");
    out
}

fn cwd(session: &Session, same_workspace: bool) -> String {
    match session.header.cwd.as_deref() {
        None => "no cwd".to_string(),
        Some(cwd) if same_workspace => format!("{} (same workspace)", code(cwd)),
        Some(cwd) => format!("{} (other workspace)", code(cwd)),
    }
}

fn turn_line(turn: &Turn) -> String {
    let flat = one_line(&turn.text);
    let mut cut: String = flat.chars().take(TURN_CHARS).collect();
    if flat.chars().nth(TURN_CHARS).is_some() {
        cut.push('…');
    }
    // A code span, fenced longer than any run of backticks in the text:
    // every client shows it as written, with no visible backslashes.
    if cut.trim().is_empty() {
        return format!("**{}:**", turn.role.as_str());
    }
    format!("**{}:** {}", turn.role.as_str(), code(&cut))
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Inline code that shows `text` as written, whatever it holds: on one
/// line (a line break inside a code span lets block structure in, and a
/// blank line ends the span and its paragraph, so what follows would be
/// live Markdown), fenced longer than any run of backticks in it.
pub fn code(text: &str) -> String {
    let text = one_line(text);
    let text = text.as_str();
    let mut fence = "`".to_string();
    while text.contains(fence.as_str()) {
        fence.push('`');
    }
    if fence.len() > 1 || text.starts_with('`') || text.ends_with('`') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// Text that shows as written, on one line, with no Markdown in it. ASCII
/// punctuation is backslash-escaped (CommonMark shows an escaped
/// punctuation character as itself), so `[`, `!`, `<`, `&` and backticks
/// start no link, image, HTML, entity or code span, and `@`, the `:` of
/// `://` and the `.` of `www.` no autolink of the GFM renderers editors
/// use. Only the
/// characters that mean something solely at the start of a line (`-`,
/// `+`, `.`, …) are left bare after it: the text is on one line, so they
/// stay text, and hovers read without needless backslashes.
pub fn escape(text: &str) -> String {
    let text = one_line(text);
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    // Whether every character so far is a digit (`1.` starts a list).
    let mut digits_only = true;
    for (i, c) in text.char_indices() {
        let inert_inside = matches!(
            c,
            '-' | '+'
                | '='
                | '.'
                | ','
                | '\''
                | '"'
                | '/'
                | ';'
                | '?'
                | '%'
                | '$'
                | '^'
                | '{'
                | '}'
                | ':'
        );
        // `www.` and `://` start an autolink; `1.` at the start, an
        // ordered list.
        let before = &text.as_bytes()[..i];
        let www = before.len() >= 3 && before[before.len() - 3..].eq_ignore_ascii_case(b"www");
        let starts_something =
            (c == '.' && (www || digits_only)) || (c == ':' && text[i + 1..].starts_with("//"));
        if c.is_ascii_punctuation() && (i == 0 || !inert_inside || starts_something) {
            out.push('\\');
        }
        digits_only &= c.is_ascii_digit();
        out.push(c);
    }
    out
}

pub use crate::reference::time::{date, timestamp};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "`` a`b ``");
    }

    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

    /// Values a log may hold that try to become Markdown (issue 18 item 6).
    const HOSTILE: &[&str] = &[
        "/home/x\n\n[click me](https://evil.example)\n\n![t](https://evil.example/track.png)",
        "a\r\n\r\n<img src=x onerror=alert(1)>\r\n",
        "``` \n# heading\n- item\n> quote",
        "`a` ``b`` \\` [x][y] <https://evil.example> &lt; &#91;",
        "line\u{2028}\u{2028}[l](u)\u{85}![i](u)",
        "*em* _em_ ~~del~~ | a | b |\n|---|---|",
        "[^note]\n\n[^note]: https://evil.example",
        "x\\\n\n[y](z)",
        "trailing backslash \\",
        "`",
        "-1. not a list",
        "+ not a list",
        "1. not a list",
        "=== not a heading",
        "",
    ];

    /// The events of `markdown` as a CommonMark renderer (with the GFM
    /// extensions) reads it, panicking on any link, image or HTML.
    fn inert_text(markdown: &str) -> (String, Vec<String>) {
        let mut text = String::new();
        let mut codes = Vec::new();
        // Smart punctuation is no renderer's default, and rewrites text: left out.
        let options = Options::all().difference(Options::ENABLE_SMART_PUNCTUATION);
        for event in Parser::new_ext(markdown, options) {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::Code(c) => codes.push(c.to_string()),
                Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph) => {}
                Event::SoftBreak => text.push('\n'),
                other => panic!("{markdown:?} makes {other:?}"),
            }
        }
        (text, codes)
    }

    #[test]
    fn escaped_text_renders_as_one_line_of_plain_text() {
        for value in HOSTILE {
            let (text, codes) = inert_text(&escape(value));
            assert_eq!(text, one_line(value), "{value:?}");
            assert!(codes.is_empty(), "{value:?}");
        }
    }

    #[test]
    fn only_what_could_start_markdown_is_escaped() {
        assert_eq!(escape("test-writer 7.25% a/b"), "test-writer 7.25% a/b");
        assert_eq!(escape("-x"), "\\-x");
        assert_eq!(escape("see https://x.example"), "see https\\://x.example");
        assert_eq!(escape("WWW.x.example"), "WWW\\.x.example");
        assert_eq!(escape("a@b.example"), "a\\@b.example");
    }

    #[test]
    fn a_code_span_holds_the_whole_value_on_one_line() {
        for value in HOSTILE.iter().filter(|v| !one_line(v).is_empty()) {
            let span = code(value);
            assert!(!span.contains(['\n', '\r']), "{span:?}");
            let (text, codes) = inert_text(&format!("cwd: {span} (other workspace)"));
            assert_eq!(text, "cwd:  (other workspace)", "{value:?}");
            assert_eq!(codes, [one_line(value)], "{value:?}");
        }
    }
}
