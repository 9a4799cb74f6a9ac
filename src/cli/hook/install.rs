//! `hook … --print-config`: the snippet that installs the hook.
//!
//! Claude Code reads it from `~/.claude/settings.json`; Codex from
//! `~/.codex/hooks.json`, in the same shape: `hooks.UserPromptSubmit` is a
//! list of matcher groups, each with `hooks`, a list of `{"type":"command",
//! "command", "timeout"}` handlers (Codex's `HooksFile` and
//! `HookHandlerConfig` in openai/codex `codex-rs/config/src/hook_config.rs`,
//! where `timeout` is in seconds). Both run the command through a shell.

use super::host::Host;
use crate::cli::args::{Budget, StoreArgs};

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
    let mut command = format!("hydra-session-lsp hook {}", host.command());
    let base = crate::config::paths::current_dir();
    for (i, store) in args.store.iter().enumerate() {
        let path = crate::config::paths::resolve(store, &base);
        command.push_str(" --store ");
        command.push_str(&shell_word(&path.to_string_lossy()));
        if let Some(Some(format)) = args.store_formats.get(i) {
            command.push_str(" --format ");
            command.push_str(&shell_word(format));
        }
    }
    if let Some(n) = args.max_references {
        command.push_str(&format!(" --max-references {}", n.0));
    }
    match args.max_reference_bytes {
        Some(Budget::Bytes(n)) => command.push_str(&format!(" --max-reference-bytes {}", n.0)),
        Some(Budget::Auto) => command.push_str(" --max-reference-bytes auto"),
        None => {}
    }
    snippet(&command)
}

/// `word` as one word for `sh -c`.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
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

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(
            shell_word("/home/ana/.hydra/sessions"),
            "/home/ana/.hydra/sessions"
        );
        assert_eq!(shell_word("/My Sessions/it's"), r"'/My Sessions/it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
    }
}
