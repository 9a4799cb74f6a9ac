//! `workspace.yaml` beside a Copilot CLI session's `events.jsonl`: its
//! `cwd`, `name` and `user_named`. Only what the contract reads of YAML:
//! top-level `key: value` lines whose value is a plain, single- or
//! double-quoted scalar on that line. The project has no YAML crate, and
//! this file's few flat keys need none; anything else reads as absent.

use std::path::Path;

use crate::fsio;

/// The file beside `events.jsonl`.
pub const WORKSPACE: &str = "workspace.yaml";

/// The longest `workspace.yaml` read: a few keys, not a document.
const WORKSPACE_MAX: u64 = 64 * 1024;

/// What a session takes from its `workspace.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Workspace {
    pub cwd: Option<String>,
    pub name: Option<String>,
    /// Whether the person named the session (`/rename`).
    pub user_named: bool,
}

impl Workspace {
    /// The `workspace.yaml` in `dir`, when there is one.
    pub fn in_dir(dir: &Path) -> Option<Workspace> {
        // Never a FIFO (it would hang the scan) nor a link out of the store.
        let bytes = fsio::read_side_file(&dir.join(WORKSPACE), WORKSPACE_MAX).ok()?;
        Some(Workspace::parse(&String::from_utf8_lossy(&bytes)))
    }

    pub fn parse(text: &str) -> Workspace {
        let mut out = Workspace::default();
        for (key, value) in text.lines().filter_map(top_level_scalar) {
            match key {
                "cwd" => out.cwd = Some(value).filter(|v| !v.is_empty()),
                "name" => out.name = Some(value),
                "user_named" => out.user_named = value == "true",
                _ => {}
            }
        }
        out
    }
}

/// `(key, value)` of a top-level `key: scalar` line.
fn top_level_scalar(line: &str) -> Option<(&str, String)> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    let (key, rest) = line.split_once(':')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((key.trim(), scalar(rest.trim())?))
}

/// A scalar written on one line: quoted, or plain up to a ` #` comment.
/// Block scalars, flow collections, anchors and tags are none.
fn scalar(text: &str) -> Option<String> {
    if let Some(inner) = text.strip_prefix('"') {
        return double_quoted(inner);
    }
    if let Some(inner) = text.strip_prefix('\'') {
        let end = single_quote_end(inner)?;
        return Some(inner[..end].replace("''", "'"));
    }
    if text.starts_with(['|', '>', '{', '[', '&', '*', '!', '%', '@', '`']) {
        return None;
    }
    let plain = match text.find(" #") {
        Some(at) => &text[..at],
        None => text,
    };
    Some(plain.trim_end().to_string())
}

/// Where a single-quoted scalar ends (`''` is a quote inside it).
fn single_quote_end(inner: &str) -> Option<usize> {
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// A double-quoted scalar's value, with YAML's common escapes.
fn double_quoted(inner: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_scalars_are_read_and_the_rest_is_not() {
        let w = Workspace::parse(
            "id: s1\ncwd: /home/ana/shop # the repo\nuser_named: true\nname: \"Fix \\\"tax\\\" \\u00e9\"\nnested:\n  cwd: /elsewhere\n",
        );
        assert_eq!(
            w,
            Workspace {
                cwd: Some("/home/ana/shop".into()),
                name: Some("Fix \"tax\" é".into()),
                user_named: true,
            }
        );
        let w = Workspace::parse("name: 'it''s done'\r\ncwd: |\n  /x\n");
        assert_eq!(w.name.as_deref(), Some("it's done"));
        assert_eq!(w.cwd, None);
        assert_eq!(Workspace::parse("name: \"unterminated\n").name, None);
        assert_eq!(Workspace::parse("name:\n").name.as_deref(), Some(""));
        assert!(!Workspace::parse("user_named: yes\n").user_named);
    }
}
