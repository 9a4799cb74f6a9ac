//! Every rule of the `continue` format that agent-logs-files-3.md marks
//! \[U\], in one place (docs/agent-logs.md says what was verified on what):
//! a `workspaceDirectory` is the IDE's workspace URI, and a `file://` one
//! reads as its percent-decoded path ([`workspace_cwd`]); the default
//! store's variable `CONTINUE_GLOBAL_DIR` counts only when absolute
//! (`defaults.rs`).

/// The session's cwd from its `workspaceDirectory`: a `file://` URI becomes
/// its percent-decoded path (`/c:/…`, a Windows drive, loses its leading
/// `/`); any other text is used as written. `None` when empty.
pub fn workspace_cwd(dir: &str) -> Option<String> {
    if dir.is_empty() {
        return None;
    }
    let Some(rest) = dir.strip_prefix("file://") else {
        return Some(dir.to_string());
    };
    // The authority (a host, usually empty) is not part of the path.
    let path = rest.find('/').map_or("", |at| &rest[at..]);
    let decoded = percent_decoded(path);
    let b = decoded.as_bytes();
    let drive = b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':';
    let cwd = if drive { &decoded[1..] } else { &decoded[..] };
    (!cwd.is_empty()).then(|| cwd.to_string())
}

/// `%XX` sequences turned into their bytes (text that is then not UTF-8
/// has its bad bytes replaced); a `%` not followed by two hex digits stays.
fn percent_decoded(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' {
            if let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            ) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        let cases: [(&str, Option<&str>); 9] = [
            ("file:///home/ana/my%20app", Some("/home/ana/my app")),
            ("file:///c%3A/Users/ana", Some("c:/Users/ana")),
            ("file:///d:/w", Some("d:/w")),
            ("file://host/share/x", Some("/share/x")),
            ("file:///a%zz%C3%A9", Some("/a%zzé")),
            ("/plain/path", Some("/plain/path")),
            ("vscode-remote://ssh/x", Some("vscode-remote://ssh/x")),
            ("", None),
            ("file://", None),
        ];
        for (uri, cwd) in cases {
            assert_eq!(workspace_cwd(uri).as_deref(), cwd, "{uri:?}");
        }
    }
}
