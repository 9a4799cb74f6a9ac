//! `hook claude-code`, `hook codex`, `hook qwen`, `hook gemini` and `hook
//! copilot`: the agents' prompt hook (server.md "Command line").
//!
//! The agent runs it on every prompt, with the hook's JSON object on
//! stdin. Its stdout is exactly one of the documented JSON outputs, or
//! nothing; every other word goes to stderr. The agents take the same
//! input and output; they differ in the event's name and in how much
//! context each keeps inline ([`host`]).

mod host;
mod install;
mod summary;

use std::io::{Read, Write};

use serde::Serialize;
use serde_json::Value;

use super::args::{SpillArgs, StoreArgs};
use super::settings::{self, Settings};
use super::{FAILED, OK};
use crate::reference::budget::{BudgetSetting, DEFAULT_BUDGET};
use crate::reference::full_snapshot::{omission_bound, SpillStore};
use crate::reference::mention;
use crate::reference::prepare::{normalize, prepare, PrepareOptions, Prepared};
use crate::reference::ReferenceError;
use crate::store::Scan;
pub use host::Host;

pub use install::print_config;

/// What the hook read from stdin.
#[derive(Debug, PartialEq, Eq)]
struct HookInput {
    prompt: String,
    session_id: Option<String>,
    /// Whether the input is Codex's: it alone sends `turn_id` (required in
    /// openai/codex `codex-rs/hooks/schema/generated/user-prompt-submit.command.input.schema.json`;
    /// Claude Code's hook input has no such field).
    from_codex: bool,
}

/// What the hook answers.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// No references: nothing on stdout.
    Nothing,
    Context(Prepared),
    Block(String),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextOutput<'a> {
    hook_specific_output: HookSpecificOutput<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_message: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HookSpecificOutput<'a> {
    hook_event_name: &'static str,
    additional_context: &'a str,
}

/// Copilot CLI's answer: `additionalContext` at the top level (it has no
/// field for a message to the person: `UserPromptSubmittedHookOutput` in
/// its bundled `copilot-sdk/types.d.ts`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FlatContextOutput<'a> {
    additional_context: &'a str,
}

#[derive(Serialize)]
struct BlockOutput<'a> {
    decision: &'static str,
    reason: &'a str,
}

/// Runs the hook for `host`: settings, then stdin, then the answer.
/// Returns the exit status: 1 only for a broken setting or input, which
/// both agents show without blocking the prompt (exit 2 would block it in
/// both: Claude Code's hooks reference; openai/codex
/// `codex-rs/hooks/src/events/user_prompt_submit.rs`).
pub fn run(host: Host, args: &StoreArgs) -> i32 {
    let fail = |message: &str| {
        eprintln!("hydra-session-lsp hook {}: {message}", host.command());
        FAILED
    };
    let settings = match settings::resolve(args) {
        Ok(settings) => settings,
        Err(e) => return fail(&format!("{}: {}", e.code.as_str(), e.message)),
    };
    // A prompt is a document (at most 64 MiB); its JSON string may escape
    // to twice that. Read no further than that.
    let limit = 2 * crate::config::document::MAX_DOCUMENT_BYTES;
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().take(limit + 1).read_to_end(&mut bytes) {
        return fail(&format!("cannot read standard input: {e}"));
    }
    if bytes.len() as u64 > limit {
        return fail(&format!(
            "standard input is over the {} MiB limit of a hook input",
            limit >> 20
        ));
    }
    let input = match parse_input(&bytes, host.event()) {
        Ok(input) => input,
        Err(message) => return fail(&message),
    };
    drop(bytes);
    // Codex's input gets Codex's limits, whichever subcommand runs.
    let limits = if input.from_codex { Host::Codex } else { host };
    // Unless a budget is given, the context is sized to stay inline.
    let fixed_budget = args.max_reference_bytes.is_some();
    let written = match answer(limits, &settings, &input, fixed_budget) {
        Outcome::Nothing => return OK,
        Outcome::Context(prepared) => {
            let context = prepared.context_text().unwrap_or_default();
            if let Some(overflow) = limits.overflow(&context) {
                eprintln!(
                    "hydra-session-lsp hook {}: warning: {overflow}",
                    host.command()
                );
            }
            if limits.flat_answer() {
                serde_json::to_string(&FlatContextOutput {
                    additional_context: &context,
                })
            } else {
                serde_json::to_string(&ContextOutput {
                    hook_specific_output: HookSpecificOutput {
                        hook_event_name: limits.event(),
                        additional_context: &context,
                    },
                    system_message: summary::system_message(&prepared),
                })
            }
        }
        Outcome::Block(reason) => serde_json::to_string(&BlockOutput {
            decision: "block",
            reason: &reason,
        }),
    };
    match written {
        Ok(json) => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{json}");
            let _ = out.flush();
            OK
        }
        Err(e) => fail(&format!("cannot write the answer: {e}")),
    }
}

