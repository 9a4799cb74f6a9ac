//! The resource template `session:{slug}/{id}` and `completion/complete`
//! over its arguments — offered only to the clients seen to attach a URI
//! they were not given in a list.
//!
//! Seen in the agents' own source and runs (docs/mcp.md): Qwen Code 0.24
//! reads whatever `@<server>:<uri>` a person types (a templated URI
//! included); Gemini CLI 0.61 attaches only URIs it listed; Claude Code
//! 2.1.332 completes templates to URIs it then never attaches; OpenCode
//! 1.18 attaches only what its TUI's `@` menu listed (`opencode run`
//! attaches none); Copilot CLI 1.0.102 was not seen attaching any. The clients are told apart
//! by `clientInfo.name` (the handshake's, or a 2026-07-28 request's
//! `_meta`).

use rmcp::model::{CompletionInfo, ResourceTemplate};

use super::resources::MIME_TYPE;
use super::sessions::Sessions;
use super::uri;
use crate::live::View;

/// The template's URI: the form of every listed resource.
pub const TEMPLATE: &str = "session:{slug}/{id}";

/// How the clients that attach templated URIs begin their
/// `clientInfo.name`: Qwen Code names its client for each server,
/// `qwen-cli-mcp-client-<server>` (`-hydra` as printed).
const ATTACHING_CLIENTS: &[&str] = &["qwen-cli-mcp-client"];

/// Whether the client named `name` is offered the template.
pub fn offered_to(name: Option<&str>) -> bool {
    name.is_some_and(|n| ATTACHING_CLIENTS.iter().any(|prefix| n.starts_with(prefix)))
}

pub fn template() -> ResourceTemplate {
    ResourceTemplate::new(TEMPLATE, "session")
        .with_title("An AI agent session")
        .with_description(
            "A session by its title's slug and its id; the slug is for people, the id finds it",
        )
        .with_mime_type(MIME_TYPE)
}

/// At most this many sessions are matched for one completion.
const COMPLETIONS: u64 = 100;

/// The completions of `argument` (`slug` or `id`) for what was typed,
/// `value`, matched against titles, folders and ids (the live index's
/// candidates); for `id`, the `slug` already chosen narrows them.
pub fn complete(
    sessions: &Sessions,
    view: &View,
    cwd: Option<&str>,
    argument: &str,
    value: &str,
    slug: Option<&str>,
) -> CompletionInfo {
    let Ok(listed) = sessions.list(view, cwd, value, COMPLETIONS) else {
        return CompletionInfo::default();
    };
    let mut values: Vec<String> = Vec::new();
    for l in &listed {
        let Some((listed_slug, key)) = l
            .uri
            .strip_prefix(uri::SCHEME)
            .and_then(|rest| rest.split_once('/'))
        else {
            continue;
        };
        let value = match argument {
            "slug" => listed_slug,
            "id" if slug.is_none_or(|s| s == listed_slug) => key,
            _ => continue,
        };
        if !values.iter().any(|v| v == value) {
            values.push(value.to_string());
        }
    }
    values.truncate(CompletionInfo::MAX_VALUES);
    CompletionInfo::new(values).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_clients_seen_attaching_get_the_template() {
        assert!(offered_to(Some("qwen-cli-mcp-client-hydra")));
        for name in ["claude-code", "gemini-cli-mcp-client", "opencode", "qwen"] {
            assert!(!offered_to(Some(name)), "{name}");
        }
        assert!(!offered_to(None));
        assert_eq!(template().uri_template, TEMPLATE);
    }
}
