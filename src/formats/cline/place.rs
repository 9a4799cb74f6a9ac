//! Where a Cline-family task is: `<storage>/tasks/<taskId>/ui_messages.json`
//! (agent-logs-files-3.md "Stores and formats"), and the files beside it
//! that hold its facts.

use std::path::{Path, PathBuf};

/// The task's log, one per task directory.
pub const UI_MESSAGES: &str = "ui_messages.json";
/// The folder of the task directories.
pub const TASKS: &str = "tasks";
/// Roo Code's and Kilo Code's copy of the task's `HistoryItem`, beside the log.
pub const HISTORY_ITEM: &str = "history_item.json";
/// Roo Code's index of every task, in `tasks/`.
pub const TASKS_INDEX: &str = "_index.json";
/// Cline's index of every task, `state/taskHistory.json` beside `tasks/`.
pub const STATE: &str = "state";
pub const TASK_HISTORY: &str = "taskHistory.json";

/// Whether `path` (`/`-separated, relative or absolute) names a task's log:
/// `ui_messages.json` directly in a directory directly in `tasks`.
pub fn is_task_log(path: &[u8]) -> bool {
    let mut parts = path.rsplit(|&b| b == b'/');
    parts.next() == Some(UI_MESSAGES.as_bytes())
        && parts.next().is_some_and(|id| !id.is_empty())
        && parts.next() == Some(TASKS.as_bytes())
}

/// The store folder (`…/tasks/<id>/`) whose logs a change to the file at
/// `rel` may concern, when it is one of the index files (see
/// [`crate::formats::LogFormat::side_scope`]).
pub fn scope_of(rel: &[u8]) -> Option<Vec<u8>> {
    let (dir, name) = match memchr::memrchr(b'/', rel) {
        Some(at) => (&rel[..at + 1], &rel[at + 1..]),
        None => (&b""[..], rel),
    };
    let parent = |dir: &[u8]| -> Option<(Vec<u8>, Vec<u8>)> {
        // `dir` ends with `/`: its last component and what is before it.
        let inner = dir.strip_suffix(b"/")?;
        let at = memchr::memrchr(b'/', inner).map_or(0, |a| a + 1);
        Some((inner[..at].to_vec(), inner[at..].to_vec()))
    };
    match name {
        n if n == HISTORY_ITEM.as_bytes() => {
            let (above, _) = parent(dir)?;
            let (_, tasks) = parent(&above)?;
            (tasks == TASKS.as_bytes()).then(|| dir.to_vec())
        }
        n if n == TASKS_INDEX.as_bytes() => {
            let (_, tasks) = parent(dir)?;
            (tasks == TASKS.as_bytes()).then(|| dir.to_vec())
        }
        n if n == TASK_HISTORY.as_bytes() => {
            let (storage, state) = parent(dir)?;
            (state == STATE.as_bytes()).then(|| [&storage[..], TASKS.as_bytes(), b"/"].concat())
        }
        _ => None,
    }
}

/// A task's place, from its log's path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// The task's id: its directory's name.
    pub id: Option<String>,
    /// The task's directory.
    pub dir: Option<PathBuf>,
}

impl Place {
    /// The place of the log at `path`.
    pub fn of(path: &Path) -> Place {
        let dir = path.parent();
        Place {
            id: dir
                .and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .filter(|n| !n.is_empty())
                .map(str::to_string),
            dir: dir.map(Path::to_path_buf),
        }
    }

    /// The place of a log that is no file: its id from its name only.
    pub fn named(name: &str) -> Place {
        Place {
            dir: None,
            ..Place::of(Path::new(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_logs_and_their_index_files() {
        assert!(is_task_log(b"tasks/1767644899093/ui_messages.json"));
        assert!(is_task_log(
            b"/x/globalStorage/rooveterinaryinc.roo-cline/tasks/0b1c/ui_messages.json"
        ));
        assert!(!is_task_log(b"1767644899093/ui_messages.json"));
        assert!(!is_task_log(b"tasks/ui_messages.json"));
        assert!(!is_task_log(b"tasks/1/sub/ui_messages.json"));
        assert!(!is_task_log(b"tasks/1/api_conversation_history.json"));
        let scopes: [(&[u8], Option<&[u8]>); 8] = [
            (b"tasks/7/history_item.json", Some(&b"tasks/7/"[..])),
            (b"a/tasks/_index.json", Some(&b"a/tasks/"[..])),
            (b"tasks/_index.json", Some(&b"tasks/"[..])),
            (b"state/taskHistory.json", Some(&b"tasks/"[..])),
            (b"x/state/taskHistory.json", Some(&b"x/tasks/"[..])),
            (b"other/_index.json", None),
            (b"taskHistory.json", None),
            (b"tasks/7/ui_messages.json", None),
        ];
        for (path, scope) in scopes {
            let path_text = String::from_utf8_lossy(path);
            assert_eq!(scope_of(path).as_deref(), scope, "{path_text}");
        }
        assert_eq!(
            Place::named("tasks/42/ui_messages.json").id.as_deref(),
            Some("42")
        );
    }
}
