//! Markdown for hover and completion previews: what `prepare` would take
//! from one session.

use std::fmt::Write;

use crate::model::Session;
use crate::reference::budget::Budget;
use crate::reference::prepare::RetainedSource;
use crate::reference::retention::Turn;

/// Turns shown in a hover, newest last.
const HOVER_TURNS: usize = 3;
/// A turn is cut to this many characters.
const TURN_CHARS: usize = 160;

/// The hover summary of one referenced session.
pub fn hover(
    session: &Session,
    source: &RetainedSource,
    same_workspace: bool,
    budget: &Budget,
) -> String {
    let mut out = heading(session, &source.label);
    let stats = &source.retained.stats;
    let _ = writeln!(out, "- id: {}", code(&session.header.id));
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

fn heading(session: &Session, label: &str) -> String {
    let mut out = format!("**{}**", escape(label));
    if let Some(title) = session.title.as_deref().filter(|t| *t != label) {
        let _ = write!(out, " — {}", escape(title));
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
    let flat: String = turn
        .text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
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

/// Inline code that survives backticks in the text.
fn code(text: &str) -> String {
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

/// Backslash-escapes Markdown punctuation so text shows as written.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '(' | ')' | '!'
        ) {
            out.push('\\');
        }
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
}
