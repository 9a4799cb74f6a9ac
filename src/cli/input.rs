//! Reading the text a command works on.

use std::io::Read;
use std::path::Path;

use super::Failure;

/// Reads `file` (or standard input for `None` or `-`) as UTF-8.
pub fn read_text(file: Option<&Path>) -> Result<String, Failure> {
    let (bytes, name) = match file {
        None => (read_stdin()?, "standard input".to_string()),
        Some(path) if path.as_os_str() == "-" => (read_stdin()?, "standard input".to_string()),
        Some(path) => (
            std::fs::read(path)
                .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?,
            path.display().to_string(),
        ),
    };
    String::from_utf8(bytes).map_err(|_| Failure::Usage(format!("{name} is not UTF-8")))
}

fn read_stdin() -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::Usage(format!("cannot read standard input: {e}")))?;
    Ok(bytes)
}
