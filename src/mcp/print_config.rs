//! `mcp --print-config CLIENT`: how each client adds this server, in the
//! form and file that client documents, with the flags given (store paths
//! made absolute: clients start the server in some other folder).

use serde_json::{json, Value};

use crate::config::mcp::McpRequest;
use crate::config::settings::{command_args, shell_line, spill_args};

const PROGRAM: &str = "hydra-session-lsp";
const NAME: &str = "hydra";

/// The tools a client may be told to run without asking: all four only
/// read sessions.
const TOOLS: [&str; 4] = [
    super::tools::LIST_SESSIONS,
    super::tools::SEARCH_SESSIONS,
    super::tools::READ_SESSION,
    super::tools::PREPARE,
];

/// What to print for `client` (one of [`crate::config::mcp::CLIENTS`]).
pub fn print_config(client: &str, request: &McpRequest) -> Option<String> {
    let args = server_args(request);
    Some(match client {
        "claude-code" => claude_code(&args),
        "codex" => codex(&args),
        "gemini" => trusted_settings("Gemini CLI", "~/.gemini/settings.json", "gemini -p", &args),
        "qwen-code" => qwen_code(&args),
        "opencode" => opencode_style(
            "~/.config/opencode/opencode.json",
            Some("https://opencode.ai/config.json"),
            &args,
        ),
        // Kilo reads kilo.json(c) and opencode.json(c) in its folder.
        "kilo" => opencode_style("~/.config/kilo/kilo.json", None, &args),
        "copilot-cli" => copilot_cli(&args),
        "cursor" => format!(
            "// In ~/.cursor/mcp.json (or .cursor/mcp.json in a project):\n{}\n",
            pretty(&json!({"mcpServers": {NAME: {"command": PROGRAM, "args": args}}}))
        ),
        "vscode" => format!(
            "// In .vscode/mcp.json (or the user configuration: MCP: Open User Configuration):\n{}\n",
            pretty(&json!({"servers": {NAME: {"type": "stdio", "command": PROGRAM, "args": args}}}))
        ),
        "zed" => format!(
            "// In Zed's settings.json (zed: open settings file):\n{}\n",
            pretty(&json!({"context_servers": {NAME: {"command": PROGRAM, "args": args, "env": {}}}}))
        ),
        "cline" => cline(&args),
        "crush" => format!(
            "// In ~/.config/crush/crush.json (or crush.json in a project):\n{}\n",
            pretty(&json!({"mcp": {NAME: {"type": "stdio", "command": PROGRAM, "args": args}}}))
        ),
        "goose" => goose(&args),
        "continue" => continue_dev(&args),
        _ => return None,
    })
}

/// `mcp` and the flags given, as the server's arguments.
fn server_args(request: &McpRequest) -> Vec<String> {
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
    if let Some(revision) = &request.protocol {
        args.push("--protocol".into());
        args.push(revision.clone());
    }
    args
}

/// The server's command line: the program, then `args`.
fn command(args: &[String]) -> Vec<String> {
    let mut command = vec![PROGRAM.to_string()];
    command.extend(args.iter().cloned());
    command
}

fn claude_code(args: &[String]) -> String {
    format!(
        "# Add the server for every project (drop --scope user for this one only):\n\
         claude mcp add --scope user {NAME} -- {}\n\
         # Let the model read sessions without asking each time: in ~/.claude/settings.json\n\
         {}\n",
        shell_line(&command(args)),
        pretty(&json!({"permissions": {"allow": ["mcp__hydra__read_session"]}}))
    )
}

