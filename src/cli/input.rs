//! Reading the text a command works on: a regular file or standard input,
//! at most [`MAX_DOCUMENT_BYTES`] (see [`crate::config::document`]).

use std::path::Path;

use super::Failure;
#[cfg(doc)]
use crate::config::document::MAX_DOCUMENT_BYTES;
use crate::config::document::{self, DocumentError};

/// Reads `file` (or standard input for `None` or `-`) as UTF-8.
pub fn read_text(file: Option<&Path>) -> Result<String, Failure> {
    let (read, name) = match file {
        Some(path) if path.as_os_str() != "-" => {
            (document::read_file(path), path.display().to_string())
        }
        _ => (
            document::read_stream(std::io::stdin().lock()),
            "standard input".to_string(),
        ),
    };
    read.map_err(|e| match e {
        DocumentError::NotUtf8 => Failure::Usage(format!("{name} is not UTF-8")),
        e => Failure::Usage(format!("cannot read {name}: {e}")),
    })
}
