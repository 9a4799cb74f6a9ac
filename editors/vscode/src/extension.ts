// Hydra Session References for VS Code: starts `hydra-session-lsp --stdio`
// for Markdown and prompt files and adds the commands around its custom
// requests (docs/lsp-extensions.md, server.md "Custom requests").
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { Resolved, resolveServer } from './binary';
import { McpServer, mcpArgs, registerMcpServer } from './mcp';
import * as ext from './lsp_ext';
import { asTerminalPaste, candidateDescription } from './render';
import { pickSearchHit } from './search';
import { ServerSettings, serverSettings } from './settings';

const SECTION = 'hydraSession';
const CONTEXT_SCHEME = 'hydra-context';
const STATUS_REFRESH_MS = 15_000;
const INDEXING_REFRESH_MS = 500;

const selector = [
  { scheme: 'file', language: 'markdown' },
  { scheme: 'untitled', language: 'markdown' },
  { scheme: 'file', language: 'prompt' },
  { scheme: 'untitled', language: 'prompt' },
];

/** All the extension holds between calls: one object, set up by `activate`. */
interface ClientState {
  client?: LanguageClient;
  /** The team store the last "Publish Session to Team Store" used (offered again). */
  lastTeamStore?: string;
  output?: vscode.OutputChannel;
  statusItem?: vscode.StatusBarItem;
  statusTimer?: NodeJS.Timeout;
  indexingTimer?: NodeJS.Timeout;
  extensionDir: string;
  globalState?: vscode.Memento;
  warnedServerPath: boolean;
  /** The binary the running client was started with. */
  startedCommand?: string;
  /**
   * Starts, stops, restarts and settings changes run one after another.
   * While a restart stops the old client no client is current, and a
   * settings change seen then would start a second server beside the
   * restart's own.
   */
  lifecycle: Promise<void>;
}
const state: ClientState = { extensionDir: '', warnedServerPath: false, lifecycle: Promise.resolve() };

/** The output channel (a no-op before activation). */
function log(line: string): void {
  state.output?.appendLine(line);
}
const SERVER_PATH_QUIET = 'hydraSession.serverPathNoticeDismissed';
const contexts = new Map<string, string>();
const contextChanged = new vscode.EventEmitter<vscode.Uri>();

function currentSettings(scope?: vscode.Uri): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return serverSettings((key) => config.get(key));
}

function firstWorkspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function configuredServerPath(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('serverPath') ?? '';
}

/** The binary `serverPath` (or its fallback) names now, if any. */
function serverCommand(): string | undefined {
  try {
    return resolveServer(configuredServerPath(), firstWorkspaceFolder(), state.extensionDir).command;
  } catch {
    return undefined;
  }
}

