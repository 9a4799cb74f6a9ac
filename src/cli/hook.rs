//! `hook claude-code`: a Claude Code `UserPromptSubmit` hook (server.md
//! "Command line").
//!
//! Claude Code runs it on every prompt, with the hook's JSON object on
//! stdin. Its stdout is exactly one of the documented JSON outputs, or
//! nothing; every other word goes to stderr.

use std::io::{Read, Write};

use serde::Serialize;
use serde_json::Value;

use super::args::{SpillArgs, StoreArgs};
use super::settings::{self, Settings};
use super::{FAILED, OK};
use crate::reference::budget::BudgetSetting;
use crate::reference::full_snapshot::SpillStore;
use crate::reference::mention;
use crate::reference::prepare::{normalize, prepare, PrepareOptions};
use crate::reference::ReferenceError;
use crate::store::Scan;

/// The `~/.claude/settings.json` snippet that installs the hook running
/// `command`.
fn settings_snippet(command: &str) -> String {
    let command = serde_json::to_string(command).unwrap_or_default();
    format!(
        r#"{{
  "hooks": {{
    "UserPromptSubmit": [
      {{
        "hooks": [
          {{
            "type": "command",
            "command": {command},
            "timeout": 30
          }}
        ]
      }}
    ]
  }}
}}
"#
    )
}

/// `--print-config`: the snippet whose command repeats the settings given
/// with it (store paths made absolute: Claude Code runs the hook in the
/// project's folder).
pub fn print_config(args: &StoreArgs) -> String {
    let mut words: Vec<String> = ["hydra-session-lsp", "hook", "claude-code"]
        .map(String::from)
        .into();
    words.extend(crate::config::settings::command_args(&settings::requested(
        args,
    )));
    settings_snippet(&crate::config::settings::shell_line(&words))
}

const EVENT: &str = "UserPromptSubmit";

/// Claude Code keeps a hook's `additionalContext` in the model's context
/// up to this many characters; a longer one is saved to a file and the
/// model sees a 2 KB preview and the path instead (hooks reference: hook
/// output injected into context "is capped at 10,000 characters").
pub const CLAUDE_CODE_INLINE_CHARS: usize = 10_000;

/// Room kept per source for what a truncated source gets outside its
/// budget (reference.md §5a: `omitted` and the `fullSnapshot` locator
/// with its path).
const OUTSIDE_BUDGET: usize = 400;

/// The per-source budget (bytes of a data object) under which the whole
/// context of `sources` sources stays inline in Claude Code. Bytes bound
/// characters: a UTF-8 byte count is never below the UTF-16 length that
/// Claude Code measures.
pub fn inline_budget(sources: usize) -> usize {
    let frame = crate::reference::render::render_context(std::iter::empty::<&str>()).len();
    let sources = sources.max(1);
    let room = CLAUDE_CODE_INLINE_CHARS.saturating_sub(frame + sources - 1) / sources;
    room.saturating_sub(OUTSIDE_BUDGET).max(1)
}

/// What the hook read from stdin.
#[derive(Debug, PartialEq, Eq)]
struct HookInput {
    prompt: String,
    session_id: Option<String>,
}

/// What the hook answers.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// No references: nothing on stdout.
    Nothing,
    Context(String),
    Block(String),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextOutput<'a> {
    hook_specific_output: HookSpecificOutput<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HookSpecificOutput<'a> {
    hook_event_name: &'static str,
    additional_context: &'a str,
}

#[derive(Serialize)]
struct BlockOutput<'a> {
    decision: &'static str,
    reason: &'a str,
}

