//! Codex's own text rule: which user blocks are context Codex injected.
//! The rules shared with other formats are in `formats::text`.

pub use crate::formats::text::{
    cut_title, given_title, is_entirely_elements, parse_timestamp as rfc3339_millis, person_text,
    prompt_title,
};

/// Elements whose blocks are context Codex injects into user messages.
const INJECTED_ELEMENTS: &[&str] = &[
    "environment_context",
    "user_instructions",
    "user_shell_command",
    "turn_aborted",
    "skill",
];

/// How Codex starts the block carrying a project's AGENTS.md.
const AGENTS_MD_PREFIX: &str = "# AGENTS.md instructions for ";

/// Whether one `input_text` block of a user message is injected context,
/// not something the person wrote.
pub fn is_injected_context(block: &str) -> bool {
    block.trim_start().starts_with(AGENTS_MD_PREFIX)
        || is_entirely_elements(block, INJECTED_ELEMENTS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injected_context_blocks() {
        assert!(is_injected_context(
            "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"
        ));
        assert!(is_injected_context(
            " <user_instructions>a</user_instructions>\n<skill name=\"x\">b</skill> "
        ));
        assert!(is_injected_context(
            "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>"
        ));
        assert!(is_injected_context("<turn_aborted>\n</turn_aborted>"));
        assert!(!is_injected_context(
            "<environment_context>x</environment_context> and more"
        ));
        assert!(!is_injected_context(
            "<skills_instructions>x</skills_instructions>"
        ));
        assert!(!is_injected_context("<environment_context>unclosed"));
        assert!(!is_injected_context(
            "please read # AGENTS.md instructions for /w"
        ));
        assert!(!is_injected_context(""));
        assert!(!is_injected_context("<"));
    }
}
