//! File mentions in text (server.md "File mentions", reference.md §7a):
//! `@src/cart.rs`, `@"docs/design notes.md"`. Path-only: `parse` and
//! `prepare` leave them as they are. This module is the grammar alone;
//! whether a path exists is for the caller to ask the file system.

use std::ops::Range;

use super::mention::{self, is_ecma_whitespace};

/// A possible file mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMention {
    /// The whole mention: `@`, quotes and a `:LINE:COL` suffix included.
    pub span: Range<usize>,
    /// The path, unescaped.
    pub path: String,
    /// `@"…"`: always a mention. A bare one is a mention only when its path
    /// exists, or holds a `/` and its first segment exists.
    pub quoted: bool,
}

impl FileMention {
    /// The first segment of a bare path holding a `/` (what must exist for
    /// a bare mention of a missing path to count).
    pub fn first_segment(&self) -> Option<&str> {
        let (first, _) = self.path.split_once('/')?;
        Some(if first.is_empty() { "/" } else { first })
    }
}

/// Characters that end a bare path.
fn ends_bare(c: char) -> bool {
    is_ecma_whitespace(c)
        || matches!(
            c,
            '@' | '[' | ']' | '(' | ')' | '"' | '\'' | '<' | '>' | ',' | ';'
        )
}

/// Whether an `@` at `at` may start a file mention: at the start of a
/// line, or after white space or one of `( [ { '`.
fn starts_mention(text: &str, at: usize) -> bool {
    match text[..at].chars().next_back() {
        None => true,
        Some(c) => is_ecma_whitespace(c) || matches!(c, '(' | '[' | '{' | '\''),
    }
}

/// Every possible file mention of `text`, in order; nothing inside a
/// session mention counts.
pub fn scan(text: &str) -> Vec<FileMention> {
    // Session mentions, in order and disjoint: a binary search finds the
    // one that could hold an offset.
    let sessions: Vec<Range<usize>> = mention::scan(text).into_iter().map(|m| m.span).collect();
    let inside_session = |at: usize| {
        let after = sessions.partition_point(|s| s.start <= at);
        after > 0 && at < sessions[after - 1].end
    };
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find('@') {
        let at = from + found;
        from = at + 1;
        if !starts_mention(text, at) || inside_session(at) {
            continue;
        }
        if let Some(m) = at_mention(text, at) {
            from = m.span.end.max(from);
            out.push(m);
        }
    }
    out
}

/// The file mention starting with the `@` at `at`, if any.
fn at_mention(text: &str, at: usize) -> Option<FileMention> {
    let rest = &text[at + 1..];
    if let Some(quoted) = rest.strip_prefix('"') {
        let (path, closed) = unquote(quoted);
        let end = closed?;
        return (!path.is_empty()).then(|| FileMention {
            span: at..at + 2 + end,
            path,
            quoted: true,
        });
    }
    if rest.starts_with('[') {
        return None;
    }
    let run = rest.find(ends_bare).unwrap_or(rest.len());
    let mut path = rest[..run].trim_end_matches(['.', ':', '!', '?']);
    let with_position = path.len();
    path = strip_position(path);
    if path.is_empty() {
        return None;
    }
    Some(FileMention {
        span: at..at + 1 + with_position,
        path: path.to_string(),
        quoted: false,
    })
}

/// `path` without a trailing `:LINE` or `:LINE:COL`.
fn strip_position(path: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let Some((head, last)) = path.rsplit_once(':') else {
        return path;
    };
    if !digits(last) {
        return path;
    }
    match head.rsplit_once(':') {
        Some((inner, line)) if digits(line) => inner,
        _ => head,
    }
}