/// Runs the hook: settings, then stdin, then the answer. Returns the exit
/// status (1 only for a broken setting or input, which Claude Code shows
/// without blocking the prompt).
pub fn claude_code(args: &StoreArgs) -> i32 {
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
    let input = match parse_input(&bytes) {
        Ok(input) => input,
        Err(message) => return fail(&message),
    };
    drop(bytes);
    // Unless a budget is given, the context is sized to stay inline.
    let fixed_budget = args.max_reference_bytes.is_some();
    let written = match answer(&settings, &input, fixed_budget) {
        Outcome::Nothing => return OK,
        Outcome::Context(context) => serde_json::to_string(&ContextOutput {
            hook_specific_output: HookSpecificOutput {
                hook_event_name: EVENT,
                additional_context: &context,
            },
        }),
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

fn fail(message: &str) -> i32 {
    eprintln!("hydra-session-lsp hook claude-code: {message}");
    FAILED
}

/// The hook's JSON object: `prompt` (a string) is required; `session_id`
/// and `cwd` are strings when present; `hook_event_name`, when present,
/// must be `UserPromptSubmit`; other fields are ignored.
fn parse_input(bytes: &[u8]) -> Result<HookInput, String> {
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
    let session_id = string("session_id")?;
    // The target cwd: `prepare` ranks nothing and its result does not
    // depend on it (file mentions never change it), so it is only checked.
    string("cwd")?;
    if let Some(event) = string("hook_event_name")? {
        if event != EVENT {
            return Err(format!(
                "this hook answers {EVENT}, not {event:?} (see --print-config)"
            ));
        }
    }
    Ok(HookInput { prompt, session_id })
}

/// Parses first: a prompt without mentions never touches the stores.
fn answer(settings: &Settings, input: &HookInput, fixed_budget: bool) -> Outcome {
    // Every mention, bare or not, holds the scheme.
    if memchr::memmem::find(input.prompt.as_bytes(), b"hydra-session:").is_none() {
        return Outcome::Nothing;
    }
    match context(settings, input, fixed_budget) {
        Ok(Some(context)) => Outcome::Context(context),
        Ok(None) => Outcome::Nothing,
        Err(e) => Outcome::Block(e.message),
    }
}

fn context(
    settings: &Settings,
    input: &HookInput,
    fixed_budget: bool,
) -> Result<Option<String>, ReferenceError> {
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
    if !fixed_budget {
        options.max_reference_bytes = BudgetSetting::Fixed(inline_budget(sources));
    }
    let store = settings.open_store(Scan::HeadersOnly);
    // The hook is `prepare`'s host inside Claude Code: a truncated source
    // is spilled where `prepare` would spill it, so the agent can read the
    // whole snapshot with its own tools.
    let spill = settings::resolve_spill(&SpillArgs::default())?;
    let spill = spill.as_ref().map(|s| s as &dyn SpillStore);
    let prepared = prepare(
        parsed.text,
        &parsed.references,
        options,
        &store,
        spill,
        &|| false,
    )?;
    let context = prepared.context_text();
    if let Some(text) = &context {
        let length = text.encode_utf16().count();
        if length > CLAUDE_CODE_INLINE_CHARS {
            eprintln!(
                "hydra-session-lsp hook claude-code: warning: the context has {length} characters; \
                 Claude Code keeps {CLAUDE_CODE_INLINE_CHARS} inline and shows the model a preview of the rest"
            );
        }
    }
    Ok(context)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_needs_an_object_with_a_prompt() {
        assert!(parse_input(b"not json").is_err());
        assert!(parse_input(b"[1]").is_err());
        assert!(parse_input(b"{}").is_err());
        assert!(parse_input(br#"{"prompt":3}"#).is_err());
        assert!(parse_input(br#"{"prompt":"x","hook_event_name":"Stop"}"#).is_err());
        assert_eq!(
            parse_input(
                br#"{"prompt":"x","session_id":"s","cwd":null,"permission_mode":"default"}"#
            ),
            Ok(HookInput {
                prompt: "x".into(),
                session_id: Some("s".into()),
            })
        );
    }

    #[test]
    fn the_inline_budget_leaves_room_for_the_frame_and_every_source() {
        let frame = crate::reference::render::render_context(std::iter::empty::<&str>()).len();
        for sources in 1..=3 {
            let budget = inline_budget(sources);
            let worst = frame + sources * (budget + OUTSIDE_BUDGET) + sources - 1;
            assert!(worst <= CLAUDE_CODE_INLINE_CHARS, "{sources}: {worst}");
            assert!(budget > 2_000, "{sources}: {budget}");
        }
    }

    #[test]
    fn the_settings_snippet_is_json() {
        let text = settings_snippet("a \"quoted\" 'command'");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
            "a \"quoted\" 'command'"
        );
    }
}
