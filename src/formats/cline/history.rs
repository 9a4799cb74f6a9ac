//! A task's `HistoryItem` (agent-logs-files-3.md "Cline … Its
//! HistoryItem"): `tasks/<taskId>/history_item.json` when it is that task's
//! (Roo Code, Kilo Code), else its entry in `tasks/_index.json` (Roo Code's
//! `{"version":1,"entries":[…]}`), else in `state/taskHistory.json` beside
//! `tasks/` (Cline's array); else none. An index that does not parse is
//! ignored. The two indexes hold every task, so each is parsed once per
//! change and shared ([`SideIndex`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use super::place::{HISTORY_ITEM, STATE, TASKS_INDEX, TASK_HISTORY};
use crate::formats::text;
use crate::formats::toolkit::side_index::SideIndex;
use crate::fsio::{self, Links};

/// The longest `history_item.json` read: one entry, not a document.
const ITEM_MAX: u64 = 1 << 20;

/// What a task takes from its `HistoryItem`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct HistoryFacts {
    /// The title: `task` (the first prompt) cut to 80.
    pub title: Option<String>,
    /// `cwdOnTaskInitialization` (Cline), else `workspace` (Roo Code).
    pub cwd: Option<String>,
    /// `parentTaskId` (Roo Code, Kilo Code): a sub-task's parent.
    pub parent: Option<String>,
}

impl HistoryFacts {
    /// The facts of one `HistoryItem` object.
    fn of(item: &Map<String, Value>) -> HistoryFacts {
        let text = |key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        };
        HistoryFacts {
            title: text("task").and_then(text::prompt_title),
            cwd: text("cwdOnTaskInitialization")
                .or_else(|| text("workspace"))
                .map(str::to_string),
            parent: text("parentTaskId").map(str::to_string),
        }
    }
}

/// The entries of one index by task id.
type Entries = HashMap<String, HistoryFacts>;

static ROO_INDEX: SideIndex<Entries> = SideIndex::new();
static CLINE_INDEX: SideIndex<Entries> = SideIndex::new();

/// The `HistoryItem` facts of the task `id` whose directory is `task_dir`.
pub fn lookup(task_dir: &Path, id: &str) -> Option<HistoryFacts> {
    if let Some(item) = own_item(task_dir, id) {
        return Some(item);
    }
    let tasks = task_dir.parent()?;
    let in_index =
        |index: &SideIndex<Entries>, path: &Path, entries: fn(Value) -> Option<Vec<Value>>| {
            index
                .get(path, |bytes| {
                    Some(by_id(entries(serde_json::from_slice(bytes).ok()?)?))
                })
                .and_then(|e| e.get(id).cloned())
        };
    in_index(&ROO_INDEX, &tasks.join(TASKS_INDEX), |v| match v {
        Value::Object(mut o) => match o.remove("entries") {
            Some(Value::Array(a)) => Some(a),
            _ => None,
        },
        _ => None,
    })
    .or_else(|| {
        let state = tasks.parent()?.join(STATE).join(TASK_HISTORY);
        in_index(&CLINE_INDEX, &state, |v| match v {
            Value::Array(a) => Some(a),
            _ => None,
        })
    })
}

/// A fingerprint of what [`lookup`] finds for the task whose log is at
/// `log` (see [`crate::formats::LogFormat::side_facts`]).
pub fn fingerprint(log: &Path) -> Option<u64> {
    let dir = log.parent()?;
    let id = dir.file_name()?.to_str()?;
    let mut hasher = rustc_hash::FxHasher::default();
    lookup(dir, id).hash(&mut hasher);
    // Never 0, which a stamp reads as "no side facts".
    Some(hasher.finish() | 1)
}

/// `history_item.json` in `task_dir`, when it is an object whose `id` is `id`.
fn own_item(task_dir: &Path, id: &str) -> Option<HistoryFacts> {
    let file = fsio::open_regular(&task_dir.join(HISTORY_ITEM), Links::NoFollow).ok()?;
    let mut bytes = Vec::new();
    file.take(ITEM_MAX).read_to_end(&mut bytes).ok()?;
    let item: Map<String, Value> = serde_json::from_slice(&bytes).ok()?;
    (item.get("id").and_then(Value::as_str) == Some(id)).then(|| HistoryFacts::of(&item))
}

/// The entries that are objects with a string `id`, by id (a repeated id:
/// the first).
fn by_id(entries: Vec<Value>) -> Entries {
    let mut out = Entries::with_capacity(entries.len());
    for entry in entries {
        if let Value::Object(item) = entry {
            if let Some(id) = item.get("id").and_then(Value::as_str) {
                out.entry(id.to_string())
                    .or_insert_with(|| HistoryFacts::of(&item));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_own_item_then_roos_index_then_clines() {
        let storage = tempfile::tempdir().unwrap();
        let tasks = storage.path().join("tasks");
        let task = tasks.join("t1");
        std::fs::create_dir_all(&task).unwrap();
        std::fs::create_dir_all(storage.path().join(STATE)).unwrap();
        assert_eq!(lookup(&task, "t1"), None);
        std::fs::write(
            storage.path().join(STATE).join(TASK_HISTORY),
            r#"[{"id":"t0","task":"other"},{"id":"t1","task":"  from Cline  ","cwdOnTaskInitialization":"/w/c"}]"#,
        )
        .unwrap();
        let cline = lookup(&task, "t1").unwrap();
        assert_eq!(
            (cline.title.as_deref(), cline.cwd.as_deref()),
            (Some("from Cline"), Some("/w/c"))
        );
        std::fs::write(tasks.join(TASKS_INDEX), "{not json").unwrap();
        assert_eq!(
            lookup(&task, "t1"),
            Some(cline.clone()),
            "a bad index is ignored"
        );
        std::fs::write(
            tasks.join(TASKS_INDEX),
            r#"{"version":1,"entries":[{"id":"t1","task":"from Roo","workspace":"/w/r","parentTaskId":"p"}]}"#,
        )
        .unwrap();
        let roo = lookup(&task, "t1").unwrap();
        assert_eq!(
            (
                roo.title.as_deref(),
                roo.cwd.as_deref(),
                roo.parent.as_deref()
            ),
            (Some("from Roo"), Some("/w/r"), Some("p"))
        );
        // Another task's item is not this one's.
        std::fs::write(task.join(HISTORY_ITEM), r#"{"id":"t9","task":"nine"}"#).unwrap();
        assert_eq!(lookup(&task, "t1"), Some(roo.clone()));
        let before = fingerprint(&task.join("ui_messages.json"));
        std::fs::write(
            task.join(HISTORY_ITEM),
            r#"{"id":"t1","task":"own","cwdOnTaskInitialization":""}"#,
        )
        .unwrap();
        let own = lookup(&task, "t1").unwrap();
        assert_eq!((own.title.as_deref(), own.cwd), (Some("own"), None));
        assert_ne!(fingerprint(&task.join("ui_messages.json")), before);
    }
}
