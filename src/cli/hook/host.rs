//! The agents that run the prompt hook: the event each names it by, and
//! how much hook context each keeps in the model's context (Claude Code
//! and Codex save the rest to a file and show the model a preview; Qwen
//! Code drops an answer it cut, and Copilot CLI bounds one; Gemini CLI
//! keeps everything).

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

/// Qwen Code reads at most this much of a command hook's stdout and cuts
/// the rest, and an answer cut there no longer parses as JSON, so its
/// context is dropped (`MAX_OUTPUT_LENGTH2 = 1024 * 1024` in the command
/// hook runner, `packages/core/src/hooks/hookRunner.ts`, as bundled in
/// `@qwen-code/qwen-code` 0.24.4 `chunks/chunk-DPEB6S2R.js`; counted in
/// UTF-16 units of the text read so far, never more than its bytes).
pub const QWEN_STDOUT_BYTES: usize = 1024 * 1024;

/// What the answer around Qwen Code's context may take besides it: the
/// JSON frame and the `systemMessage` (a line per source, its title cut
/// and its path one line; at most `maxReferences` sources).
const QWEN_ANSWER_ROOM: usize = 64 * 1024;

/// Copilot CLI bounds a hook's output at 10 MiB per invocation (its
/// 1.0.102 `changelog.json`: "hook output is also bounded at 10 MiB per
/// invocation"); an answer cut there no longer parses.
pub const COPILOT_OUTPUT_BYTES: usize = 10 * 1024 * 1024;

/// An agent that runs the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    ClaudeCode,
    Codex,
    /// Gemini CLI's `BeforeAgent` event: the same JSON in and out as
    /// Claude Code's `UserPromptSubmit`, under another name.
    Gemini,
    /// Qwen Code's `UserPromptSubmit`, Claude Code's in shape.
    Qwen,
    /// Copilot CLI's `userPromptSubmitted` (its camelCase hook format): a
    /// `sessionId`, and `additionalContext` at the answer's top level.
    Copilot,
}

