//! Which databases a store reads (agent-logs-db-3.md "Files read"): every
//! file below the root whose name is one of its formats' and that starts
//! as SQLite files do, links never followed; and, for Crush, the
//! databases its root `projects.json` names, in its order.

use std::io;
use std::path::{Path, PathBuf};

use super::format::{Candidate, DbContext, DbFormat};
use super::open::is_sqlite;
use crate::fsio::{self, Links};

/// How deep below the root a database is looked for (Crush keeps it in
/// `<project>/.crush/`, Zed in `threads/`).
const MAX_DEPTH: usize = 12;

/// How many folder entries one listing looks at, at most: a store given
/// as a large folder is not walked for ever.
const MAX_ENTRIES: usize = 200_000;

/// Crush's index of the projects it ran in, in the crush store's root.
pub const CRUSH_PROJECTS: &str = "projects.json";

/// A file that has a candidate's name but is not one (reported).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub rel: String,
    pub why: String,
}

/// What a root holds.
#[derive(Debug, Default)]
pub struct Found {
    pub candidates: Vec<Candidate>,
    pub skipped: Vec<Skipped>,
}

/// The databases below `root` of any of `formats` (the first whose name
/// rule takes a file decides it), in the order they are read.
pub fn find(root: &Path, formats: &[&'static dyn DbFormat]) -> io::Result<Found> {
    let mut files = Vec::new();
    std::fs::read_dir(root)?;
    let mut budget = MAX_ENTRIES;
    walk(root, "", 0, formats, &mut files, &mut budget);
    files.sort();
    let mut found = Found::default();
    let crush = formats.iter().copied().find(|f| f.name() == "crush");
    if let Some(crush) = crush {
        crush_index(root, crush, &mut files, &mut found);
    }
    for rel in files {
        let path = root.join(&rel);
        let Some(format) = formats
            .iter()
            .copied()
            .find(|f| f.is_candidate_name(base_name(&rel)))
        else {
            continue;
        };
        push(&mut found, path, rel, format, DbContext::default());
    }
    Ok(found)
}

/// The last component of a `/`-separated name.
fn base_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// Adds the database at `path` unless it is not SQLite (reported) or the
/// same file was reached before.
fn push(
    found: &mut Found,
    path: PathBuf,
    name: String,
    format: &'static dyn DbFormat,
    mut context: DbContext,
) {
    if !is_sqlite(&path) {
        let why = match path.symlink_metadata() {
            Ok(_) => "not a SQLite database".to_string(),
            Err(e) => e.to_string(),
        };
        found.skipped.push(Skipped { rel: name, why });
        return;
    }
    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    if found
        .candidates
        .iter()
        .any(|c| std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone()) == real)
    {
        return;
    }
    context.modified_ms = super::modified_ms(&path);
    found.candidates.push(Candidate {
        path,
        name,
        format,
        context,
    });
}

/// Lists `dir` (`rel` below the root), collecting the names of candidate
/// files; links are not followed.
fn walk(
    dir: &Path,
    rel: &str,
    depth: usize,
    formats: &[&'static dyn DbFormat],
    out: &mut Vec<String>,
    budget: &mut usize,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let child = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if kind.is_dir() {
            if depth + 1 < MAX_DEPTH {
                walk(&entry.path(), &child, depth + 1, formats, out, budget);
            }
        } else if kind.is_file() && formats.iter().any(|f| f.is_candidate_name(&name)) {
            out.push(child);
        }
    }
}

/// Crush's order: `<root>/crush.db` first, then the databases of
/// `<root>/projects.json` in its order (with their project as cwd), then
/// the other files (left in `files`).
fn crush_index(
    root: &Path,
    crush: &'static dyn DbFormat,
    files: &mut Vec<String>,
    found: &mut Found,
) {
    if let Some(at) = files.iter().position(|f| f == "crush.db") {
        let rel = files.remove(at);
        push(found, root.join(&rel), rel, crush, DbContext::default());
    }
    let Some(projects) = read_projects(root) else {
        return;
    };
    for (data_dir, project) in projects {
        let dir = if Path::new(&data_dir).is_absolute() {
            PathBuf::from(&data_dir)
        } else {
            root.join(&data_dir)
        };
        let path = dir.join("crush.db");
        let name = match path.strip_prefix(root) {
            Ok(inside) => inside.to_string_lossy().replace('\\', "/"),
            Err(_) => path.to_string_lossy().into_owned(),
        };
        files.retain(|f| *f != name);
        let context = DbContext {
            project: project.filter(|p| Path::new(p).is_absolute()),
            ..DbContext::default()
        };
        push(found, path, name, crush, context);
    }
}

/// The `(data_dir, path)` of each entry of a root `projects.json` whose
/// `projects` is an array (Goose's is an object: not Crush's, not read).
fn read_projects(root: &Path) -> Option<Vec<(String, Option<String>)>> {
    let file = fsio::open_regular(&root.join(CRUSH_PROJECTS), Links::NoFollow).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, 16 << 20), &mut text).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let projects = value.get("projects")?.as_array()?;
    Some(
        projects
            .iter()
            .filter_map(|p| {
                let data_dir = p.get("data_dir")?.as_str()?.to_string();
                let path = p.get("path").and_then(|v| v.as_str()).map(str::to_string);
                Some((data_dir, path))
            })
            .collect(),
    )
}
