//! The module graph has no cycle, and the layers depend only downwards:
//! `model` at the bottom; `reference` on `model` alone; `formats` on
//! `model` and `reference` (the contract's mentions and rendered context);
//! `store` on `model` and `formats`; the faces (`cli`, `server`, `mcp`) on the
//! core but never on each other. Read from the sources, so a new `use`
//! that breaks the layering fails here.
//!
//! A binary of its own: it reads the sources, not the program, and is the
//! check `docs/architecture.md` names for the layering.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`server::handlers::hover`) → the modules it names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .filter_map(|path| {
            let rel = path
                .strip_prefix(&src)
                .ok()?
                .to_str()?
                .strip_suffix(".rs")?;
            let name = rel.strip_suffix("/mod").unwrap_or(rel).replace('/', "::");
            if name == "lib" || name == "main" {
                return None;
            }
            Some((name, std::fs::read_to_string(path).ok()?))
        })
        .collect();
    let known: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut graph = BTreeMap::new();
    for (name, text) in &modules {
        let mut targets = BTreeSet::new();
        for path in paths(code_of(text)) {
            let Some(target) = resolve(&path, name, &known) else {
                continue;
            };
            if target != *name {
                targets.insert(target);
            }
        }
        graph.insert(name.clone(), targets);
    }
    graph
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file without its unit tests and without its `mod` declarations and
/// re-exports of its own children (structure, not dependence).
fn code_of(text: &str) -> String {
    let code = without_test_items(text);
    code.lines()
        .filter(|l| {
            let l = l.trim_start();
            !(l.starts_with("pub mod ")
                || l.starts_with("mod ")
                || l.starts_with("pub(crate) mod "))
        })
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

const TEST_ONLY: &str = "#[cfg(test)]";

/// `text` without each item marked `#[cfg(test)]` (the attribute, any
/// attributes after it and the item: up to its `;` or its closing `}`).
/// Only that item goes: a `#[cfg(test)] mod tests;` above the `use` lines
/// must not hide the file's real dependencies. Comments, strings and
/// character literals are skipped, so a brace or the attribute inside one
/// counts for nothing.
fn without_test_items(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let attribute: Vec<char> = TEST_ONLY.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i..].starts_with(&attribute) {
            i = end_of_item(&chars, i + attribute.len());
            continue;
        }
        let next = skip_literal(&chars, i).unwrap_or(i + 1);
        out.extend(&chars[i..next]);
        i = next;
    }
    out
}

