//! Every Aider rule agent-logs-files-3.md marks [U] (unverified, or a
//! choice made here), in one place, so that a fact learnt later changes
//! one function. `docs/agent-logs.md` says what each rests on.

use std::path::{Path, PathBuf};

use super::FILE_NAME;
use crate::formats::text;

/// A run's id: Aider writes none, so it is made of where the file is and
/// when the run began, `aider:<rel>#<YYYY-MM-DDTHH:MM:SS>`; the k-th run
/// (k ≥ 2) of the same file with the same stamp adds `~k` [U]. Counting
/// every run of the file (sessions or not) keeps an id stable when later
/// runs are appended.
pub fn session_id(rel: &str, stamp: &str, repeat: u32) -> String {
    let stamp = stamp.replacen(' ', "T", 1);
    if repeat >= 2 {
        format!("aider:{rel}#{stamp}~{repeat}")
    } else {
        format!("aider:{rel}#{stamp}")
    }
}

/// A run header's `YYYY-MM-DD HH:MM:SS` is Aider's local time without a
/// zone: read as UTC [U: the file does not say the zone]. `None` when it
/// is no real date (the caller falls back to the file's time).
pub fn created_at(stamp: &str) -> Option<u64> {
    let iso = format!("{}Z", stamp.replacen(' ', "T", 1));
    text::parse_timestamp(&iso)
}

/// The session's cwd: the directory holding the history file [U: Aider
/// writes it at the git root, and its own working directory may be below].
pub fn cwd_of(dir: &Path) -> Option<String> {
    dir.to_str().map(str::to_string)
}

/// Whether a markdown heading (`# …`) inside a reply is assistant text
/// [U: Aider's own reader, `split_chat_history_markdown`, drops every `# `
/// line; here only a run header is structure].
pub const HEADING_IN_REPLY_IS_TEXT: bool = true;

/// Where a workspace folder's history may be: `.aider.chat.history.md` in
/// the folder, then in its git root (the nearest ancestor, itself
/// included, holding an entry named `.git`) when that differs [U: Aider
/// writes `<git root>/.aider.chat.history.md`, else
/// `./.aider.chat.history.md` (`args.py`); a folder opened below where
/// Aider ran is found through its git root; `--chat-history-file` and
/// `AIDER_CHAT_HISTORY_FILE` move the file and are not followed].
pub fn history_places(folder: &Path) -> Vec<PathBuf> {
    let root = folder
        .ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok());
    std::iter::once(folder)
        .chain(root.filter(|r| *r != folder))
        .map(|dir| dir.join(FILE_NAME))
        .collect()
}