impl Host {
    /// The `hook` subcommand that serves this agent.
    pub fn command(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Qwen => "qwen",
            Host::Copilot => "copilot",
        }
    }

    /// The hook event the agent runs the hook on, in its input's
    /// `hook_event_name` and the answer's `hookEventName`. Gemini CLI
    /// passes a `BeforeAgent` hook the prompt and adds its
    /// `hookSpecificOutput.additionalContext` to the request
    /// (`fireBeforeAgentHookSafe` in `@google/gemini-cli` 0.61.0
    /// `bundle/chunk-5FZXKDXH.js`); its other events carry no prompt.
    pub fn event(self) -> &'static str {
        match self {
            Host::Gemini => "BeforeAgent",
            Host::Copilot => "userPromptSubmitted",
            Host::ClaudeCode | Host::Codex | Host::Qwen => "UserPromptSubmit",
        }
    }

    /// The `timeout` of the printed hook, in the agent's unit: seconds,
    /// but milliseconds for Gemini CLI (`DEFAULT_HOOK_TIMEOUT = 6e4`
    /// passed to `setTimeout` as it is, in the same bundle).
    pub fn timeout(self) -> u64 {
        match self {
            Host::Gemini => 30_000,
            Host::ClaudeCode | Host::Codex | Host::Qwen | Host::Copilot => 30,
        }
    }

    /// The most UTF-8 bytes of context the agent surely keeps inline;
    /// `None` when it keeps any size (Gemini CLI adds the whole context
    /// to the request, its `<` and `>` escaped, and reads all of stdout:
    /// `getAdditionalContext` and `executeCommandHook` in the same
    /// bundle). A byte count is never below the UTF-16 length Claude Code
    /// measures; Codex's estimate stays within its limit up to 4 bytes a
    /// token; Qwen Code's context is a JSON string in the answer, and
    /// escaping at most doubles text whose control characters the
    /// rendered context already wrote as escapes (only its frame's
    /// newlines are raw, two bytes each once escaped).
    pub fn inline_bytes(self) -> Option<usize> {
        match self {
            Host::ClaudeCode => Some(CLAUDE_CODE_INLINE_CHARS),
            Host::Codex => Some(CODEX_INLINE_TOKENS * CODEX_BYTES_PER_TOKEN),
            Host::Gemini => None,
            Host::Qwen => Some((QWEN_STDOUT_BYTES - QWEN_ANSWER_ROOM) / 2),
            // The same reasoning as Qwen Code's under Copilot CLI's bound.
            Host::Copilot => Some((COPILOT_OUTPUT_BYTES - QWEN_ANSWER_ROOM) / 2),
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
            Host::Gemini => None,
            Host::Qwen => {
                let limit = Host::Qwen.inline_bytes().unwrap_or(QWEN_STDOUT_BYTES);
                (text.len() > limit).then(|| {
                    format!(
                        "the context has {} bytes; Qwen Code reads {QWEN_STDOUT_BYTES} bytes of a \
                         hook's answer and drops one it cut",
                        text.len()
                    )
                })
            }
            Host::Copilot => {
                let limit = Host::Copilot.inline_bytes().unwrap_or(COPILOT_OUTPUT_BYTES);
                (text.len() > limit).then(|| {
                    format!(
                        "the context has {} bytes; Copilot CLI bounds a hook's output at \
                         {COPILOT_OUTPUT_BYTES} bytes",
                        text.len()
                    )
                })
            }
        }
    }

    /// Whether the agent reads `additionalContext` at the answer's top
    /// level (Copilot CLI: a `hookSpecificOutput` is ignored, as the tests
    /// saw) rather than inside `hookSpecificOutput`.
    pub fn flat_answer(self) -> bool {
        matches!(self, Host::Copilot)
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
        for host in [Host::ClaudeCode, Host::Codex, Host::Qwen, Host::Copilot] {
            let inline = host.inline_bytes().unwrap();
            for sources in 1..=3 {
                let budget = inline_budget(inline, sources, outside);
                let worst = frame + sources * (budget + outside) + sources - 1;
                assert!(worst <= inline, "{host:?} {sources}: {worst}");
                assert!(budget > 2_000, "{host:?} {sources}: {budget}");
            }
        }
    }

    #[test]
    fn codex_counts_four_bytes_a_token_rounded_up() {
        let limit = Host::Codex.inline_bytes().unwrap();
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

    /// `host` keeps inline what fits `bound` twice over with room for its
    /// answer, and not a byte more.
    #[track_caller]
    fn keeps_what_fits_twice_over(host: Host, bound: usize) {
        let inline = host.inline_bytes().unwrap();
        assert!(2 * inline + QWEN_ANSWER_ROOM <= bound, "{host:?}");
        assert_eq!(host.overflow(&"x".repeat(inline)), None, "{host:?}");
        assert!(host.overflow(&"x".repeat(inline + 1)).is_some(), "{host:?}");
    }

    #[test]
    fn qwen_keeps_what_fits_its_stdout_twice_over_and_gemini_any_size() {
        keeps_what_fits_twice_over(Host::Qwen, QWEN_STDOUT_BYTES);
        assert_eq!(Host::Gemini.inline_bytes(), None);
        assert_eq!(
            Host::Gemini.overflow(&"x".repeat(QWEN_STDOUT_BYTES * 2)),
            None
        );
        assert_eq!(Host::Gemini.event(), "BeforeAgent");
        assert_eq!(Host::Gemini.timeout(), 30_000);
    }

    #[test]
    fn copilot_keeps_what_fits_its_output_bound_twice_over() {
        keeps_what_fits_twice_over(Host::Copilot, COPILOT_OUTPUT_BYTES);
        assert_eq!(Host::Copilot.event(), "userPromptSubmitted");
        assert!(Host::Copilot.flat_answer() && !Host::Qwen.flat_answer());
    }
}
