//! LSP types → what the core and the file system speak.

use std::path::PathBuf;

use lsp_types::Url;

/// The percent-decoded path of a `file:` URI, as a string.
pub fn file_path(uri: &Url) -> Option<String> {
    file_path_buf(uri).map(|p| p.to_string_lossy().into_owned())
}

pub fn file_path_buf(uri: &Url) -> Option<PathBuf> {
    if uri.scheme() != "file" {
        return None;
    }
    uri.to_file_path().ok()
}
