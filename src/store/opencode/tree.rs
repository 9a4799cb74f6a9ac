//! OpenCode's older JSON tree (before v1.2; agent-logs-more.md
//! "OpenCode"): `storage/session/<projectID>/<sessionID>.json`,
//! `storage/message/<sessionID>/<messageID>.json`,
//! `storage/part/<messageID>/<partID>.json`, and
//! `storage/project/<projectID>.json` for the worktree. Read only when
//! the folder has no database (OpenCode's migration leaves the tree in
//! place). Ids are the files' names, as OpenCode's migration takes them:
//! every path is built from names a listing gave, never from a file's
//! contents.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::db::{MessageKey, SessionRow, SessionRows};
use super::sources::modified_ms;
use crate::fsio::{self, Links};

/// The most bytes of one file read (a part can hold a large tool output;
/// a larger file is read as far as this and then fails to parse).
const FILE_MAX: u64 = 64 << 20;

/// One session file of the tree.
#[derive(Debug, Clone)]
pub struct TreeSession {
    /// `storage/session/<project>/<file>` (the locator's name).
    pub rel: String,
    pub row: SessionRow,
    pub messages: MessageKey,
    pub modified_ms: u64,
}

/// A file of the tree that is no session: its name and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotASession {
    pub rel: String,
    pub why: String,
}

fn storage(root: &Path) -> PathBuf {
    root.join("storage")
}

/// Whether `root` holds a session tree.
pub fn exists(root: &Path) -> bool {
    storage(root).join("session").is_dir()
}

/// A file's bytes, without following a last link or blocking, at most
/// [`FILE_MAX`].
fn read_file(path: &Path) -> io::Result<Vec<u8>> {
    let file = fsio::open_regular(path, Links::NoFollow)?;
    let mut bytes = Vec::new();
    file.take(FILE_MAX).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The `.json` files directly in `dir` as `(stem, path)`, by name; none
/// when `dir` does not exist.
fn json_files(dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(stem) = name.strip_suffix(".json").filter(|s| !s.is_empty()) else {
            continue;
        };
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            files.push((stem.to_string(), entry.path()));
        }
    }
    files.sort();
    Ok(files)
}

/// A session file's contents as a row, its id the file's stem; `None`
/// when it is not a JSON object (or while OpenCode rewrites it).
pub fn parse_session(stem: &str, bytes: &[u8]) -> Option<SessionRow> {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(bytes) else {
        return None;
    };
    let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_string);
    let time = |key: &str| map.get("time")?.get(key)?.as_i64();
    Some(SessionRow {
        id: stem.to_string(),
        parent_id: text("parentID"),
        directory: text("directory"),
        worktree: None,
        title: text("title"),
        agent: None,
        revert: map
            .get("revert")
            .filter(|r| r.is_object())
            .map(Value::to_string),
        time_created: time("created"),
        time_updated: time("updated"),
    })
}

/// The `worktree` of `storage/project/<project>.json`.
fn worktree(root: &Path, project: &str) -> Option<String> {
    let path = storage(root)
        .join("project")
        .join(format!("{project}.json"));
    let value: Value = serde_json::from_slice(&read_file(&path).ok()?).ok()?;
    value.get("worktree")?.as_str().map(str::to_string)
}

/// The highest message id and the count of `stem`'s messages.
fn message_key(root: &Path, stem: &str) -> io::Result<MessageKey> {
    let files = json_files(&storage(root).join("message").join(stem))?;
    Ok(MessageKey {
        max_id: files.last().map(|(id, _)| id.clone()),
        count: i64::try_from(files.len()).unwrap_or(i64::MAX),
    })
}

/// Every session file of the tree, by project then name, and the files
/// that are no sessions. Fails when `storage/session` cannot be listed.
pub fn list(root: &Path) -> io::Result<(Vec<TreeSession>, Vec<NotASession>)> {
    let sessions_dir = storage(root).join("session");
    let mut projects: Vec<(String, PathBuf)> = std::fs::read_dir(&sessions_dir)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect();
    projects.sort();
    let mut sessions = Vec::new();
    let mut skipped = Vec::new();
    for (project, dir) in projects {
        let worktree = worktree(root, &project);
        for (stem, path) in json_files(&dir)? {
            let rel = format!("storage/session/{project}/{stem}.json");
            let row = read_file(&path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    parse_session(&stem, &bytes)
                        .ok_or_else(|| "not a JSON object (an OpenCode session file)".to_string())
                });
            match row {
                Ok(mut row) => {
                    row.worktree = worktree.clone();
                    sessions.push(TreeSession {
                        messages: message_key(root, &stem)?,
                        modified_ms: modified_ms(&path),
                        rel,
                        row,
                    });
                }
                Err(why) => skipped.push(NotASession { rel, why }),
            }
        }
    }
    Ok((sessions, skipped))
}

