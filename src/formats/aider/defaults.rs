//! Where Aider's history is by default (agent-logs-files-3.md "Default
//! stores"): not under the home directory but in the project, so found
//! through the workspace folders of the session (the language server's
//! `workspaceFolders`, else `rootUri`; the command line's and the MCP
//! server's working directory).

use std::path::PathBuf;

use super::unverified;
#[cfg(test)]
use super::FILE_NAME;
use crate::formats::toolkit::home::DefaultPlace;

/// The row's places without a workspace: none (see
/// [`workspace_histories`], which `config::stores` asks instead).
pub fn default_stores() -> Vec<DefaultPlace> {
    Vec::new()
}

/// For each folder of `workspace`, the places
/// [`unverified::history_places`] gives, each once. Whether each exists is
/// the caller's test.
pub fn workspace_histories(workspace: &[PathBuf]) -> Vec<DefaultPlace> {
    let mut found: Vec<PathBuf> = Vec::new();
    for folder in workspace {
        for file in unverified::history_places(folder) {
            if !found.contains(&file) {
                found.push(file);
            }
        }
    }
    found
        .into_iter()
        .map(|path| DefaultPlace::agent(path, false))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_then_its_git_root_each_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("app/src")).unwrap();
        // A worktree's `.git` is a file.
        std::fs::write(root.join(".git"), "gitdir: elsewhere\n").unwrap();
        let app = root.join("app");
        let paths = |workspace: &[PathBuf]| -> Vec<PathBuf> {
            workspace_histories(workspace)
                .into_iter()
                .map(|p| p.path)
                .collect()
        };
        assert_eq!(
            paths(&[app.clone(), root.to_path_buf()]),
            [app.join(FILE_NAME), root.join(FILE_NAME)]
        );
        assert_eq!(paths(&[root.to_path_buf()]), [root.join(FILE_NAME)]);
        let lone = tempfile::tempdir().unwrap();
        assert_eq!(
            paths(&[lone.path().to_path_buf()]),
            [lone.path().join(FILE_NAME)]
        );
    }
}
