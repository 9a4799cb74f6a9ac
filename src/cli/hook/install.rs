//! `hook … --print-config`: the snippet that installs the hook.
//!
//! Claude Code reads it from `~/.claude/settings.json`; Codex from
//! `~/.codex/hooks.json`, in the same shape: `hooks.UserPromptSubmit` is a
//! list of matcher groups, each with `hooks`, a list of `{"type":"command",
//! "command", "timeout"}` handlers (Codex's `HooksFile` and
//! `HookHandlerConfig` in openai/codex `codex-rs/config/src/hook_config.rs`,
//! where `timeout` is in seconds). Both run the command through a shell.

use super::host::Host;
use crate::cli::args::StoreArgs;
use crate::cli::settings::requested;
use crate::config::settings;

/// The snippet that installs the hook running `command`.
fn snippet(command: &str) -> String {
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

/// The snippet whose command repeats the settings given with it (store
/// paths made absolute: the agents run the hook in the project's folder).
pub fn print_config(host: Host, args: &StoreArgs) -> String {
    let mut words: Vec<String> = vec!["hydra-session-lsp".into(), "hook".into()];
    words.push(host.command().to_string());
    words.extend(settings::command_args(&requested(args)));
    snippet(&settings::shell_line(&words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_snippet_is_json() {
        let text = snippet("a \"quoted\" 'command'");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
            "a \"quoted\" 'command'"
        );
    }
}