async function startClient(): Promise<void> {
  const setting = configuredServerPath();
  let command: string;
  state.startedCommand = undefined;
  try {
    const resolved = resolveServer(setting, firstWorkspaceFolder(), state.extensionDir);
    command = resolved.command;
    state.startedCommand = command;
    log(
      `Starting ${command} --stdio (from ${resolved.from}` +
        `${vscode.env.remoteName !== undefined ? `, remote window: ${vscode.env.remoteName}` : ''})`,
    );
    void warnIfServerPathIgnored(resolved);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    log(message);
    setStatus('$(error) Hydra', `Hydra: ${message}`);
    // Not awaited: activation must not wait for the user to dismiss it.
    void vscode.window.showErrorMessage(`Hydra: ${message}`, 'Open Settings').then((open) => {
      if (open !== undefined) {
        void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.serverPath`);
      }
    });
    return;
  }

  // `TransportKind.stdio` appends `--stdio` to the arguments.
  const serverOptions: ServerOptions = { command, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: selector,
    initializationOptions: { hydraSession: currentSettings() },
    outputChannel: state.output,
    traceOutputChannel: state.output,
    middleware: {
      workspace: {
        // The server pulls section `hydraSession` when a configuration change
        // carries no settings: answer with the server's keys only, as sent.
        configuration: async (params, token, next) => {
          const answer = await next(params, token);
          if (!Array.isArray(answer)) {
            return answer;
          }
          return params.items.map((item, i) => {
            if (item.section !== SECTION) {
              return answer[i];
            }
            return currentSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined);
          });
        },
      },
    },
  };
  const c = new LanguageClient(SECTION, 'Hydra Session', serverOptions, clientOptions);
  state.client = c;
  c.onDidChangeState((e) => {
    if (e.newState === State.Running) {
      void refreshStatus();
    } else if (e.newState === State.Stopped) {
      setStatus('$(debug-disconnect) Hydra', 'Hydra: the server is stopped. Click to restart.', 'hydraSession.restartServer');
    }
  });
  setStatus('$(sync~spin) Hydra', 'Hydra: starting the server');
  try {
    await c.start();
  } catch (e) {
    log(`The server failed to start: ${String(e)}`);
  }
}

/**
 * Says once, visibly, when the binary in use is not one that
 * `hydraSession.serverPath` names: it is `machine-overridable`, so a remote
 * window (code-server, Remote-SSH, WSL, Dev Containers, Codespaces) reads it
 * from the Remote settings (or the workspace), never from the User settings;
 * and a path that names no executable file here falls back to the PATH or the
 * bundled binary rather than leaving the user without a server.
 */
async function warnIfServerPathIgnored(resolved: Resolved): Promise<void> {
  const { command, from, unusableSetting } = resolved;
  if (from === 'setting' || state.warnedServerPath) {
    return;
  }
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<string>('serverPath');
  const configured =
    unusableSetting !== undefined ||
    [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue].some(
      (v) => typeof v === 'string' && v.trim() !== '',
    );
  const remote = vscode.env.remoteName !== undefined;
  if (!configured && !remote) {
    return;
  }
  if (!configured && state.globalState?.get<boolean>(SERVER_PATH_QUIET) === true) {
    return;
  }
  state.warnedServerPath = true;
  const where = from === 'path' ? 'from the PATH' : 'bundled with the extension';
  const remoteHint = remote
    ? ` In this remote window (${vscode.env.remoteName}), hydraSession.serverPath is read from the Remote settings, not from your User settings.`
    : '';
  const message =
    unusableSetting !== undefined
      ? `Hydra: ${unusableSetting}, so it is not used here; running ${command} (${where}).${remoteHint}`
      : configured
        ? `Hydra: hydraSession.serverPath is set but not used here; running ${command} (${where}).${remoteHint}`
        : `Hydra: running ${command} (${where}).${remoteHint}`;
  const openRemote = 'Open Remote Settings';
  const quiet = "Don't Show Again";
  const choice = await vscode.window.showWarningMessage(message, openRemote, ...(configured ? [] : [quiet]));
  if (choice === openRemote) {
    await vscode.commands.executeCommand('workbench.action.openRemoteSettings').then(undefined, () =>
      vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.serverPath`),
    );
  } else if (choice === quiet) {
    await state.globalState?.update(SERVER_PATH_QUIET, true);
  }
}

async function stopClient(): Promise<void> {
  const c = state.client;
  state.client = undefined;
  if (c !== undefined) {
    try {
      if (c.isRunning()) {
        await c.stop(2000);
      }
    } catch (e) {
      log(`Stopping the server: ${String(e)}`);
    }
    await c.dispose().catch(() => undefined);
  }
}

/** Runs `step` after every lifecycle step queued before it (see `ClientState.lifecycle`). */
function serialized(step: () => Promise<void>): Promise<void> {
  const run = state.lifecycle.then(step, step);
  state.lifecycle = run.catch(() => undefined);
  return run;
}

async function restartClient(): Promise<void> {
  return serialized(async () => {
    await stopClient();
    await startClient();
  });
}

function runningClient(): LanguageClient | undefined {
  if (state.client === undefined || !state.client.isRunning()) {
    void vscode.window.showWarningMessage('Hydra: the server is not running. Run "Hydra: Restart Server".');
    return undefined;
  }
  return state.client;
}

/** The active prompt's editor and the running client, or undefined after telling the user why not. */
function promptAndClient(): { editor: vscode.TextEditor; client: LanguageClient } | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showWarningMessage('Hydra: open a prompt first.');
    return undefined;
  }
  const running = runningClient();
  return running === undefined ? undefined : { editor, client: running };
}

