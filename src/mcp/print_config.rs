//! `mcp --print-config CLIENT`: how each client adds this server, with the
//! flags given (store paths made absolute: clients start the server in
//! some other folder).

use serde_json::json;

use crate::config::mcp::McpRequest;
use crate::config::settings::{command_args, shell_line, spill_args};

const PROGRAM: &str = "hydra-session-lsp";
const NAME: &str = "hydra";

/// What to print for `client` (one of [`crate::config::mcp::CLIENTS`]).
pub fn print_config(client: &str, request: &McpRequest) -> Option<String> {
    let mut args = vec!["mcp".to_string()];
    args.extend(command_args(&request.settings));
    args.extend(spill_args(&request.spill));
    if let Some(n) = request.limit {
        args.push("--limit".into());
        args.push(n.to_string());
    }
    if request.no_search_index {
        args.push("--no-search-index".into());
    }
    let mut command = vec![PROGRAM.to_string()];
    command.extend(args.iter().cloned());
    let line = shell_line(&command);
    Some(match client {
        "claude-code" => format!(
            "# Add the server for every project (drop --scope user for this one only):\n\
             claude mcp add --scope user {NAME} -- {line}\n\
             # Let the model read sessions without asking each time: in ~/.claude/settings.json\n\
             {}\n",
            pretty(&json!({"permissions": {"allow": ["mcp__hydra__read_session"]}}))
        ),
        "codex" => format!(
            "# Either run:\n\
             codex mcp add {NAME} -- {line}\n\
             # or add to ~/.codex/config.toml:\n\
             [mcp_servers.{NAME}]\n\
             command = {}\n\
             args = [{}]\n",
            toml_string(PROGRAM),
            args.iter().map(|a| toml_string(a)).collect::<Vec<_>>().join(", ")
        ),
        "gemini" | "cursor" => {
            let file = if client == "gemini" {
                "~/.gemini/settings.json"
            } else {
                "~/.cursor/mcp.json"
            };
            format!(
                "// In {file}:\n{}\n",
                pretty(&json!({"mcpServers": {NAME: {"command": PROGRAM, "args": args}}}))
            )
        }
        "vscode" => format!(
            "// In .vscode/mcp.json (or the user configuration: MCP: Open User Configuration):\n{}\n",
            pretty(&json!({"servers": {NAME: {"type": "stdio", "command": PROGRAM, "args": args}}}))
        ),
        "zed" => format!(
            "// In Zed's settings.json (zed: open settings file):\n{}\n",
            pretty(&json!({"context_servers": {NAME: {"command": PROGRAM, "args": args, "env": {}}}}))
        ),
        _ => return None,
    })
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A TOML basic string: JSON's escapes are TOML's, but for DEL, which
/// TOML wants escaped too.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text)
        .unwrap_or_default()
        .replace('\u{7f}', "\\u007F")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::settings::Requested;
    use crate::config::StoreEntry;

    fn request() -> McpRequest {
        McpRequest {
            settings: Requested {
                stores: vec![StoreEntry::new("/my sessions")],
                ..Requested::default()
            },
            limit: Some(100),
            ..McpRequest::default()
        }
    }

    #[test]
    fn every_client_gets_a_snippet() {
        for client in crate::config::mcp::CLIENTS {
            let text = print_config(client, &request()).unwrap();
            assert!(text.contains("/my sessions"), "{client}: {text}");
        }
        assert!(print_config("emacs", &request()).is_none());
    }

    #[test]
    fn claude_code_gets_the_command_and_the_permission_rule() {
        let text = print_config("claude-code", &request()).unwrap();
        assert!(text.contains(
            "claude mcp add --scope user hydra -- hydra-session-lsp mcp --store '/my sessions' --limit 100\n"
        ));
        assert!(text.contains("\"mcp__hydra__read_session\""));
    }

    #[test]
    fn json_snippets_parse_after_their_comment() {
        for client in ["gemini", "cursor", "vscode", "zed"] {
            let text = print_config(client, &request()).unwrap();
            let json = text.split_once('\n').unwrap().1;
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            let servers = &value[match client {
                "vscode" => "servers",
                "zed" => "context_servers",
                _ => "mcpServers",
            }];
            assert_eq!(servers["hydra"]["command"], "hydra-session-lsp", "{client}");
            assert_eq!(servers["hydra"]["args"][0], "mcp", "{client}");
        }
    }

    #[test]
    fn codex_gets_a_toml_table() {
        let text = print_config("codex", &request()).unwrap();
        assert!(text.contains("[mcp_servers.hydra]\ncommand = \"hydra-session-lsp\"\nargs = [\"mcp\", \"--store\", \"/my sessions\", \"--limit\", \"100\"]\n"), "{text}");
        assert_eq!(toml_string("a\u{7f}\"b"), "\"a\\u007F\\\"b\"");
    }
}