/// The hook's JSON object: `prompt` (a string) is required; `session_id`
/// (or Copilot CLI's `sessionId`), `cwd` and `turn_id` are strings when
/// present; `hook_event_name`, when present, must be `event`; other fields
/// (Copilot CLI's numeric `timestamp`) are ignored.
fn parse_input(bytes: &[u8], event: &str) -> Result<HookInput, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the input is not JSON: {e}"))?;
    let Value::Object(mut object) = value else {
        return Err("the input is not a JSON object".into());
    };
    let mut string = |key: &str| match object.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("the input's {key:?} is not a string")),
    };
    let prompt = string("prompt")?.ok_or("the input has no \"prompt\"")?;
    let session_id = match string("session_id")? {
        Some(id) => Some(id),
        None => string("sessionId")?,
    };
    // The target cwd: `prepare` ranks nothing and its result does not
    // depend on it (file mentions never change it), so it is only checked.
    string("cwd")?;
    let from_codex = string("turn_id")?.is_some();
    if let Some(named) = string("hook_event_name")? {
        if named != event {
            return Err(format!(
                "this hook answers {event}, not {} (see --print-config)",
                crate::reference::echo::quoted(&named)
            ));
        }
    }
    Ok(HookInput {
        prompt,
        session_id,
        from_codex,
    })
}

/// Parses first: a prompt without mentions never touches the stores.
fn answer(host: Host, settings: &Settings, input: &HookInput, fixed_budget: bool) -> Outcome {
    // Every mention, bare or not, holds the scheme.
    if memchr::memmem::find(input.prompt.as_bytes(), b"hydra-session:").is_none() {
        return Outcome::Nothing;
    }
    match context(host, settings, input, fixed_budget) {
        Ok(Some(prepared)) => Outcome::Context(prepared),
        Ok(None) => Outcome::Nothing,
        Err(e) => Outcome::Block(e.message),
    }
}

fn context(
    host: Host,
    settings: &Settings,
    input: &HookInput,
    fixed_budget: bool,
) -> Result<Option<Prepared>, ReferenceError> {
    let parsed = mention::parse(&input.prompt)?;
    let mut options = PrepareOptions {
        target: input.session_id.as_deref().or(settings.self_id.as_deref()),
        max_references: settings.limits.max_references,
        max_reference_bytes: settings.limits.max_reference_bytes,
    };
    // Self references and too many sessions fail before any store is read.
    let sources = normalize(options.target, &parsed.references, options.max_references)?.len();
    if sources == 0 {
        return Ok(None);
    }
    let store = settings.open_store(Scan::HeadersOnly);
    // The hook is `prepare`'s host inside the agent: a truncated source
    // is spilled where `prepare` would spill it, so the agent can read the
    // whole snapshot with its own tools.
    let spill = settings::spill_for(settings, &SpillArgs::default())?;
    let spill = spill.as_ref().map(|s| s as &dyn SpillStore);
    // An agent that keeps any size inline (Gemini CLI) gets `prepare`'s
    // own budget; one whose room is large (Qwen Code) no more than
    // `prepare`'s default, so a mention costs the model what it would
    // through `prepare`.
    if let (false, Some(inline)) = (fixed_budget, host.inline_bytes()) {
        let locator = spill.map_or(0, SpillStore::locator_bound);
        options.max_reference_bytes = BudgetSetting::Fixed(
            host::inline_budget(inline, sources, omission_bound(locator)).min(DEFAULT_BUDGET),
        );
    }
    let prepared = prepare(
        parsed.text,
        &parsed.references,
        options,
        &store,
        spill,
        &|| false,
    )?;
    Ok(prepared.additional_context.is_some().then_some(prepared))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_needs_an_object_with_a_prompt() {
        assert!(parse_input(b"not json", "UserPromptSubmit").is_err());
        assert!(parse_input(b"[1]", "UserPromptSubmit").is_err());
        assert!(parse_input(b"{}", "UserPromptSubmit").is_err());
        assert!(parse_input(br#"{"prompt":3}"#, "UserPromptSubmit").is_err());
        assert!(parse_input(
            br#"{"prompt":"x","hook_event_name":"Stop"}"#,
            "UserPromptSubmit"
        )
        .is_err());
        assert!(parse_input(br#"{"prompt":"x","turn_id":7}"#, "UserPromptSubmit").is_err());
        assert_eq!(
            parse_input(
                br#"{"prompt":"x","session_id":"s","cwd":null,"permission_mode":"default"}"#,
                "UserPromptSubmit"
            ),
            Ok(HookInput {
                prompt: "x".into(),
                session_id: Some("s".into()),
                from_codex: false,
            })
        );
    }

    #[test]
    fn codex_input_says_so_with_its_turn_id() {
        let input = br#"{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/w","hook_event_name":"UserPromptSubmit","model":"gpt-5","permission_mode":"default","prompt":"x"}"#;
        assert!(parse_input(input, "UserPromptSubmit").is_ok_and(|i| i.from_codex));
    }

    #[test]
    fn copilot_input_is_camel_case() {
        let input = br#"{"sessionId":"c1","timestamp":1796240170176,"cwd":"/w","prompt":"x"}"#;
        assert_eq!(
            parse_input(input, Host::Copilot.event()),
            Ok(HookInput {
                prompt: "x".into(),
                session_id: Some("c1".into()),
                from_codex: false,
            })
        );
    }

    #[test]
    fn gemini_input_names_before_agent() {
        let input = br#"{"session_id":"g1","transcript_path":"","cwd":"/w","hook_event_name":"BeforeAgent","timestamp":"2026-12-02T05:00:00.000Z","prompt":"x"}"#;
        assert!(parse_input(input, Host::Gemini.event()).is_ok_and(|i| !i.from_codex));
        assert!(parse_input(input, Host::Qwen.event()).is_err());
    }
}