function describeError(e: unknown): string {
  if (e instanceof ResponseError) {
    const data = e.data as { code?: string } | undefined;
    return data?.code !== undefined ? `${e.message} (${data.code})` : e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

// ---- status bar -----------------------------------------------------------

function setStatus(text: string, tooltip: string, command = 'hydraSession.insertMention'): void {
  const item = state.statusItem;
  if (item === undefined) {
    return;
  }
  item.text = text;
  item.tooltip = tooltip;
  item.command = command;
  item.show();
}

async function refreshStatus(): Promise<void> {
  const c = state.client;
  if (c === undefined || !c.isRunning()) {
    return;
  }
  try {
    const status = await c.sendRequest(ext.status, {});
    // While the first index is built, look again soon rather than at the
    // next periodic refresh.
    clearTimeout(state.indexingTimer);
    if (status.indexing) {
      state.indexingTimer = setTimeout(() => void refreshStatus(), INDEXING_REFRESH_MS);
    }
    // Until the first index is done the count is not the store's: say so.
    const count = `${status.sessions} session${status.sessions === 1 ? '' : 's'}`;
    setStatus(
      status.indexing ? '$(sync~spin) Hydra: indexing…' : `$(references) Hydra: ${count}`,
      status.indexing
        ? `Hydra: indexing ${status.store} (${count} so far)`
        : `Hydra: ${count} in ${status.store}\nClick to insert a session mention.`,
    );
  } catch (e) {
    setStatus('$(warning) Hydra', `Hydra: ${describeError(e)}`);
  }
}

// ---- settings -------------------------------------------------------------

async function onConfigurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
  if (!e.affectsConfiguration(SECTION)) {
    return;
  }
  // After any start or restart under way: it decides which client is current.
  return serialized(() => applyConfigurationChange(e));
}

async function applyConfigurationChange(e: vscode.ConfigurationChangeEvent): Promise<void> {
  // A new serverPath restarts the server only when it names another binary:
  // a remote window may first see the User settings' value, then none, and
  // both can resolve to the bundled server. Any other change, a cleared
  // setting included (sent as `null`), is an update.
  const otherBinary = e.affectsConfiguration(`${SECTION}.serverPath`) && serverCommand() !== state.startedCommand;
  if (otherBinary || state.client === undefined) {
    await stopClient();
    await startClient();
    return;
  }
  if (!state.client.isRunning()) {
    return;
  }
  await state.client.sendNotification(DidChangeConfigurationNotification.type, {
    settings: { hydraSession: currentSettings() },
  });
  void refreshStatus();
}

// ---- commands -------------------------------------------------------------

async function prepareCommand(): Promise<void> {
  const target = promptAndClient();
  if (target === undefined) {
    return;
  }
  const { editor, client: c } = target;
  const doc = editor.document;
  let text: string | null | undefined;
  try {
    // What to show is the server's: the context, then its statistics table.
    const result = await c.sendRequest(ext.prepareMarkdown, {
      textDocument: { uri: c.code2ProtocolConverter.asUri(doc.uri) },
      format: 'markdown',
    });
    text = result.markdown;
  } catch (e) {
    void vscode.window.showErrorMessage(`Hydra: ${describeError(e)}`);
    return;
  }
  if (text === undefined || text === null) {
    void vscode.window.showInformationMessage('Hydra: this prompt references no session.');
    return;
  }
  const name = path.basename(doc.uri.path || 'prompt').replace(/\.md$/, '');
  const uri = vscode.Uri.from({
    scheme: CONTEXT_SCHEME,
    path: `/${name} (referenced context).md`,
    query: doc.uri.toString(),
  });
  contexts.set(uri.toString(), text);
  contextChanged.fire(uri);
  const view = await vscode.workspace.openTextDocument(uri);
  if (view.languageId !== 'markdown') {
    await vscode.languages.setTextDocumentLanguage(view, 'markdown');
  }
  await vscode.window.showTextDocument(view, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: true,
    preview: true,
  });
}

/** The active prompt as an agent reading plain text receives it: the server's text form (`prepare --format text`). */
async function preparedText(): Promise<string | undefined> {
  const target = promptAndClient();
  if (target === undefined) {
    return undefined;
  }
  const { editor, client: c } = target;
  try {
    const result = await c.sendRequest(ext.prepareText, {
      textDocument: { uri: c.code2ProtocolConverter.asUri(editor.document.uri) },
      format: 'text',
    });
    return result.text;
  } catch (e) {
    void vscode.window.showErrorMessage(`Hydra: ${describeError(e)}`);
    return undefined;
  }
}

async function copyPreparedPromptCommand(): Promise<void> {
  const text = await preparedText();
  if (text === undefined) {
    return;
  }
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage('Hydra: copied the prepared prompt (context and text) to the clipboard.');
}

async function sendPreparedPromptCommand(): Promise<void> {
  const terminal = vscode.window.activeTerminal;
  if (terminal === undefined) {
    void vscode.window.showWarningMessage('Hydra: no active terminal. Open one and start your agent (claude, codex) in it.');
    return;
  }
  const text = await preparedText();
  if (text === undefined) {
    return;
  }
  terminal.show();
  // Pasted, not submitted: the person reviews it and presses Enter.
  terminal.sendText(asTerminalPaste(text), false);
}

