//! OpenCode's default session titles (`isDefaultTitle`): a title it will
//! replace with a generated one, so no name anybody gave.

const PREFIXES: [&str; 2] = ["New session - ", "Child session - "];

/// Whether `title` is `New session - <ISO>` or `Child session - <ISO>`,
/// the ISO time exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn is_default(title: &str) -> bool {
    PREFIXES
        .iter()
        .any(|p| title.strip_prefix(p).is_some_and(is_iso_millis))
}

/// `\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`, nothing more.
fn is_iso_millis(text: &str) -> bool {
    const SHAPE: &[u8; 24] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    text.len() == SHAPE.len()
        && text.bytes().zip(SHAPE).all(|(b, &want)| match want {
            b'd' => b.is_ascii_digit(),
            want => b == want,
        })
}

/// The title a person or the agent gave: trimmed, unless empty or default.
pub fn given(title: Option<&str>) -> Option<String> {
    let title = title?.trim();
    (!title.is_empty() && !is_default(title)).then(|| title.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_titles_are_recognised_exactly() {
        assert!(is_default("New session - 2026-08-20T11:00:00.000Z"));
        assert!(is_default("Child session - 2026-08-20T11:00:00.000Z"));
        assert!(!is_default("New session - 2026-08-20T11:00:00Z"));
        assert!(!is_default("New session - 2026-08-20T11:00:00.000Z "));
        assert!(!is_default("Old session - 2026-08-20T11:00:00.000Z"));
        assert_eq!(given(Some("  Dark mode ")), Some("Dark mode".into()));
        assert_eq!(given(Some("New session - 2026-08-20T11:00:00.000Z")), None);
        assert_eq!(given(Some("   ")), None);
    }
}