fn codex(args: &[String]) -> String {
    format!(
        "# Either run:\n\
         codex mcp add {NAME} -- {}\n\
         # or add to ~/.codex/config.toml:\n\
         [mcp_servers.{NAME}]\n\
         command = {}\n\
         args = [{}]\n",
        shell_line(&command(args)),
        toml_string(PROGRAM),
        args.iter()
            .map(|a| toml_string(a))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Gemini CLI's and Qwen Code's `settings.json` (Qwen Code is Gemini CLI's
/// fork): both strip comments from it, so the comment that says what
/// `trust` grants sits on the line above it. Without `trust` their
/// headless mode (`-p`) leaves out every tool that would ask first.
fn trusted_settings(agent: &str, file: &str, headless: &str, args: &[String]) -> String {
    let json = pretty(&json!({"mcpServers": {NAME: {
        "command": PROGRAM,
        "args": args,
        "trust": true,
    }}}));
    let comment = format!(
        "// trust: {agent} runs this server's tools without asking for confirmation \
         (they only read sessions); without it `{headless}` offers none of them."
    );
    format!(
        "// In {file} (comments are allowed there):\n{}\n",
        comment_above(&json, "\"trust\": true", &comment)
    )
}

/// Qwen Code's: Gemini CLI's form, and two settings of its own. Qwen Code
/// 0.24 defers a server's tools behind its `tool_search` tool unless
/// `alwaysLoadTools` (four small tools are worth their place in every
/// request), and speaks MCP 2026-07-28 (`server/discover` first, falling
/// back to `initialize`) only with `"versionNegotiation": "auto"`.
fn qwen_code(args: &[String]) -> String {
    let text = trusted_settings("Qwen Code", "~/.qwen/settings.json", "qwen -p", args);
    let text = text.replacen(
        "\"trust\": true",
        "\"trust\": true,\n      \"versionNegotiation\": \"auto\"",
        1,
    );
    let text = text.replacen(
        "\"args\": [",
        "\"alwaysLoadTools\": true,\n      \"args\": [",
        1,
    );
    let text = comment_above(
        &text,
        "\"alwaysLoadTools\": true",
        "// alwaysLoadTools: the tools are offered to the model directly, not behind tool_search.",
    );
    let mut text = comment_above(
        &text,
        "\"versionNegotiation\"",
        "// versionNegotiation: MCP 2026-07-28 when the server speaks it, else the older handshake.",
    );
    // `comment_above` drops the last line end.
    text.push('\n');
    text
}

/// OpenCode's config (Kilo is its fork): `mcp` entries of type `local`,
/// the command and its arguments as one array. OpenCode runs MCP tools
/// without asking unless a `permission` rule says otherwise.
fn opencode_style(file: &str, schema: Option<&str>, args: &[String]) -> String {
    let mut config = json!({
        "mcp": {NAME: {"type": "local", "command": command(args), "enabled": true}},
    });
    if let (Some(schema), Some(object)) = (schema, config.as_object_mut()) {
        object.insert("$schema".into(), json!(schema));
    }
    format!(
        "// In {file} (comments are allowed there):\n{}\n",
        pretty(&config)
    )
}

/// Copilot CLI: its own `copilot mcp add`, or the entry it writes to
/// `~/.copilot/mcp-config.json` (`"tools": ["*"]`: every tool offered).
/// It approves read-only tools without asking, in `copilot -p` too, and
/// all four are annotated read-only: no permission flag is needed.
fn copilot_cli(args: &[String]) -> String {
    format!(
        "# Either run:\n\
         copilot mcp add {NAME} -- {}\n\
         # or add to ~/.copilot/mcp-config.json:\n\
         {}\n\
         # The tools are read-only: Copilot CLI runs them without asking (copilot -p too).\n",
        shell_line(&command(args)),
        pretty(&json!({"mcpServers": {NAME: {
            "type": "local",
            "command": PROGRAM,
            "args": args,
            "tools": ["*"],
        }}}))
    )
}

/// Cline's `cline_mcp_settings.json` (the extension's, or the Cline CLI's
/// under ~/.cline): `autoApprove` lists the tools it runs without asking.
fn cline(args: &[String]) -> String {
    format!(
        "// In cline_mcp_settings.json (Cline: MCP Servers, Configure; the Cline CLI's is\n\
         // ~/.cline/data/settings/cline_mcp_settings.json). autoApprove: the tools run\n\
         // without asking (they only read sessions).\n{}\n",
        pretty(&json!({"mcpServers": {NAME: {
            "command": PROGRAM,
            "args": args,
            "disabled": false,
            "autoApprove": TOOLS,
        }}}))
    )
}

/// Goose's `config.yaml`: an `extensions` entry of type `stdio`. Every
/// value is written as JSON, which YAML reads as the same value.
fn goose(args: &[String]) -> String {
    format!(
        "# In ~/.config/goose/config.yaml:\n\
         extensions:\n  {NAME}:\n    name: {NAME}\n    type: stdio\n    cmd: {}\n    args: {}\n    \
         description: \"Sessions of other AI agents, read-only\"\n    enabled: true\n    timeout: 300\n",
        json_inline(&json!(PROGRAM)),
        json_inline(&json!(args))
    )
}

/// Continue's `config.yaml`: an `mcpServers` list entry. Values as JSON,
/// which YAML reads as the same value.
fn continue_dev(args: &[String]) -> String {
    format!(
        "# In ~/.continue/config.yaml (or the config.yaml of your assistant):\n\
         mcpServers:\n  - name: {NAME}\n    command: {}\n    args: {}\n",
        json_inline(&json!(PROGRAM)),
        json_inline(&json!(args))
    )
}

/// `json` with a `// comment` line above the first line holding `needle`,
/// at that line's indent.
fn comment_above(json: &str, needle: &str, comment: &str) -> String {
    let mut out = String::new();
    let mut placed = false;
    for line in json.lines() {
        if !placed && line.contains(needle) {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push_str(indent);
            out.push_str(comment);
            out.push('\n');
            placed = true;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.pop();
    out
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn json_inline(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A TOML basic string: JSON's escapes are TOML's, but for DEL, which
/// TOML wants escaped too.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text)
        .unwrap_or_default()
        .replace('\u{7f}', "\\u007F")
}

#[cfg(test)]
mod tests;