interface CandidateItem extends vscode.QuickPickItem {
  candidate?: ext.PickerCandidate;
  /** Mentioning it would make the prompt reference more than maxReferences sessions. */
  overLimit?: boolean;
}

const COPY_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('copy'), tooltip: 'Copy Mention' };
/** The mention picker's switch to its full-text mode, carrying what was typed. */
const SEARCH_BUTTON: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('search'),
  tooltip: 'Search Conversations (what was said)',
};

async function copyMention(mention: string): Promise<void> {
  await vscode.env.clipboard.writeText(mention);
  void vscode.window.showInformationMessage(`Hydra: copied ${mention}`);
}

async function copyMentionCommand(): Promise<void> {
  return insertMentionCommand(true);
}

async function insertMentionCommand(copyOnly = false): Promise<void> {
  const target = promptAndClient();
  if (target === undefined) {
    return;
  }
  const { editor, client: c } = target;
  const doc = editor.document;
  // A `@query` typed just before the cursor is replaced by the mention.
  const typed = await typedQuery(c, editor);

  const pick = vscode.window.createQuickPick<CandidateItem>();
  pick.title = copyOnly ? 'Hydra: Copy Session Mention' : 'Hydra: Insert Session Mention';
  pick.placeholder = 'Search sessions by title, id or folder';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.value = typed?.query ?? '';
  let generation = 0;
  const load = async (query: string): Promise<void> => {
    const mine = ++generation;
    pick.busy = true;
    try {
      // The picker's own request: the candidates plus the mention to insert.
      const candidates = await c.sendRequest(ext.pickCandidates, {
        textDocument: { uri: c.code2ProtocolConverter.asUri(doc.uri) },
        query,
      });
      if (mine !== generation) {
        return;
      }
      // The server's detail (agent, place, age) and its word on the
      // reference limit; those over it come last, as the server orders them.
      const toItem = (candidate: ext.PickerCandidate): CandidateItem => ({
        label: `${candidate.overLimit ? '$(error) ' : ''}${candidate.displayTitle ?? candidate.label}`,
        description: candidateDescription(candidate),
        detail: candidate.detail,
        buttons: [COPY_BUTTON],
        candidate,
        overLimit: candidate.overLimit,
      });
      const within = candidates.filter((c) => !c.overLimit);
      const over = candidates.filter((c) => c.overLimit);
      pick.items = [
        ...within.map(toItem),
        ...(over.length > 0 ? [{ label: 'over maxReferences', kind: vscode.QuickPickItemKind.Separator }] : []),
        ...over.map(toItem),
      ];
    } catch (e) {
      if (mine === generation) {
        pick.items = [];
        void vscode.window.showErrorMessage(`Hydra: ${describeError(e)}`);
      }
    } finally {
      if (mine === generation) {
        pick.busy = false;
      }
    }
  };
  let debounce: NodeJS.Timeout | undefined;
  pick.onDidChangeValue((value) => {
    clearTimeout(debounce);
    debounce = setTimeout(() => void load(value), 120);
  });
  let copied = false;
  let toSearch = false;
  if (!copyOnly) {
    pick.buttons = [SEARCH_BUTTON];
  }
  const chosen = await new Promise<ext.PickerCandidate | undefined>((resolve) => {
    pick.onDidTriggerButton(() => {
      toSearch = true;
      resolve(undefined);
      pick.hide();
    });
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      // Copying a mention adds nothing to this prompt: no limit applies.
      if (item?.overLimit === true && !copyOnly) {
        void vscode.window.showWarningMessage(
          'Hydra: this prompt already references as many sessions as hydraSession.maxReferences allows.',
        );
        return;
      }
      resolve(item?.candidate);
      pick.hide();
    });
    // "Copy Mention" on an item: to the clipboard, nothing inserted.
    pick.onDidTriggerItemButton((e) => {
      copied = true;
      resolve(e.item.candidate);
      pick.hide();
    });
    pick.onDidHide(() => resolve(undefined));
    pick.show();
    void load(pick.value);
  });
  clearTimeout(debounce);
  const typedValue = pick.value;
  pick.dispose();
  if (toSearch) {
    const hit = await pickSearchHit(c, c.code2ProtocolConverter.asUri(doc.uri), typedValue, describeError);
    if (hit !== undefined) {
      await insertAt(editor, typed, hit.insertText);
    }
    return;
  }
  if (chosen === undefined) {
    return;
  }
  // The server's one-line mention: the editor never computes one.
  const mention = chosen.insertText;
  if (copied || copyOnly) {
    await copyMention(mention);
    return;
  }
  await insertAt(editor, typed, mention);
}