/// The path of a quoted form (after its opening `"`): `\"` and `\\`
/// unescaped, any other `\` literal, up to an unescaped `"` on the same
/// line. Returns the path and, when closed, the byte length through the
/// closing quote.
pub fn unquote(quoted: &str) -> (String, Option<usize>) {
    let mut path = String::new();
    let mut chars = quoted.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (path, Some(i + 1)),
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => return (path, None),
            '\\' => match chars.peek() {
                Some(&(_, next @ ('"' | '\\'))) => {
                    path.push(next);
                    chars.next();
                }
                _ => path.push('\\'),
            },
            c => path.push(c),
        }
    }
    (path, None)
}

/// The path a completion query names (reference.md §7a): the raw text
/// after `@`, quoted or not.
pub fn query_path(query: &str) -> String {
    match query.strip_prefix('"') {
        Some(quoted) => unquote(quoted).0,
        None => query.to_string(),
    }
}

/// Splits a path at its last `/`: the folder part (empty, or ending in
/// `/`) and the name prefix.
pub fn split_query(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => path.split_at(i + 1),
        None => ("", path),
    }
}

/// The mention that inserts `path`: bare when every character is one a
/// bare path keeps and it does not end in `. : ! ?`, else quoted. A folder
/// (`open`) leaves a quoted path open, for completion to go on inside it.
pub fn mention_text(path: &str, open: bool) -> String {
    let bare = !path.is_empty()
        && !path.starts_with('[')
        && !path.chars().any(ends_bare)
        && !path.ends_with(['.', ':', '!', '?'])
        && strip_position(path) == path;
    if bare {
        return format!("@{path}");
    }
    let mut out = String::from("@\"");
    for c in path.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    if !open {
        out.push('"');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, bool, &str)> {
        scan(text)
            .into_iter()
            .map(|m| (m.path.clone(), m.quoted, &text[m.span]))
            .collect()
    }

    #[test]
    fn bare_and_quoted_mentions() {
        assert_eq!(
            paths("see @src/cart.rs, and @\"docs/design notes.md\" too"),
            vec![
                ("src/cart.rs".into(), false, "@src/cart.rs"),
                (
                    "docs/design notes.md".into(),
                    true,
                    "@\"docs/design notes.md\""
                ),
            ]
        );
        assert_eq!(
            paths("(@a.rs:12:3.) [@b/c:7] {@d? x"),
            vec![
                ("a.rs".into(), false, "@a.rs:12:3"),
                ("b/c".into(), false, "@b/c:7"),
                ("d".into(), false, "@d"),
            ]
        );
        // Not after a word, not a session mention, not unterminated.
        assert!(paths("mail a@b.c").is_empty());
        assert!(paths("@[x](hydra-session:InEi)").is_empty());
        assert!(paths("@\"open\nline\"").is_empty());
        assert!(paths("@ @. @\"\"").is_empty());
        assert_eq!(
            paths(r#"@"a \"q\" \\ \x""#),
            vec![(r#"a "q" \ \x"#.into(), true, r#"@"a \"q\" \\ \x""#)]
        );
        // Inside a session mention's label: nothing.
        assert!(paths("@[see @src/x.rs](hydra-session:InEi)").is_empty());
        assert_eq!(paths("'@x'"), vec![("x".into(), false, "@x")]);
    }

    #[test]
    fn queries_and_insertions() {
        assert_eq!(query_path("\"docs/des"), "docs/des");
        assert_eq!(query_path("src/ca"), "src/ca");
        assert_eq!(split_query("src/ca"), ("src/", "ca"));
        assert_eq!(split_query("ca"), ("", "ca"));
        assert_eq!(split_query("a/b/"), ("a/b/", ""));
        assert_eq!(mention_text("src/cart.rs", false), "@src/cart.rs");
        assert_eq!(mention_text("src/", true), "@src/");
        assert_eq!(
            mention_text("docs/design notes.md", false),
            "@\"docs/design notes.md\""
        );
        assert_eq!(mention_text("my docs/", true), "@\"my docs/");
        assert_eq!(mention_text("a\"b", false), "@\"a\\\"b\"");
        assert_eq!(mention_text("v1.", false), "@\"v1.\"");
        assert_eq!(mention_text("x:12", false), "@\"x:12\"");
    }
}
