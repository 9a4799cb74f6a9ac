//! `hook … --print-config`: the snippet that installs the hook.
//!
//! Claude Code reads it from `~/.claude/settings.json`; Codex from
//! `~/.codex/hooks.json`; Qwen Code from `~/.qwen/settings.json`; Gemini
//! CLI from `~/.gemini/settings.json`, all in the same shape:
//! `hooks.<event>` is a list of matcher groups, each with `hooks`, a list
//! of `{"type":"command", "command", "timeout"}` handlers (Codex's
//! `HooksFile` and `HookHandlerConfig` in openai/codex
//! `codex-rs/config/src/hook_config.rs`, where `timeout` is in seconds;
//! Gemini CLI's is in milliseconds, [`Host::timeout`]). All run the
//! command through a shell. Copilot CLI's hook files are another shape
//! ([`copilot_snippet`]).

use super::host::Host;
use crate::cli::args::StoreArgs;
use crate::cli::settings::requested;
use crate::config::settings;

/// The snippet that installs the hook running `command` on `event`.
fn snippet(event: &str, command: &str, timeout: u64) -> String {
    let command = serde_json::to_string(command).unwrap_or_default();
    format!(
        r#"{{
  "hooks": {{
    {event:?}: [
      {{
        "hooks": [
          {{
            "type": "command",
            "command": {command},
            "timeout": {timeout}
          }}
        ]
      }}
    ]
  }}
}}
"#
    )
}

/// Copilot CLI's hook file, `*.json` in its user-level hooks folder
/// (`~/.copilot/hooks/`) or a repository's `.github/hooks/`: version 1,
/// and under each camelCase event a list of `{"type":"command", "bash",
/// "timeoutSec"}` handlers (GitHub's Copilot CLI hooks reference); `bash`
/// is run through a shell.
fn copilot_snippet(event: &str, command: &str, timeout: u64) -> String {
    let command = serde_json::to_string(command).unwrap_or_default();
    format!(
        r#"{{
  "version": 1,
  "hooks": {{
    {event:?}: [
      {{
        "type": "command",
        "bash": {command},
        "timeoutSec": {timeout}
      }}
    ]
  }}
}}
"#
    )
}

/// The snippet whose command repeats the settings given with it (store
/// paths made absolute: the agents run the hook in the project's folder).
pub fn print_config(host: Host, args: &StoreArgs) -> String {
    let mut words: Vec<String> = vec!["hydra-session-lsp".into(), "hook".into()];
    words.push(host.command().to_string());
    words.extend(settings::command_args(&requested(args)));
    let command = settings::shell_line(&words);
    match host {
        Host::Copilot => copilot_snippet(host.event(), &command, host.timeout()),
        _ => snippet(host.event(), &command, host.timeout()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_snippet_is_json() {
        let text = snippet("UserPromptSubmit", "a \"quoted\" 'command'", 30);
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
            "a \"quoted\" 'command'"
        );
    }

    #[test]
    fn copilot_gets_its_hook_file() {
        let text = copilot_snippet(Host::Copilot.event(), "a 'b'", Host::Copilot.timeout());
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["version"], 1);
        let handler = &value["hooks"]["userPromptSubmitted"][0];
        assert_eq!(handler["type"], "command");
        assert_eq!(handler["bash"], "a 'b'");
        assert_eq!(handler["timeoutSec"], 30);
    }

    #[test]
    fn gemini_gets_its_event_and_milliseconds() {
        let text = snippet(Host::Gemini.event(), "x", Host::Gemini.timeout());
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"],
            30_000
        );
    }
}