/// `(project, stem)` of a locator name [`list`] gave; `None` for any
/// other name.
pub fn parse_rel(rel: &str) -> Option<(&str, &str)> {
    let rest = rel.strip_prefix("storage/session/")?;
    let (project, file) = rest.split_once('/')?;
    let stem = file.strip_suffix(".json")?;
    let plain = |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains('/');
    (plain(project) && plain(stem)).then_some((project, stem))
}

/// The session file `rel` names, read again: its row with the worktree.
pub fn session(root: &Path, rel: &str) -> io::Result<Option<(SessionRow, u64)>> {
    let Some((project, stem)) = parse_rel(rel) else {
        return Ok(None);
    };
    let path = root.join(rel);
    let bytes = match read_file(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(parse_session(stem, &bytes).map(|mut row| {
        row.worktree = worktree(root, project);
        (row, modified_ms(&path))
    }))
}

/// The messages of session `stem` by id, and their parts by message
/// then id, each file's contents as its `data`.
pub fn rows(root: &Path, stem: &str) -> io::Result<SessionRows> {
    let mut rows = SessionRows::default();
    for (id, path) in json_files(&storage(root).join("message").join(stem))? {
        let data = String::from_utf8_lossy(&read_file(&path)?).into_owned();
        for (part, part_path) in json_files(&storage(root).join("part").join(&id))? {
            let part_data = String::from_utf8_lossy(&read_file(&part_path)?).into_owned();
            rows.parts.push((id.clone(), part, part_data));
        }
        rows.messages.push((id, data));
    }
    Ok(rows)
}

/// What changes when OpenCode writes to session `stem`: the name, size
/// and modification time of its session file and of every message and
/// part file.
pub fn version_key(root: &Path, rel: &str) -> Option<Vec<u8>> {
    let (_, stem) = parse_rel(rel)?;
    let mut key = Vec::new();
    let mut add = |name: &str, path: &Path| {
        let meta = std::fs::symlink_metadata(path).ok();
        key.extend_from_slice(name.as_bytes());
        key.push(0);
        key.extend_from_slice(&meta.as_ref().map_or(0, |m| m.len()).to_le_bytes());
        key.extend_from_slice(&modified_ms(path).to_le_bytes());
    };
    add(rel, &root.join(rel));
    for (id, path) in json_files(&storage(root).join("message").join(stem)).ok()? {
        add(&id, &path);
        for (part, part_path) in json_files(&storage(root).join("part").join(&id)).ok()? {
            add(&part, &part_path);
        }
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_a_listing_gives_are_read() {
        assert_eq!(
            parse_rel("storage/session/p/ses_1.json"),
            Some(("p", "ses_1"))
        );
        for bad in [
            "storage/session/../ses_1.json",
            "storage/session/p/../x.json",
            "storage/session/p/ses_1",
            "storage/message/p/ses_1.json",
            "storage/session/p/.json",
        ] {
            assert_eq!(parse_rel(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_session_file_is_a_row_named_by_its_file() {
        let row = parse_session(
            "ses_1",
            br#"{"id":"other","parentID":"ses_0","directory":"/w","title":"T","time":{"created":5,"updated":6},"revert":{"messageID":"m"}}"#,
        )
        .unwrap();
        assert_eq!(row.id, "ses_1");
        assert_eq!(row.parent_id.as_deref(), Some("ses_0"));
        assert_eq!((row.time_created, row.time_updated), (Some(5), Some(6)));
        assert_eq!(row.revert.as_deref(), Some(r#"{"messageID":"m"}"#));
        assert!(parse_session("s", b"[1]").is_none());
        assert!(parse_session("s", b"{\"id\":").is_none());
    }
}
