//! What a Copilot Chat session's place on disk tells (agent-logs-more.md
//! "GitHub Copilot Chat in VS Code"): its id when the state has none (the
//! file name), its cwd (the workspace's `workspace.json` beside the
//! `chatSessions` folder), its form, and whether a `.json` is shadowed by
//! the log of the same name.

use std::path::Path;

use serde_json::Value;
use url::Url;

use crate::formats::toolkit::document::TwoForms;
use crate::fsio;

/// The longest `workspace.json` read: one URI, not a document.
const WORKSPACE_MAX: u64 = 64 * 1024;

/// The folder a workspace's sessions are in.
pub const SESSIONS_DIR: &str = "chatSessions";

/// The folder the sessions of windows with no folder are in.
pub const EMPTY_WINDOW_DIR: &str = "emptyWindowChatSessions";

/// The facts of one log's place.
#[derive(Debug, Clone, Default)]
pub struct Place {
    /// The file name without its extension.
    pub stem: Option<String>,
    pub cwd: Option<String>,
    /// Which form its name says it is in, and whether it is shadowed.
    pub forms: TwoForms,
}

impl Place {
    /// The facts of the log at `path`.
    pub fn of(path: &Path) -> Place {
        let dir = path.parent();
        let in_workspace = dir
            .and_then(Path::file_name)
            .is_some_and(|n| n == SESSIONS_DIR);
        let cwd = dir
            .filter(|_| in_workspace)
            .and_then(Path::parent)
            .and_then(|workspace| workspace_folder(&workspace.join("workspace.json")));
        Place {
            stem: path
                .file_stem()
                .and_then(|s| s.to_str())
                .map(str::to_string),
            cwd,
            // VS Code reads the log first (`readSessionFromLocation`).
            forms: TwoForms::of(path),
        }
    }
}

/// The folder of a single-folder workspace: `folder` when it is a `file:`
/// URI with an empty authority, percent-decoded. A multi-root workspace
/// (`workspace`) and remote folders (other schemes, a host) have none.
fn workspace_folder(path: &Path) -> Option<String> {
    // Never a FIFO (it would hang the scan) nor a link out of the store.
    let bytes = fsio::read_side_file(path, WORKSPACE_MAX).ok()?;
    let doc: Value = serde_json::from_slice(&bytes).ok()?;
    folder_path(doc.get("folder")?.as_str()?)
}

/// The path of a `file:///…` URI.
pub fn folder_path(uri: &str) -> Option<String> {
    let url = Url::parse(uri).ok()?;
    if url.scheme() != "file" || url.host_str().is_some_and(|h| !h.is_empty()) {
        return None;
    }
    let path = url.to_file_path().ok()?;
    path.to_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_local_folder_uri_gives_a_cwd() {
        assert_eq!(
            folder_path("file:///home/user/my%20app").as_deref(),
            Some("/home/user/my app")
        );
        assert_eq!(folder_path("file://server/share/x"), None);
        assert_eq!(folder_path("vscode-remote://ssh-remote%2Bbox/home/x"), None);
        assert_eq!(folder_path("not a uri"), None);
    }

    #[test]
    fn the_workspace_json_beside_chat_sessions_names_the_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("abc");
        std::fs::create_dir_all(ws.join(SESSIONS_DIR)).unwrap();
        std::fs::write(
            ws.join("workspace.json"),
            r#"{"folder":"file:///srv/a%C3%A9"}"#,
        )
        .unwrap();
        let log = ws.join(SESSIONS_DIR).join("s1.jsonl");
        let place = Place::of(&log);
        assert_eq!(place.cwd.as_deref(), Some("/srv/aé"));
        assert_eq!(place.stem.as_deref(), Some("s1"));
        assert_eq!(place.forms.is_json, Some(false));
        std::fs::write(
            ws.join("workspace.json"),
            r#"{"workspace":"file:///srv/x.code-workspace"}"#,
        )
        .unwrap();
        assert_eq!(Place::of(&log).cwd, None);
        let json = ws.join(SESSIONS_DIR).join("s1.json");
        assert!(Place::of(&json).forms.shadowed.is_none());
        std::fs::write(&log, "").unwrap();
        assert!(Place::of(&json).forms.shadowed.is_some());
        // Anywhere else, no workspace is looked for.
        assert_eq!(Place::of(&ws.join("s1.jsonl")).cwd, None);
    }
}