interface Typed {
  range: vscode.Range;
  query: string;
}

/**
 * The `@query` typed just before the cursor, which a picked mention
 * replaces: the server finds it (its completion rule) and names its range
 * on each candidate; any session will do to learn it, hence `query: ''`.
 */
async function typedQuery(c: LanguageClient, editor: vscode.TextEditor): Promise<Typed | undefined> {
  if (!editor.selection.isEmpty) {
    return undefined;
  }
  try {
    const answer = await c.sendRequest(ext.pickCandidates, {
      textDocument: { uri: c.code2ProtocolConverter.asUri(editor.document.uri) },
      query: '',
      position: c.code2ProtocolConverter.asPosition(editor.selection.active),
    });
    const range = answer[0]?.range;
    if (range === undefined) {
      return undefined;
    }
    const r = c.protocol2CodeConverter.asRange(range);
    const line = editor.document.lineAt(r.start.line).text;
    // The text after the `@`: what the picker starts from.
    return { range: r, query: line.slice(r.start.character + 1, r.end.character) };
  } catch {
    return undefined;
  }
}

/** Puts `mention` in place of the typed `@query`, else of each selection. */
async function insertAt(editor: vscode.TextEditor, typed: Typed | undefined, mention: string): Promise<void> {
  await editor.edit((edit) => {
    if (typed !== undefined) {
      edit.replace(typed.range, mention);
    } else {
      for (const selection of editor.selections) {
        edit.replace(selection, mention);
      }
    }
  });
}

/** "Hydra: Search Conversations": find a session by what was said in it, insert its mention. */
/** The mention or bare `hydra-session:` URI under the cursor, if any. */
function mentionUnderCursor(editor: vscode.TextEditor): string | undefined {
  const line = editor.document.lineAt(editor.selection.active.line).text;
  const at = editor.selection.active.character;
  const pattern = /@\[[^\]]*\]\(hydra-session:[A-Za-z0-9_-]*\)|hydra-session:[A-Za-z0-9_-]+/g;
  for (const m of line.matchAll(pattern)) {
    const start = m.index ?? 0;
    if (start <= at && at <= start + m[0].length) {
      return m[0];
    }
  }
  return undefined;
}

/**
 * "Publish Session to Team Store": the session under the cursor (else one
 * typed: a mention, a URI or an id) to a team store URL; the pinned mention
 * of what was published goes to the clipboard. When the server finds
 * credentials it says which kinds and publishes only if asked again with them
 * allowed.
 */
