#!/usr/bin/env python3
"""Checks the manifest and contents of the VS Code extension's .vsix.

    python3 tests/editors/vsix_check.py editors/vscode/hydra-session.vsix

Prints "PASS vsix: ..." / "FAIL vsix: ..." lines; exits 1 on any failure.
"""
import json
import sys
import zipfile

failures = 0


def check(name, ok, why=""):
    global failures
    if ok:
        print(f"PASS vsix: {name}")
    else:
        failures += 1
        print(f"FAIL vsix: {name}: {why}")


def main(path):
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        main_js = "extension/" + manifest.get("main", "").removeprefix("./")
        if not main_js.endswith(".js"):
            main_js += ".js"
        server = z.getinfo("extension/server/hydra-session-lsp") if "extension/server/hydra-session-lsp" in names else None

    commands = {c["command"]: f'{c.get("category", "")}: {c["title"]}' for c in manifest.get("contributes", {}).get("commands", [])}
    want_commands = {
        "hydraSession.prepare": "Hydra: Prepare Referenced Context",
        "hydraSession.insertMention": "Hydra: Insert Session Mention",
        "hydraSession.restartServer": "Hydra: Restart Server",
        "hydraSession.copyMention": "Hydra: Copy Session Mention",
        "hydraSession.searchConversations": "Hydra: Search Conversations",
        "hydraSession.copyPreparedPrompt": "Hydra: Copy Prepared Prompt",
        "hydraSession.sendPreparedPrompt": "Hydra: Send Prepared Prompt to Terminal",
    }
    check("the commands with their titles", all(commands.get(k) == v for k, v in want_commands.items()), commands)

    props = manifest.get("contributes", {}).get("configuration", {}).get("properties", {})
    want_props = {
        "hydraSession.store": "string",
        "hydraSession.targetSessionId": "string",
        "hydraSession.maxReferences": "integer",
        "hydraSession.candidateLimit": "integer",
        "hydraSession.maxReferenceBytes": ["integer", "string"],
        "hydraSession.spillDir": ["string", "null"],
        "hydraSession.spillMaxBytes": "integer",
        "hydraSession.serverPath": "string",
        "hydraSession.mcpServer.enabled": "boolean",
        "hydraSession.trace.server": "string",
    }
    check("the settings mirror the server's, plus serverPath, mcpServer.enabled and trace.server",
          all(props.get(k, {}).get("type") == t for k, t in want_props.items()),
          {k: props.get(k) for k in want_props})
    mb = props.get("hydraSession.maxReferenceBytes", {})
    check("maxReferenceBytes defaults to auto, as the server does", mb.get("default") == "auto", mb)
    mr = props.get("hydraSession.maxReferences", {})
    check("maxReferences is bounded 1..3 with default 3",
          (mr.get("minimum"), mr.get("maximum"), mr.get("default")) == (1, 3, 3), mr)
    check("trace.server is off/messages/verbose",
          props.get("hydraSession.trace.server", {}).get("enum") == ["off", "messages", "verbose"],
          props.get("hydraSession.trace.server"))

    mcp_enabled = props.get("hydraSession.mcpServer.enabled", {})
    check("mcpServer.enabled defaults to true (Copilot Chat gets the sessions unasked)",
          mcp_enabled.get("default") is True, mcp_enabled)
    # vscode.lm.registerMcpServerDefinitionProvider requires the id in the
    # manifest; the extension registers "hydraSession.sessions".
    providers = manifest.get("contributes", {}).get("mcpServerDefinitionProviders", [])
    check("contributes the MCP server definition provider hydraSession.sessions, with a label",
          any(p.get("id") == "hydraSession.sessions" and p.get("label") for p in providers), providers)

    langs = {l["id"]: l for l in manifest.get("contributes", {}).get("languages", [])}
    prompt = langs.get("prompt", {})
    check("contributes the prompt language for *.prompt and *.prompt.md",
          {".prompt", ".prompt.md"} <= set(prompt.get("extensions", [])), langs)

    events = set(manifest.get("activationEvents", []))
    check("activates on Markdown and prompt", {"onLanguage:markdown", "onLanguage:prompt"} <= events, events)
    check("activates when VS Code asks for the MCP servers", "onMcpCollection:hydraSession.sessions" in events, events)

    check("the bundled entry point is in the package", main_js in names, f"{main_js} not in {sorted(names)}")
    check("no sources or node_modules in the package",
          not any(n.startswith(("extension/node_modules/", "extension/src/")) or n.endswith(".ts") for n in names),
          sorted(n for n in names if "node_modules" in n or n.endswith(".ts"))[:10])
    check("dependencies are bundled (vscode-languageclient inside dist)",
          manifest.get("dependencies", {}).get("vscode-languageclient") is not None, manifest.get("dependencies"))
    check("the server binary is bundled, executable",
          server is not None and server.file_size > 0 and (server.external_attr >> 16) & 0o111 == 0o111,
          sorted(names) if server is None else oct(server.external_attr >> 16))
    engines = manifest.get("engines", {}).get("vscode", "")
    check("engines.vscode is set", engines.startswith("^1."), engines)
    return failures


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]) else 0)
