//! Workspace folders and what depends on them: the target cwd that ranks
//! candidates, and the folder a relative `store` is resolved against.

use std::path::{Path, PathBuf};

use lsp_types::{Url, WorkspaceFolder};

use crate::proto::from_proto;

#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// Folder paths, percent-decoded, without a trailing `/`, in the
    /// client's order.
    folders: Vec<String>,
    root: Option<String>,
}

impl Workspace {
    pub fn new(folders: Option<&[WorkspaceFolder]>, root_uri: Option<&Url>) -> Self {
        let folders = folders
            .unwrap_or_default()
            .iter()
            .filter_map(|f| folder_path(&f.uri))
            .collect();
        Workspace {
            folders,
            root: root_uri.and_then(folder_path),
        }
    }

    pub fn add(&mut self, uri: &Url) {
        if let Some(path) = folder_path(uri) {
            if !self.folders.contains(&path) {
                self.folders.push(path);
            }
        }
    }

    pub fn remove(&mut self, uri: &Url) {
        if let Some(path) = folder_path(uri) {
            self.folders.retain(|f| *f != path);
        }
    }

    /// Every folder, else the root, else none (LSP `workspaceFolders`,
    /// else `rootUri`): where the default Aider histories are looked for.
    pub fn folders(&self) -> Vec<PathBuf> {
        if self.folders.is_empty() {
            return self.root.iter().map(PathBuf::from).collect();
        }
        self.folders.iter().map(PathBuf::from).collect()
    }

    /// The first folder, else the root: where a relative store lives.
    pub fn first_folder(&self) -> Option<PathBuf> {
        self.folders
            .first()
            .or(self.root.as_ref())
            .map(PathBuf::from)
    }

    /// The innermost folder holding the document, else the first folder,
    /// else the root, else none. Paths are compared as they are written,
    /// component by component, never canonicalised.
    pub fn target_cwd(&self, document: &Url) -> Option<String> {
        if let Some(doc) = from_proto::file_path(document) {
            let doc = Path::new(&doc);
            let innermost = self
                .folders
                .iter()
                .filter(|folder| doc.starts_with(Path::new(folder.as_str())))
                .max_by_key(|folder| folder.len());
            if let Some(folder) = innermost {
                return Some(folder.clone());
            }
        }
        self.folders.first().or(self.root.as_ref()).cloned()
    }
}

/// A folder URI as a path string without a trailing `/`.
fn folder_path(uri: &Url) -> Option<String> {
    let path = from_proto::file_path(uri)?;
    let trimmed = path.trim_end_matches('/');
    Some(if trimmed.is_empty() {
        "/".to_string()
    } else {
        trimmed.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn innermost_folder_wins() {
        let folders = [
            WorkspaceFolder {
                uri: url("file:///home/ana/shop/"),
                name: "shop".into(),
            },
            WorkspaceFolder {
                uri: url("file:///home/ana/shop/sub%20dir"),
                name: "sub".into(),
            },
        ];
        let ws = Workspace::new(Some(&folders), None);
        assert_eq!(
            ws.target_cwd(&url("file:///home/ana/shop/sub%20dir/a.md"))
                .as_deref(),
            Some("/home/ana/shop/sub dir")
        );
        assert_eq!(
            ws.target_cwd(&url("file:///home/ana/shop/a.md")).as_deref(),
            Some("/home/ana/shop")
        );
        assert_eq!(
            ws.target_cwd(&url("file:///elsewhere/a.md")).as_deref(),
            Some("/home/ana/shop")
        );
        // Not a file: the first folder.
        assert_eq!(
            ws.target_cwd(&url("untitled:Untitled-1")).as_deref(),
            Some("/home/ana/shop")
        );
    }

    #[test]
    fn folders_are_compared_by_component() {
        let folders = [
            WorkspaceFolder {
                uri: url("file:///x"),
                name: "x".into(),
            },
            WorkspaceFolder {
                uri: url("file:///home/ana/shop"),
                name: "shop".into(),
            },
        ];
        let ws = Workspace::new(Some(&folders), None);
        // `shopping` is not inside `shop`: the first folder applies.
        assert_eq!(
            ws.target_cwd(&url("file:///home/ana/shopping/a.md"))
                .as_deref(),
            Some("/x")
        );
        assert_eq!(
            ws.target_cwd(&url("file:///home/ana/shop/a.md")).as_deref(),
            Some("/home/ana/shop")
        );
    }

    #[test]
    fn root_uri_then_none() {
        let ws = Workspace::new(None, Some(&url("file:///r/")));
        assert_eq!(ws.target_cwd(&url("file:///x/a.md")).as_deref(), Some("/r"));
        assert_eq!(
            Workspace::default().target_cwd(&url("file:///x/a.md")),
            None
        );
    }
}
