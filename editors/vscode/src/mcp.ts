// The sessions for Copilot Chat: registers `hydra-session-lsp mcp` as an MCP
// server definition (VS Code 1.101 and later), so a Copilot user gets the
// sessions as resources and tools with no configuration. The setting
// `hydraSession.mcp.enabled` turns it off. Older editors lack the API: then
// nothing is registered.
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { ServerSettings } from './settings';

export const PROVIDER_ID = 'hydraSession.sessions';
const LABEL = 'Hydra sessions';

/** `~/x` under the home directory, a relative path under `base`. */
function absolute(p: string, base: string | undefined): string {
  if (p === '~' || p.startsWith('~/')) {
    return path.join(os.homedir(), p.slice(1));
  }
  if (path.isAbsolute(p) || base === undefined) {
    return p;
  }
  return path.join(base, p);
}

/**
 * The arguments of `hydra-session-lsp mcp` for the extension's settings:
 * the same store, self session, limits and spills as the language server
 * (paths made absolute against the first workspace folder, as the server
 * resolves them). Pure: runs without VS Code.
 */
export function mcpArgs(settings: ServerSettings, base: string | undefined): string[] {
  const args = ['mcp'];
  if (settings.store !== undefined) {
    args.push('--store', absolute(settings.store, base));
  }
  if (settings.targetSessionId !== undefined) {
    args.push('--self', settings.targetSessionId);
  }
  if (settings.maxReferences !== undefined) {
    args.push('--max-references', String(settings.maxReferences));
  }
  if (settings.maxReferenceBytes !== undefined) {
    args.push('--max-reference-bytes', String(settings.maxReferenceBytes));
  }
  if (settings.spillDir === '') {
    args.push('--no-spill');
  } else if (settings.spillDir !== undefined) {
    args.push('--spill-dir', absolute(settings.spillDir, base));
  }
  if (settings.spillMaxBytes !== undefined) {
    args.push('--spill-max-bytes', String(settings.spillMaxBytes));
  }
  return args;
}

/** The part of the API this needs, typed here: the extension builds against older types. */
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
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
  ) => unknown;
}

export interface McpSources {
  /** Whether `hydraSession.mcp.enabled` is on. */
  enabled(): boolean;
  /** The server binary, when one can be found. */
  command(): string | undefined;
  settings(): ServerSettings;
  base(): string | undefined;
  version: string;
}

/** Registers the provider when the editor has the API; whether it did. */
export function registerMcpProvider(context: vscode.ExtensionContext, section: string, sources: McpSources): boolean {
  const api = vscode as unknown as McpApi;
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (register === undefined || Definition === undefined) {
    return false;
  }
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    register.call(api.lm, PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const command = sources.command();
        if (!sources.enabled() || command === undefined) {
          return [];
        }
        const args = mcpArgs(sources.settings(), sources.base());
        // The version changes with the arguments: VS Code then offers to
        // refresh the server's tools.
        return [new Definition(LABEL, command, args, {}, `${sources.version}:${args.join(' ')}`)];
      },
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(section)) {
        changed.fire();
      }
    }),
  );
  return true;
}
