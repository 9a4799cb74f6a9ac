// The hydra MCP server for Copilot Chat (and any other MCP client inside VS
// Code): registered with `vscode.lm.registerMcpServerDefinitionProvider`, so
// a Copilot user gets the sessions with no configuration. It runs the same
// binary as the language server, as `<server> mcp`, with the same stores
// and limits.
import * as vscode from 'vscode';
import { expandPath } from './binary';
import { ServerSettings } from './settings';

/** The id the manifest's `contributes.mcpServerDefinitionProviders` declares. */
export const MCP_PROVIDER_ID = 'hydraSession.sessions';
const MCP_LABEL = 'Hydra Sessions';

/**
 * The `mcp` subcommand's arguments for the settings the language server
 * gets: the store (a path resolved as the server resolves it, since the MCP
 * server's current directory is not the workspace) and the limits. Unset
 * keys are left out, so the subcommand keeps its defaults.
 */
export function mcpArgs(settings: ServerSettings, workspaceFolder: string | undefined): string[] {
  const args = ['mcp'];
  if (typeof settings.store === 'string') {
    args.push('--store', expandPath(settings.store, workspaceFolder));
  }
  if (typeof settings.maxReferences === 'number') {
    args.push('--max-references', String(settings.maxReferences));
  }
  if (typeof settings.maxReferenceBytes === 'number' || settings.maxReferenceBytes === 'auto') {
    args.push('--max-reference-bytes', String(settings.maxReferenceBytes));
  }
  return args;
}

/**
 * What the provider publishes now: a command line (run in the first
 * workspace folder, when there is one), or nothing, and why.
 */
export type McpServer = { command: string; args: string[]; cwd?: string } | { off: string };

// The API is in VS Code 1.101 and later; the extension supports older ones,
// whose `vscode` module lacks these (the 1.82 typings do not declare them).
interface StdioDefinitionConstructor {
  new (label: string, command: string, args?: string[], env?: Record<string, string>, version?: string): {
    cwd?: vscode.Uri;
  };
}
interface McpApi {
  lm?: {
    registerMcpServerDefinitionProvider?: (
      id: string,
      provider: {
        onDidChangeMcpServerDefinitions?: vscode.Event<void>;
        provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
      },
    ) => vscode.Disposable;
  };
  McpStdioServerDefinition?: StdioDefinitionConstructor;
}

/**
 * Registers the provider when this VS Code has the API, else says so in the
 * output channel and does nothing. `current` is read each time VS Code asks;
 * `changed` tells when it may answer differently (a setting, the workspace
 * folders), and VS Code is told only when the answer really changed.
 * `version` (the extension's) is the definition's: a new one tells VS Code
 * the tools may have changed.
 */
export function registerMcpServer(
  current: () => McpServer,
  changed: vscode.Event<unknown>,
  version: string | undefined,
  log: (line: string) => void,
): vscode.Disposable[] {
  const api = vscode as unknown as McpApi;
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') {
    log(`MCP: this VS Code (${vscode.version}) has no vscode.lm.registerMcpServerDefinitionProvider (1.101 or later), so Copilot Chat gets no Hydra sessions from the extension`);
    return [];
  }
  const emitter = new vscode.EventEmitter<void>();
  let published = JSON.stringify(current());
  const onChange = changed(() => {
    const next = JSON.stringify(current());
    if (next !== published) {
      published = next;
      emitter.fire();
    }
  });
  let provider: vscode.Disposable;
  try {
    provider = register.call(api.lm, MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: emitter.event,
      provideMcpServerDefinitions: () => {
        const server = current();
        published = JSON.stringify(server);
        if ('off' in server) {
          log(`MCP: no server for Copilot Chat: ${server.off}`);
          return [];
        }
        const definition = new Definition(MCP_LABEL, server.command, server.args, {}, version);
        if (server.cwd !== undefined) {
          definition.cwd = vscode.Uri.file(server.cwd);
        }
        return [definition];
      },
    });
  } catch (e) {
    // A VS Code that has the API but refuses the provider (say, a fork
    // without the manifest's extension point) must not stop activation.
    log(`MCP: registering the server for Copilot Chat failed: ${String(e)}`);
    onChange.dispose();
    emitter.dispose();
    return [];
  }
  log(`MCP: registered "${MCP_LABEL}" (${MCP_PROVIDER_ID}) for Copilot Chat`);
  return [emitter, onChange, provider];
}
