//! Every Qwen Code rule that agent-logs-files-3.md marks unverified ([U]),
//! in one place (docs/agent-logs.md "Qwen Code" says what was verified and
//! on what). No file Qwen Code wrote was found in a public repository:
//! the fixtures follow its source. When a real chat file contradicts one
//! of these rules, this file is what changes.
//!
//! [U] Also: records of a sub-agent inside the parent's file
//! (`isSidechain`, `agentId`) are not sessions of their own, only never
//! projected; a session with a `parent_session` record keeps its own id
//! and has no display title (the reader has no code for either). A file
//! whose first line is an `assistant` record without `message` is not
//! Qwen's (rule 6a): Qwen is taken to start every file with a `user` or
//! `system` record. The live chain is taken to be in file order (a
//! record's parent is written before it): its messages are emitted at the
//! first line of their uuid, in file order (`chain::Chain::plan`).

/// The `user` record subtypes Qwen generates itself rather than the
/// person typing them [U]: never projected.
pub const SYSTEM_GENERATED_USER: &[&str] = &["notification", "cron", "background_task_completed"];

/// The model's stock reply right after a compression summary, not shown
/// (as Gemini CLI's, from which Qwen's compression comes).
pub const COMPRESSION_ACK: &str = "Got it. Thanks for the additional context!";

/// [U: placement] Whether a compression record's history puts the summary
/// first and the retained tail after it: the first `Content` whose text is
/// not empty is the checkpoint's text, the ones after it follow, in
/// order. Returns the checkpoint text (when any) and the index the tail
/// starts at.
pub fn compression_summary(
    history: &[(super::record::ContentRole, String)],
) -> (Option<&str>, usize) {
    match history.iter().position(|(_, t)| !t.trim().is_empty()) {
        Some(at) => (history.get(at).map(|(_, t)| t.as_str()), at + 1),
        None => (None, history.len()),
    }
}

/// Whether a `QWEN_RUNTIME_DIR` value counts: an absolute path, `~` or
/// `~/…` (Qwen expands a `~` prefix). A relative value does not [U]: Qwen
/// resolves it against its own working directory, which is not known here.
pub fn runtime_dir_counts(value: &std::path::Path) -> bool {
    value.is_absolute() || value.starts_with("~")
}

#[cfg(test)]
mod tests {
    use super::super::record::ContentRole;
    use super::*;

    #[test]
    fn the_summary_is_the_first_content_with_text() {
        let history = vec![
            (ContentRole::User, " ".to_string()),
            (ContentRole::User, "sum".to_string()),
            (ContentRole::Model, COMPRESSION_ACK.to_string()),
        ];
        assert_eq!(compression_summary(&history), (Some("sum"), 2));
        assert_eq!(compression_summary(&history[..1]), (None, 1));
        assert!(SYSTEM_GENERATED_USER.contains(&"cron"));
    }

    #[test]
    fn a_runtime_dir_counts_when_absolute_or_under_the_home() {
        use std::path::Path;
        for counts in ["/q", "~", "~/q"] {
            assert!(runtime_dir_counts(Path::new(counts)), "{counts}");
        }
        for ignored in ["q", "./q", "~q", ""] {
            assert!(!runtime_dir_counts(Path::new(ignored)), "{ignored}");
        }
    }
}
