//! `status` and `search` for a person: a readable summary where the
//! output is a terminal (or `--format text`), one JSON document otherwise
//! (server.md's shapes, unchanged) — the convention of the tools people
//! use daily. Every value from a log or a path passes the one-line rule:
//! a title's ESC must not reach the terminal.

use std::io::IsTerminal;

use super::args::Format;
use crate::proto::ext;
use crate::reference::one_line::one_line;
use crate::reference::time;
use crate::search::SessionHit;

/// Where a match starts and ends while the text goes through the one-line
/// rule (private-use characters, kept by it; any already in the text are
/// replaced first).
const MATCH_START: char = '\u{E000}';
const MATCH_END: char = '\u{E001}';

/// How a summary marks a match on a terminal that takes colour: bold.
const BOLD: &str = "\x1b[1m";
const PLAIN: &str = "\x1b[0m";

/// Whether to print the summary rather than JSON: `--format text`, or no
/// `--format` and stdout a terminal.
pub fn for_a_person(output: Option<Format>) -> bool {
    match output {
        Some(Format::Text) => true,
        Some(_) => false,
        None => std::io::stdout().is_terminal(),
    }
}

/// Whether matches are highlighted: on a terminal, unless `NO_COLOR` is
/// set (no-color.org) or `TERM` is `dumb`.
pub fn colour() -> bool {
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    std::io::stdout().is_terminal() && !no_colour && !dumb
}

/// A hit: the title, where it is from, the mention, and the snippets
/// (each on one line, its matches highlighted when `colour`).
pub fn hit(hit: &SessionHit, colour: bool) -> String {
    let mut out = format!(
        "{}  ({} · {} · {})\n  {}\n",
        one_line(hit.label()),
        hit.agent,
        one_line(hit.cwd.as_deref().unwrap_or("-")),
        time::date(hit.created_at),
        hit.one_line_mention(),
    );
    for snippet in &hit.snippets {
        out.push_str(&format!(
            "  {} {}: {}\n",
            snippet.turn,
            snippet.role,
            highlighted(&snippet.text, &snippet.ranges, colour)
        ));
    }
    out
}

/// What `search` prints for a person: every hit, or a line saying none.
pub fn hits(hits: &[SessionHit], colour: bool) -> String {
    if hits.is_empty() {
        return "No session matches.\n".to_string();
    }
    hits.iter()
        .map(|h| hit(h, colour))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` as one line, the `[start, end)` char ranges marked.
fn highlighted(text: &str, ranges: &[[usize; 2]], colour: bool) -> String {
    let mut marked = String::with_capacity(text.len() + 8 * ranges.len());
    for (i, c) in text.chars().enumerate() {
        if ranges.iter().any(|r| r[1] == i && r[0] < r[1]) {
            marked.push(MATCH_END);
        }
        if ranges.iter().any(|r| r[0] == i && r[0] < r[1]) {
            marked.push(MATCH_START);
        }
        marked.push(if c == MATCH_START || c == MATCH_END {
            '\u{FFFD}'
        } else {
            c
        });
    }
    let length = text.chars().count();
    if ranges
        .iter()
        .any(|r| r[1] >= length && r[0] < r[1] && r[0] < length)
    {
        marked.push(MATCH_END);
    }
    let (start, end) = if colour { (BOLD, PLAIN) } else { ("", "") };
    one_line(&marked)
        .replace(MATCH_START, start)
        .replace(MATCH_END, end)
}

/// What `status` prints for a person: the sessions and stores, the
/// search index, and the notes.
pub fn status(status: &ext::Status) -> String {
    let mut out = format!(
        "{} in {}{}\n",
        count(status.sessions, "session"),
        count(status.stores.len(), "store"),
        if status.indexing {
            " (still indexing)"
        } else {
            ""
        }
    );
    for store in &status.stores {
        out.push_str(&format!(
            "  {:<12} {}  {}",
            store.format,
            one_line(&store.path),
            count(store.sessions, "session")
        ));
        if store.skipped_lines > 0 {
            out.push_str(&format!(
                ", {} skipped",
                count(store.skipped_lines as usize, "line")
            ));
        }
        out.push('\n');
        for error in &store.errors {
            out.push_str(&format!("    error: {}\n", one_line(error)));
        }
    }
    if let Some(search) = &status.search {
        out.push_str(&search_line(search));
    }
    if !status.notes.is_empty() {
        out.push_str("Notes:\n");
        for note in &status.notes {
            out.push_str(&format!("  {}\n", one_line(&note.message)));
        }
        if status.notes_omitted > 0 {
            out.push_str(&format!("  … and {} more\n", status.notes_omitted));
        }
    }
    out
}

fn search_line(search: &ext::SearchStatus) -> String {
    let mut line = if search.enabled {
        let behind = match search.behind {
            0 => "up to date".to_string(),
            n => format!("{} behind", count(n, "session")),
        };
        format!(
            "Search: on, {} indexed ({}), {behind}",
            count(search.sessions, "session"),
            bytes(search.bytes)
        )
    } else {
        "Search: off".to_string()
    };
    if let Some(path) = &search.path {
        line.push_str(&format!("\n  index: {}", one_line(path)));
    }
    if let Some(note) = &search.note {
        line.push_str(&format!("\n  note: {}", one_line(note)));
    }
    line.push('\n');
    line
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1000 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_are_marked_through_the_one_line_rule() {
        let text = "the tax\nrounding is\u{1b}[2J off";
        let ranges = [[4, 7], [8, 16]];
        assert_eq!(
            highlighted(text, &ranges, true),
            "the \x1b[1mtax\x1b[0m \x1b[1mrounding\x1b[0m is [2J off"
        );
        assert_eq!(
            highlighted(text, &ranges, false),
            "the tax rounding is [2J off"
        );
        // A match to the end, and markers already in the text.
        assert_eq!(
            highlighted("ab\u{E000}cd", &[[3, 5]], true),
            "ab\u{FFFD}\x1b[1mcd\x1b[0m"
        );
    }

    fn store(path: &str, sessions: usize, skipped: u64, errors: &[&str]) -> ext::StoreStatus {
        ext::StoreStatus {
            path: path.into(),
            format: "claude-code".into(),
            sessions,
            skipped_lines: skipped,
            errors: errors.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_status_reads_as_stores_counts_search_and_notes() {
        let status = ext::Status {
            store: "/a".into(),
            sessions: 3,
            indexing: false,
            stores: vec![
                store("/home/ana/.claude/projects", 2, 0, &[]),
                store("/x\u{1b}y", 1, 4, &["cannot read f.jsonl"]),
            ],
            notes: vec![ext::StatusNote {
                kind: ext::NoteKind::MissingStore,
                message: "store /gone does not exist".into(),
            }],
            notes_omitted: 2,
            search: Some(ext::SearchStatus {
                enabled: true,
                path: Some("/c/index".into()),
                bytes: 12_345,
                sessions: 2,
                behind: 1,
                note: None,
            }),
        };
        assert_eq!(
            self::status(&status),
            "3 sessions in 2 stores\n\
             \x20 claude-code  /home/ana/.claude/projects  2 sessions\n\
             \x20 claude-code  /x y  1 session, 4 lines skipped\n\
             \x20   error: cannot read f.jsonl\n\
             Search: on, 2 sessions indexed (12.3 KB), 1 session behind\n\
             \x20 index: /c/index\n\
             Notes:\n\
             \x20 store /gone does not exist\n\
             \x20 … and 2 more\n"
        );
    }
}