async function publishSessionCommand(): Promise<void> {
  const c = runningClient();
  if (c === undefined) {
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const under = editor === undefined ? undefined : mentionUnderCursor(editor);
  const session =
    under ??
    (await vscode.window.showInputBox({
      title: 'Hydra: Publish Session to Team Store',
      prompt: 'The session: a mention, a hydra-session: URI or an id',
      ignoreFocusOut: true,
    }));
  if (session === undefined || session.trim() === '') {
    return;
  }
  const remembered = state.lastTeamStore ?? '';
  const to = await vscode.window.showInputBox({
    title: 'Hydra: Publish Session to Team Store',
    prompt: 'The team store: s3://BUCKET/PREFIX, gs://…, az://… or file:///…',
    value: remembered,
    ignoreFocusOut: true,
  });
  if (to === undefined || to.trim() === '') {
    return;
  }
  state.lastTeamStore = to.trim();
  let allowSecret: string[] = [];
  for (;;) {
    try {
      const published = await c.sendRequest(ext.publish, { to: to.trim(), sessions: [session], allowSecret });
      const mention = published.map((p) => p.mention).join('\n');
      await vscode.env.clipboard.writeText(mention);
      void vscode.window.showInformationMessage(
        `Hydra: published ${published.map((p) => p.sessionId).join(', ')}; the pinned mention is on the clipboard.`,
      );
      return;
    } catch (e) {
      const data = e instanceof ResponseError ? (e.data as { code?: string; findings?: ext.SecretFinding[] }) : undefined;
      if (data?.code !== 'SESSION_REFERENCE_SECRET' || data.findings === undefined) {
        void vscode.window.showErrorMessage(`Hydra: ${describeError(e)}`);
        return;
      }
      const kinds = [...new Set(data.findings.map((f) => f.kind))];
      const where = data.findings.map((f) => (f.turn === 0 ? 'title/cwd' : `turn ${f.turn}`)).join(', ');
      const choice = await vscode.window.showWarningMessage(
        `Hydra: nothing was published: ${kinds.join(', ')} found (${where}).`,
        { modal: true },
        'Publish Anyway',
      );
      if (choice !== 'Publish Anyway') {
        return;
      }
      allowSecret = kinds;
    }
  }
}

async function searchConversationsCommand(): Promise<void> {
  const target = promptAndClient();
  if (target === undefined) {
    return;
  }
  const { editor, client: c } = target;
  const typed = await typedQuery(c, editor);
  const uri = c.code2ProtocolConverter.asUri(editor.document.uri);
  const hit = await pickSearchHit(c, uri, typed?.query ?? '', describeError);
  if (hit !== undefined) {
    await insertAt(editor, typed, hit.insertText);
  }
}

// ---- the MCP server for Copilot Chat ------------------------------------------

/** The `mcp` command line for Copilot Chat now, or why there is none. */
function mcpServer(): McpServer {
  if (vscode.workspace.getConfiguration(SECTION).get<boolean>('mcpServer.enabled', true) === false) {
    return { off: `${SECTION}.mcpServer.enabled is false` };
  }
  try {
    const { command } = resolveServer(configuredServerPath(), firstWorkspaceFolder(), state.extensionDir);
    const folder = firstWorkspaceFolder();
    return { command, args: mcpArgs(currentSettings(), folder), ...(folder !== undefined ? { cwd: folder } : {}) };
  } catch (e) {
    return { off: e instanceof Error ? e.message : String(e) };
  }
}

/** Fires when what `mcpServer` answers may have changed. */
const mcpInputsChanged: vscode.Event<unknown> = (listener, thisArg, disposables) => {
  const call = (e: unknown): unknown => listener.call(thisArg, e);
  const both = vscode.Disposable.from(
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SECTION) && call(e)),
    vscode.workspace.onDidChangeWorkspaceFolders(call),
  );
  disposables?.push(both);
  return both;
};

// ---- activation -----------------------------------------------------------

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  state.extensionDir = context.extensionPath;
  state.globalState = context.globalState;
  const output = vscode.window.createOutputChannel('Hydra Session');
  const statusItem = vscode.window.createStatusBarItem('hydraSession.status', vscode.StatusBarAlignment.Right, 100);
  statusItem.name = 'Hydra Session';
  state.output = output;
  state.statusItem = statusItem;
  context.subscriptions.push(
    output,
    statusItem,
    contextChanged,
    vscode.workspace.registerTextDocumentContentProvider(CONTEXT_SCHEME, {
      onDidChange: contextChanged.event,
      provideTextDocumentContent: (uri) => contexts.get(uri.toString()) ?? '',
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === CONTEXT_SCHEME) {
        contexts.delete(doc.uri.toString());
      }
    }),
    vscode.commands.registerCommand('hydraSession.prepare', prepareCommand),
    vscode.commands.registerCommand('hydraSession.insertMention', () => insertMentionCommand()),
    vscode.commands.registerCommand('hydraSession.copyMention', copyMentionCommand),
    vscode.commands.registerCommand('hydraSession.searchConversations', searchConversationsCommand),
    vscode.commands.registerCommand('hydraSession.copyPreparedPrompt', copyPreparedPromptCommand),
    vscode.commands.registerCommand('hydraSession.sendPreparedPrompt', sendPreparedPromptCommand),
    vscode.commands.registerCommand('hydraSession.publishSession', publishSessionCommand),
    vscode.commands.registerCommand('hydraSession.restartServer', restartClient),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
    { dispose: () => (clearInterval(state.statusTimer), clearTimeout(state.indexingTimer)) },
  );
  const version = (context.extension?.packageJSON as { version?: unknown } | undefined)?.version;
  context.subscriptions.push(
    ...registerMcpServer(
      mcpServer,
      mcpInputsChanged,
      typeof version === 'string' ? version : undefined,
      (line) => log(line),
    ),
  );
  state.statusTimer = setInterval(() => void refreshStatus(), STATUS_REFRESH_MS);
  await serialized(startClient);
}

export async function deactivate(): Promise<void> {
  clearInterval(state.statusTimer);
  clearTimeout(state.indexingTimer);
  await serialized(stopClient);
}
