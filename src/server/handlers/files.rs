//! File mentions in the editor (server.md "File mentions"): completion
//! items, hover, links. Plain functions over text, offsets and the target
//! cwd; the file system is `crate::files`'s, and callers run these off
//! the async workers.

use std::fmt::Write;
use std::path::Path;
use std::time::UNIX_EPOCH;

use lsp_types::*;
use ropey::Rope;
use serde_json::json;

use super::markdown;
use crate::files::{self, Content, FileCandidate, FileKind, FileList};
use crate::proto::position::{self, Encoding};
use crate::reference::file_mention;
use crate::reference::mention::is_ecma_whitespace;

/// The command that re-opens completion after a folder item.
pub const TRIGGER_SUGGEST: &str = "editor.action.triggerSuggest";

/// The `@` of the file mention being typed and its raw query (the text
/// from the `@` to the cursor): only where the file-mention grammar would
/// recognise a mention. A quoted query may hold white space.
pub fn query_at(rope: &Rope, offset: usize) -> Option<(usize, String)> {
    let offset = offset.min(rope.len_bytes());
    let line_start = rope.line_to_byte(rope.byte_to_line(offset));
    let before: String = rope.byte_slice(line_start..offset).into();
    let mut candidates = before.rmatch_indices('@').map(|(i, _)| i);
    let at = candidates.find(|&at| {
        let opens = match before[..at].chars().next_back() {
            None => true,
            Some(c) => is_ecma_whitespace(c) || matches!(c, '(' | '[' | '{' | '\''),
        };
        opens && open_query(&before[at + 1..])
    })?;
    Some((line_start + at, before[at + 1..].to_string()))
}

/// Whether `query` is a file mention still being typed.
fn open_query(query: &str) -> bool {
    match query.strip_prefix('"') {
        // Unterminated: the closing quote has not been typed yet.
        Some(quoted) => file_mention::unquote(quoted).1.is_none(),
        None => {
            !query.starts_with('[')
                && !query.chars().any(|c| {
                    is_ecma_whitespace(c)
                        || matches!(
                            c,
                            '@' | '[' | ']' | '(' | ')' | '"' | '\'' | '<' | '>' | ',' | ';'
                        )
                })
        }
    }
}

/// Whether a query asks for files only: after `@"`, or holding a `/`, or
/// starting with `.` or `~`.
pub fn files_only(query: &str) -> bool {
    query.starts_with(['"', '.', '~']) || query.contains('/')
}

/// The completion items of file candidates, after `sessions` session
/// items; `range` is from the `@` to the cursor.
pub fn completion_items(list: &FileList, range: Range) -> Vec<CompletionItem> {
    let width = list.items.len().to_string().len();
    list.items
        .iter()
        .enumerate()
        .map(|(rank, c)| item(c, rank, width, range))
        .collect()
}

fn item(c: &FileCandidate, rank: usize, width: usize, range: Range) -> CompletionItem {
    let folder = c.kind == FileKind::Directory;
    let inserted = file_mention::mention_text(&c.path, folder);
    CompletionItem {
        label: c.path.clone(),
        kind: Some(if folder {
            CompletionItemKind::FOLDER
        } else {
            CompletionItemKind::FILE
        }),
        detail: Some(if folder { "folder" } else { "file" }.to_string()),
        // After every session item (digits, or `~` and digits past
        // maxReferences).
        sort_text: Some(format!("~~{rank:0width$}")),
        filter_text: Some(inserted.clone()),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, inserted))),
        // A folder goes on: completion re-opens inside it.
        command: folder.then(|| Command {
            title: "Complete inside the folder".to_string(),
            command: TRIGGER_SUGGEST.to_string(),
            arguments: None,
        }),
        data: Some(json!({ "file": c.path })),
        ..CompletionItem::default()
    }
}

/// Hover on the file mention at `offset`, if it names something that
/// exists: byte range and Markdown.
pub fn hover(
    text: &str,
    offset: usize,
    cwd: Option<&Path>,
) -> Option<(std::ops::Range<usize>, String)> {
    let (m, _) = files::mention_at(text, offset, cwd)?;
    let Some(info) = files::info(&m, cwd) else {
        return Some((
            m.span.clone(),
            format!("No file or folder {}", markdown::code(&m.path)),
        ));
    };
    let mut out = format!(
        "**{}**\n\n",
        markdown::escape(&info.path.display().to_string())
    );
    let _ = write!(out, "- kind: {}\n- size: {} bytes\n", info.kind, info.size);
    if let Some(ms) = info
        .modified
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64)
    {
        let _ = writeln!(out, "- modified: {}", markdown::timestamp(ms));
    }
    match &info.content {
        Content::Hidden(why) => {
            let _ = writeln!(out, "\n_No preview: {why}._");
        }
        Content::Text {
            lines,
            head,
            extension,
        } => {
            let _ = writeln!(out, "- lines: {lines}");
            let fence = "`".repeat(longest_backtick_run(head).max(2) + 1);
            // The info string names the language; a backtick in it would
            // unmake the fence, so only a plain name is kept.
            let language: String = extension
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_'))
                .collect();
            let _ = writeln!(out, "\n{fence}{language}");
            for line in head {
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "{fence}");
        }
        Content::Folder {
            entries,
            more,
            first,
        } => {
            let plus = if *more { "+" } else { "" };
            let _ = writeln!(out, "- entries: {entries}{plus}\n");
            for name in first {
                let _ = writeln!(out, "- {}", markdown::escape(name));
            }
        }
    }
    Some((m.span, out))
}

fn longest_backtick_run(lines: &[String]) -> usize {
    lines
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// Document links of existing file mentions.
pub fn links(rope: &Rope, text: &str, cwd: Option<&Path>, encoding: Encoding) -> Vec<DocumentLink> {
    files::links(text, cwd)
        .into_iter()
        .filter_map(|(span, path)| {
            Some(DocumentLink {
                range: position::range(rope, span, encoding),
                target: Some(Url::from_file_path(&path).ok()?),
                tooltip: Some(format!("Open {}", path.display())),
                data: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> Option<String> {
        query_at(&Rope::from_str(text), text.len()).map(|(_, q)| q)
    }

    #[test]
    fn queries_follow_the_file_mention_grammar() {
        assert_eq!(query("see @src/ca").as_deref(), Some("src/ca"));
        assert_eq!(
            query("@\"docs/design no").as_deref(),
            Some("\"docs/design no")
        );
        assert_eq!(query("('@.e").as_deref(), Some(".e"));
        assert_eq!(query("a@b"), None);
        assert_eq!(query("@src/a b"), None);
        assert_eq!(query("@\"closed\" "), None);
        assert_eq!(query("@[x"), None);
        assert!(files_only("\"x") && files_only("a/") && files_only(".") && files_only("~"));
        assert!(!files_only("src"));
    }
}
