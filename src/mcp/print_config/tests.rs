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

/// A snippet's JSON without its `//` comment lines, as the clients that
/// allow comments read it (no JSON line of ours starts with `//`).
fn json_of(text: &str) -> Value {
    let json: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn every_client_gets_a_snippet() {
    for client in crate::config::mcp::CLIENTS {
        let text = print_config(client, &request()).unwrap();
        assert!(text.contains("/my sessions"), "{client}: {text}");
        assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{client}");
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
fn json_snippets_parse_without_their_comments() {
    let args = json!(["mcp", "--store", "/my sessions", "--limit", "100"]);
    for (client, key) in [
        ("gemini", "mcpServers"),
        ("qwen-code", "mcpServers"),
        ("cursor", "mcpServers"),
        ("cline", "mcpServers"),
        ("vscode", "servers"),
        ("zed", "context_servers"),
        ("crush", "mcp"),
    ] {
        let value = json_of(&print_config(client, &request()).unwrap());
        let server = &value[key]["hydra"];
        assert_eq!(server["command"], "hydra-session-lsp", "{client}");
        assert_eq!(server["args"], args, "{client}");
    }
    for client in ["opencode", "kilo"] {
        let value = json_of(&print_config(client, &request()).unwrap());
        let server = &value["mcp"]["hydra"];
        assert_eq!(server["type"], "local", "{client}");
        assert_eq!(
            server["command"],
            json!([
                "hydra-session-lsp",
                "mcp",
                "--store",
                "/my sessions",
                "--limit",
                "100"
            ]),
            "{client}"
        );
    }
}

#[test]
fn qwen_loads_the_tools_and_negotiates_the_revision() {
    let text = print_config("qwen-code", &request()).unwrap();
    let hydra = &json_of(&text)["mcpServers"]["hydra"];
    assert_eq!(hydra["alwaysLoadTools"], true, "{text}");
    assert_eq!(hydra["versionNegotiation"], "auto", "{text}");
    assert_eq!(hydra["args"][0], "mcp", "{text}");
    assert!(text.contains("// alwaysLoadTools: "), "{text}");
    assert!(text.contains("// versionNegotiation: "), "{text}");
}

#[test]
fn gemini_and_qwen_trust_the_server_and_say_what_that_grants() {
    for (client, headless) in [("gemini", "gemini -p"), ("qwen-code", "qwen -p")] {
        let text = print_config(client, &request()).unwrap();
        assert_eq!(json_of(&text)["mcpServers"]["hydra"]["trust"], true);
        let lines: Vec<_> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("\"trust\": true"))
            .unwrap();
        assert!(
            lines[at - 1].trim_start().starts_with("// trust: "),
            "{text}"
        );
        assert!(lines[at - 1].contains("without asking"), "{text}");
        assert!(lines[at - 1].contains(headless), "{text}");
    }
}

#[test]
fn copilot_cli_gets_its_command_and_the_file() {
    let text = print_config("copilot-cli", &request()).unwrap();
    assert!(text.contains(
        "copilot mcp add hydra -- hydra-session-lsp mcp --store '/my sessions' --limit 100\n"
    ));
    let json: String = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("copilot "))
        .map(|l| format!("{l}\n"))
        .collect();
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["mcpServers"]["hydra"]["type"], "local");
    assert_eq!(value["mcpServers"]["hydra"]["tools"], json!(["*"]));
    assert!(text.contains("read-only"), "{text}");
}

#[test]
fn cline_auto_approves_every_tool() {
    let value = json_of(&print_config("cline", &request()).unwrap());
    let approved = &value["mcpServers"]["hydra"]["autoApprove"];
    assert_eq!(
        approved,
        &json!([
            "list_sessions",
            "search_sessions",
            "read_session",
            "prepare"
        ])
    );
    let names: Vec<_> = super::super::tools::definitions()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(approved.as_array().unwrap().len(), names.len());
}

#[test]
fn yaml_snippets_hold_json_values() {
    let args = "[\"mcp\",\"--store\",\"/my sessions\",\"--limit\",\"100\"]";
    let goose = print_config("goose", &request()).unwrap();
    assert!(goose.contains("extensions:\n  hydra:\n    name: hydra\n    type: stdio\n    cmd: \"hydra-session-lsp\"\n"), "{goose}");
    assert!(goose.contains(&format!("    args: {args}\n")), "{goose}");
    let cont = print_config("continue", &request()).unwrap();
    assert!(
        cont.contains("mcpServers:\n  - name: hydra\n    command: \"hydra-session-lsp\"\n"),
        "{cont}"
    );
    assert!(cont.contains(&format!("    args: {args}\n")), "{cont}");
}

#[test]
fn codex_gets_a_toml_table() {
    let text = print_config("codex", &request()).unwrap();
    assert!(text.contains("[mcp_servers.hydra]\ncommand = \"hydra-session-lsp\"\nargs = [\"mcp\", \"--store\", \"/my sessions\", \"--limit\", \"100\"]\n"), "{text}");
    assert_eq!(toml_string("a\u{7f}\"b"), "\"a\\u007F\\\"b\"");
}