/// Where the item that starts at `from` (after its `#[cfg(test)]`) ends:
/// just past the `;` or the `}` that closes it at nesting depth 0.
fn end_of_item(chars: &[char], from: usize) -> usize {
    let mut depth = 0usize;
    let mut i = from;
    while i < chars.len() {
        if let Some(next) = skip_literal(chars, i) {
            i = next;
            continue;
        }
        match chars[i] {
            '{' | '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            ';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// When a comment, string or character literal starts at `i`: the index
/// just past it.
fn skip_literal(chars: &[char], i: usize) -> Option<usize> {
    let at = |k: usize| chars.get(k).copied();
    let from = |k: usize, what: &str| {
        chars[k.min(chars.len())..].starts_with(&what.chars().collect::<Vec<_>>())
    };
    match (at(i)?, at(i + 1)) {
        ('/', Some('/')) => Some(
            (i..chars.len())
                .find(|&k| chars[k] == '\n')
                .unwrap_or(chars.len()),
        ),
        ('/', Some('*')) => {
            // Block comments nest.
            let (mut depth, mut k) = (0usize, i);
            while k < chars.len() {
                if from(k, "/*") {
                    depth += 1;
                    k += 2;
                } else if from(k, "*/") {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        return Some(k);
                    }
                } else {
                    k += 1;
                }
            }
            Some(chars.len())
        }
        ('r', Some('#' | '"')) if i == 0 || !is_ident(chars[i - 1]) => {
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if at(i + 1 + hashes) != Some('"') {
                return None;
            }
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body = i + 2 + hashes;
            Some(
                (body..chars.len())
                    .find(|&k| from(k, &close))
                    .map_or(chars.len(), |k| k + close.chars().count()),
            )
        }
        ('"', _) => {
            let mut k = i + 1;
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            Some((k + 1).min(chars.len()))
        }
        // A character literal ('x', '\n', '\''), not a lifetime ('a).
        ('\'', Some('\\')) => Some(
            (i + 3..chars.len())
                .find(|&k| chars[k] == '\'')
                .map_or(chars.len(), |k| k + 1),
        ),
        ('\'', Some(_)) if at(i + 2) == Some('\'') => Some(i + 3),
        _ => None,
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `crate::…`, `super::…` and `self::…` path, with one level of
/// `{a, b}` groups expanded.
fn paths(code: String) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(start) {
            let at = from + i;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let mut end = at;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || b"_:".contains(&bytes[end]))
            {
                end += 1;
            }
            let head = code[at..end].trim_end_matches(':').to_string();
            if code[end..].starts_with('{') {
                let close = code[end..].find('}').map_or(code.len(), |c| end + c);
                for item in code[end + 1..close].split(',') {
                    let item = item.trim().split("::").next().unwrap_or("").trim();
                    let item = item.split_whitespace().next().unwrap_or("");
                    if !item.is_empty() && item != "self" {
                        out.push(format!("{head}::{item}"));
                    } else {
                        out.push(head.clone());
                    }
                }
            } else {
                out.push(head);
            }
        }
    }
    out
}

/// The longest known module a path names, from module `here`.
/// `super` of `a::b` is `a` whether `b` is a file or a folder module.
fn resolve(path: &str, here: &str, known: &BTreeSet<&str>) -> Option<String> {
    let mut parts: Vec<&str> = path.split("::").collect();
    let mut base: Vec<&str> = if here.is_empty() {
        Vec::new()
    } else {
        here.split("::").collect()
    };
    match parts.first().copied() {
        Some("crate") => {
            base.clear();
            parts.remove(0);
        }
        Some("self") => {
            parts.remove(0);
        }
        _ => {
            while parts.first() == Some(&"super") {
                base.pop();
                parts.remove(0);
            }
        }
    }
    let full: Vec<&str> = base.into_iter().chain(parts).collect();
    (1..=full.len())
        .rev()
        .map(|n| full[..n].join("::"))
        .find(|m| known.contains(m.as_str()))
}

fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|n| n == next).unwrap_or(0);
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(node, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let graph = graph();
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn layers_depend_only_downwards() {
    let allowed: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("model", &[][..]),
        // Opening and creating files: beside the model, knowing nothing.
        ("fsio", &[][..]),
        // The allocator's freed pages given back: used by the layers that
        // free the most (the live index, the search writer).
        ("heap", &[][..]),
        // The agents' formats read mentions and rendered contexts in
        // prompts by the contract's own grammar (agent-logs.md).
        ("formats", &["model", "fsio", "reference"][..]),
        ("reference", &["model"][..]),
        // `reference`: pinned ids (team stores, issue 26).
        ("store", &["model", "fsio", "formats", "reference"][..]),
        (
            "config",
            &["model", "fsio", "formats", "store", "reference"][..],
        ),
        // `files`, `search` and `publish`: file candidates, search hits and
        // published versions are wire shapes too.
        (
            "proto",
            &["model", "reference", "files", "search", "publish"][..],
        ),
        // The file system around the core: spill writer, file mentions.
        ("spill", &["model", "fsio", "reference", "config"][..]),
        ("files", &["model", "fsio", "reference", "config"][..]),
        // Full-text search: its index beside the stores, face-neutral.
        (
            "search",
            &[
                "model",
                "fsio",
                "heap",
                "formats",
                "store",
                "reference",
                "config",
            ][..],
        ),
        // Publishing to a team store: the secret scan, the snapshot bytes,
        // the write protocol; below the faces that publish.
        (
            "publish",
            &["model", "fsio", "formats", "store", "reference", "config"][..],
        ),
        // The live session index: below the faces, over the stores.
        (
            "live",
            &["model", "fsio", "heap", "formats", "store", "reference"][..],
        ),
        (
            "cli",
            &[
                "model",
                "fsio",
                "formats",
                "store",
                "reference",
                "config",
                "proto",
                "spill",
                "files",
                "search",
                "live",
                "publish",
            ][..],
        ),
        (
            "server",
            &[
                "model",
                "fsio",
                "formats",
                "store",
                "reference",
                "config",
                "proto",
                "spill",
                "files",
                "search",
                "live",
                "publish",
            ][..],
        ),
        // The MCP face: the core and the stores, never another face.
        (
            "mcp",
            &[
                "model",
                "fsio",
                "formats",
                "store",
                "reference",
                "config",
                "proto",
                "spill",
                "search",
                "live",
            ][..],
        ),
    ]);
    let mut wrong = Vec::new();
    for (module, targets) in graph() {
        for target in targets {
            let (from, to) = (top(&module), top(&target));
            if from == to {
                continue;
            }
            let ok = allowed.get(from).is_some_and(|a| a.contains(&to));
            if !ok {
                wrong.push(format!("{module} -> {target}"));
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

#[test]
fn the_graph_is_read() {
    // Guards the reader itself: known edges are seen.
    let graph = graph();
    assert!(graph["reference::prepare"].contains("reference::snapshot"));
    assert!(graph["store::catalog"].contains("formats"));
    assert!(graph["server::handlers::hover"].contains("server::request_view"));
    // `#[cfg(test)] mod tests;` stands above this module's `use` lines:
    // only that item is left out, not the rest of the file.
    assert!(
        graph["formats::claude_code"].contains("formats::toolkit::declare"),
        "{:?}",
        graph["formats::claude_code"]
    );
}

#[test]
fn only_the_test_item_is_left_out() {
    let text = r#"
mod a;
#[cfg(test)]
mod tests;
use crate::kept::one;
#[cfg(test)]
#[allow(dead_code)]
fn helper() -> &'static str { let _ = '{'; "}" /* } */ }
use crate::kept::two;
#[cfg(test)]
mod inline {
    use crate::gone::three;
    fn f() { if true { let _ = crate::gone::four; } }
}
// #[cfg(test)] in a comment hides nothing
use crate::kept::five;
"#;
    let code = without_test_items(text);
    let seen: Vec<String> = paths(code);
    assert_eq!(
        seen,
        ["crate::kept::one", "crate::kept::two", "crate::kept::five"],
        "{}",
        without_test_items(text)
    );
}
