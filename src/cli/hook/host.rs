//! The agents that run the prompt hook, and how much hook context each
//! keeps in the model's context before it saves the rest to a file and
//! shows the model a preview.

/// Claude Code keeps a hook's `additionalContext` inline up to this many
/// characters (UTF-16 units); a longer one is saved to a file and the
/// model sees a 2 KB preview and the path instead (hooks reference: hook
/// output injected into context "is capped at 10,000 characters").
pub const CLAUDE_CODE_INLINE_CHARS: usize = 10_000;

/// Codex keeps a hook's additional context inline up to this many tokens
/// by its own estimate; above it, the text is written under
/// `$CODEX_HOME/hook_outputs/` and the model sees a head-and-tail preview
/// with the path (`HOOK_OUTPUT_TOKEN_LIMIT` in openai/codex
/// `codex-rs/hooks/src/output_spill.rs`, applied to each context text in
/// `ClaudeHooksEngine::run_user_prompt_submit`, `codex-rs/hooks/src/engine/mod.rs`).
pub const CODEX_INLINE_TOKENS: usize = 2_500;

/// Codex's token estimate: the UTF-8 byte length divided by 4, rounded
/// up (`approx_token_count` in openai/codex
/// `codex-rs/utils/string/src/truncate.rs`).
const CODEX_BYTES_PER_TOKEN: usize = 4;

/// An agent that runs the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    ClaudeCode,
    Codex,
}

impl Host {
    /// The `hook` subcommand that serves this agent.
    pub fn command(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
        }
    }

    /// The most UTF-8 bytes of context the agent surely keeps inline. A
    /// byte count is never below the UTF-16 length Claude Code measures;
    /// Codex's estimate stays within its limit up to 4 bytes a token.
    pub fn inline_bytes(self) -> usize {
        match self {
            Host::ClaudeCode => CLAUDE_CODE_INLINE_CHARS,
            Host::Codex => CODEX_INLINE_TOKENS * CODEX_BYTES_PER_TOKEN,
        }
    }

    /// `text`'s size as the agent measures it, when that is over what it
    /// keeps inline: the size and the limit, in words for a warning.
    pub fn overflow(self, text: &str) -> Option<String> {
        match self {
            Host::ClaudeCode => {
                let length = text.encode_utf16().count();
                (length > CLAUDE_CODE_INLINE_CHARS).then(|| {
                    format!(
                        "the context has {length} characters; Claude Code keeps \
                         {CLAUDE_CODE_INLINE_CHARS} inline and shows the model a preview of the rest"
                    )
                })
            }
            Host::Codex => {
                let tokens = text.len().div_ceil(CODEX_BYTES_PER_TOKEN);
                (tokens > CODEX_INLINE_TOKENS).then(|| {
                    format!(
                        "the context has {tokens} tokens by Codex's estimate; Codex keeps \
                         {CODEX_INLINE_TOKENS} inline and shows the model a preview of the rest"
                    )
                })
            }
        }
    }
}

/// The per-source budget (bytes of a data object) under which the whole
/// context of `sources` sources stays within `inline_bytes` bytes: the
/// frame, the commas between the objects, and each object with its
/// budget and the `outside` bytes a truncated one takes beyond it
/// (reference.md §5a: `omitted` and the `fullSnapshot` locator, whose
/// path is as long as the spill folder's).
pub fn inline_budget(inline_bytes: usize, sources: usize, outside: usize) -> usize {
    let frame = crate::reference::render::render_context(std::iter::empty::<&str>()).len();
    let sources = sources.max(1);
    let room = inline_bytes.saturating_sub(frame + sources - 1) / sources;
    room.saturating_sub(outside).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inline_budget_leaves_room_for_the_frame_and_every_source() {
        let frame = crate::reference::render::render_context(std::iter::empty::<&str>()).len();
        let outside = 400;
        for host in [Host::ClaudeCode, Host::Codex] {
            for sources in 1..=3 {
                let budget = inline_budget(host.inline_bytes(), sources, outside);
                let worst = frame + sources * (budget + outside) + sources - 1;
                assert!(worst <= host.inline_bytes(), "{host:?} {sources}: {worst}");
                assert!(budget > 2_000, "{host:?} {sources}: {budget}");
            }
        }
    }

    #[test]
    fn codex_counts_four_bytes_a_token_rounded_up() {
        let limit = Host::Codex.inline_bytes();
        assert_eq!(limit, 10_000);
        assert_eq!(Host::Codex.overflow(&"x".repeat(limit)), None);
        let over = Host::Codex.overflow(&"x".repeat(limit + 1)).unwrap();
        assert!(over.contains("2501 tokens"), "{over}");
        // Bytes, not characters: 2,501 four-byte characters are over.
        assert!(Host::Codex.overflow(&"😀".repeat(2_501)).is_some());
    }

    #[test]
    fn claude_code_counts_utf16_units() {
        assert_eq!(Host::ClaudeCode.overflow(&"é".repeat(10_000)), None);
        assert!(Host::ClaudeCode.overflow(&"x".repeat(10_001)).is_some());
    }
}
