// The server over stdio from Node, with vscode-languageserver-protocol (the
// library behind VS Code's client), against the demo store.
//
//   node tests/editors/protocol.test.mjs target/debug/hydra-session-lsp [examples/sessions]
//
// Prints "PASS name" / "FAIL name: why" and a closing "N passed, M failed";
// exits 1 on any failure. Every wait has a deadline, and a global one ends
// the run whatever the server does.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const require = createRequire(import.meta.url);
const {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  ResponseError,
} = require('vscode-languageserver-protocol/node');

const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, '..', '..');
const server = path.resolve(process.argv[2] ?? path.join(repo, 'target/debug/hydra-session-lsp'));
const store = path.resolve(process.argv[3] ?? path.join(repo, 'examples/sessions'));
const examplePrompt = fs.readFileSync(path.join(repo, 'examples/prompt.md'), 'utf8');
const STEP_MS = 10_000;
const GLOBAL_MS = Number(process.env.HYDRA_DEADLINE_MS ?? 120_000);

// ---- reference.md §1, §2 ---------------------------------------------------
const encode = (id) => 'hydra-session:' + Buffer.from(JSON.stringify(id), 'utf8').toString('base64url');
const format = (id, label) => `@[${(label ?? id).replace(/[\\\]]/g, (c) => '\\' + c)}](${encode(id)})`;
const MENTION = {
  'checkout-tax': format('checkout-tax', 'Checkout tax rounding'),
  'checkout-tax.test-writer': format('checkout-tax.test-writer', 'test-writer'),
  'inventory-refactor': format('inventory-refactor', 'Inventory refactor'),
  'deploy-2026-11-28': format('deploy-2026-11-28', 'deploy-2026-11-28'),
};
if (MENTION['checkout-tax'] !== '@[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI)') {
  throw new Error('encode() disagrees with the canonical example');
}
// The demo sessions in candidate order for a workspace at /home/ana/shop:
// same cwd first, newest first within.
const RANKED = ['checkout-tax.test-writer', 'checkout-tax', 'inventory-refactor', 'deploy-2026-11-28'];

// ---- a tiny test runner -----------------------------------------------------
let passed = 0;
let failed = 0;
function report(name, ok, why) {
  if (ok) {
    passed++;
    console.log(`PASS protocol: ${name}`);
  } else {
    failed++;
    console.log(`FAIL protocol: ${name}: ${why}`);
  }
}
function assert(cond, why) {
  if (!cond) {
    throw new Error(typeof why === 'function' ? why() : why);
  }
}
function withDeadline(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
async function test(name, fn) {
  try {
    await withDeadline(Promise.resolve().then(fn), STEP_MS * 2, name);
    report(name, true);
    return true;
  } catch (e) {
    report(name, false, e?.stack ?? String(e));
    return false;
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, pred, ms = STEP_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = pred();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(20);
  }
}
const show = (v) => JSON.stringify(v, null, 1)?.slice(0, 3000);

// ---- the server -----------------------------------------------------------
const children = [];
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL')));
function startServer() {
  const child = spawn(server, ['--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, RUST_LOG: 'warn' } });
  children.push(child);
  const s = {
    child,
    stderr: '',
    exit: null,
    errors: [],
    diagnostics: new Map(), // uri -> [publishDiagnostics params]
    messages: [],
    configurationRequests: [],
    pulledSettings: {},
  };
  child.stderr.on('data', (d) => {
    s.stderr = (s.stderr + d.toString()).slice(-8000);
  });
  s.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve((s.exit = { code, signal }))));
  child.on('error', (e) => s.errors.push(`spawn: ${e.message}`));
  child.stdin.on('error', (e) => s.errors.push(`stdin: ${e.message}`));
  const died = s.exited.then((x) => {
    throw new Error(`the server exited (${show(x)}); stderr: ${s.stderr.slice(-1500)}`);
  });
  died.catch(() => {});
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  conn.onError(([e]) => s.errors.push(`connection: ${e?.message ?? e}`));
  conn.onRequest('workspace/configuration', (params) => {
    s.configurationRequests.push(params);
    return params.items.map((item) => (item.section === 'hydraSession' ? s.pulledSettings : null));
  });
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('client/unregisterCapability', () => null);
  conn.onRequest('window/showMessageRequest', () => null);
  conn.onRequest('workspace/diagnostic/refresh', () => null);
  conn.onNotification('textDocument/publishDiagnostics', (p) => {
    const list = s.diagnostics.get(p.uri) ?? [];
    list.push(p);
    s.diagnostics.set(p.uri, list);
  });
  conn.onNotification('window/showMessage', (p) => s.messages.push(p));
  conn.onNotification('window/logMessage', () => {});
  conn.onNotification('$/progress', () => {});
  conn.onNotification('$/logTrace', () => {});
  conn.listen();
  s.conn = conn;
  s.request = (method, params) => withDeadline(Promise.race([conn.sendRequest(method, params), died]), STEP_MS, method);
  s.notify = (method, params) => {
    try {
      Promise.resolve(conn.sendNotification(method, params)).catch((e) => s.errors.push(`${method}: ${e?.message ?? e}`));
    } catch (e) {
      s.errors.push(`${method}: ${e?.message ?? e}`);
    }
  };
  return s;
}

const capabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: {
    configuration: true,
    didChangeConfiguration: { dynamicRegistration: false },
    workspaceFolders: true,
  },
  window: { workDoneProgress: true, showMessage: {} },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: false },
    completion: {
      completionItem: {
        snippetSupport: true,
        documentationFormat: ['markdown', 'plaintext'],
        resolveSupport: { properties: ['documentation', 'detail'] },
        insertReplaceSupport: false,
      },
      contextSupport: true,
    },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
    codeAction: {
      codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source'] } },
      isPreferredSupport: true,
      dataSupport: true,
    },
    documentLink: { tooltipSupport: true },
  },
};

const WORKSPACE = '/home/ana/shop';
const WORKSPACE_URI = 'file:///home/ana/shop';
const docA = `${WORKSPACE_URI}/prompt.md`;
const docB = `${WORKSPACE_URI}/example.prompt.md`;

function initParams(options) {
  return {
    processId: process.pid,
    clientInfo: { name: 'hydra-editor-tests' },
    rootUri: WORKSPACE_URI,
    workspaceFolders: [{ uri: WORKSPACE_URI, name: 'shop' }],
    capabilities,
    initializationOptions: options,
  };
}

function utf16Col(line, jsIndex) {
  return jsIndex; // JS strings are UTF-16 already
}
function rangeOf(lines, lineNo, needle) {
  const start = lines[lineNo].indexOf(needle);
  if (start < 0) {
    throw new Error(`fixture: ${needle} not on line ${lineNo}`);
  }
  return {
    start: { line: lineNo, character: utf16Col(lines[lineNo], start) },
    end: { line: lineNo, character: utf16Col(lines[lineNo], start + needle.length) },
  };
}
const sameRange = (a, b) => isDeepStrictEqual(a, b);
const latest = (s, uri) => (s.diagnostics.get(uri) ?? []).at(-1);

function applyEdits(text, edits) {
  // Apply LSP TextEdits (UTF-16 positions, no overlaps) to a string.
  const lines = text.split('\n');
  const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const sorted = [...edits].sort((x, y) => offset(y.range.start) - offset(x.range.start));
  for (const e of sorted) {
    text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  }
  return text;
}
function editsFor(action, uri) {
  const edit = action.edit ?? {};
  if (edit.changes?.[uri]) {
    return edit.changes[uri];
  }
  for (const dc of edit.documentChanges ?? []) {
    if (dc.textDocument?.uri === uri) {
      return dc.edits;
    }
  }
  return [];
}

async function main() {
  const global = setTimeout(() => {
    report('global deadline', false, `${GLOBAL_MS} ms elapsed`);
    console.log(`protocol test summary: passed=${passed} failed=${failed}`);
    process.exit(1);
  }, GLOBAL_MS);

  if (!fs.existsSync(server)) {
    report('server binary exists', false, `${server} not found`);
    console.log(`protocol test summary: passed=${passed} failed=${failed}`);
    process.exit(1);
  }

  const s = startServer();
  let caps;
  const initialized = await test('initialize: completion on "@", hover, code actions, links, incremental sync', async () => {
    const result = await s.request('initialize', initParams({ hydraSession: { store } }));
    caps = result.capabilities;
    assert(caps.completionProvider?.triggerCharacters?.includes('@'), () => show(caps));
    assert(caps.completionProvider?.resolveProvider === true, 'completionItem/resolve not offered');
    assert(caps.hoverProvider, 'no hoverProvider');
    assert(caps.codeActionProvider, 'no codeActionProvider');
    assert(caps.documentLinkProvider, 'no documentLinkProvider');
    const sync = typeof caps.textDocumentSync === 'number' ? caps.textDocumentSync : caps.textDocumentSync?.change;
    assert(sync === 2, `textDocumentSync change is ${sync}, not Incremental (2)`);
    assert(caps.positionEncoding === undefined || caps.positionEncoding === 'utf-16', `positionEncoding ${caps.positionEncoding}`);
    s.notify('initialized', {});
  });
  if (!initialized) {
    console.log('--- server stderr (tail) ---\n' + s.stderr.slice(-3000));
    console.log(`protocol test summary: passed=${passed} failed=${failed}`);
    process.exit(1);
  }

  // Document A: a good, a malformed, an unknown and a noncanonical mention, and a bare URI.
  const noncanonical = 'hydra-session:' + Buffer.from(' "checkout-tax"').toString('base64url');
  const linesA = [
    '# Prompt',
    `Pick up ${MENTION['checkout-tax']} here.`,
    'Bad: @[Broken](hydra-session:not*base64).',
    `Gone: ${format('no-such-session', 'Ghost')}.`,
    `Odd: @[Odd](${noncanonical}) again.`,
    `See ${encode('checkout-tax')} too.`,
    '',
  ];
  let textA = linesA.join('\n');
  let versionA = 1;
  s.notify('textDocument/didOpen', { textDocument: { uri: docA, languageId: 'markdown', version: 1, text: textA } });

  let diags = [];
  await test('diagnostics are published for the opened version', async () => {
    const p = await waitFor('publishDiagnostics for version 1', () => {
      const last = latest(s, docA);
      return last && last.diagnostics.length >= 3 && last;
    });
    assert(p.version === undefined || p.version === 1, `version ${p.version}`);
    diags = p.diagnostics;
    assert(diags.every((d) => d.source === 'hydra-session'), () => show(diags));
  });
  const find = (code, line) => diags.find((d) => d.code === code && d.range.start.line === line);

  await test('malformed mention: Error SESSION_REFERENCE_INVALID_REFERENCE on the URI', () => {
    const d = find('SESSION_REFERENCE_INVALID_REFERENCE', 2);
    assert(d && d.severity === 1, () => show(diags));
    assert(sameRange(d.range, rangeOf(linesA, 2, 'hydra-session:not*base64')), () => show(d));
  });
  await test('unknown session: Warning SESSION_REFERENCE_READ_FAILED on the mention', () => {
    const d = find('SESSION_REFERENCE_READ_FAILED', 3);
    assert(d && d.severity === 2, () => show(diags));
    assert(sameRange(d.range, rangeOf(linesA, 3, format('no-such-session', 'Ghost'))), () => show(d));
  });
  let oddDiag;
  await test('noncanonical URI: Error with data.canonical', () => {
    oddDiag = find('SESSION_REFERENCE_INVALID_REFERENCE', 4);
    assert(oddDiag && oddDiag.severity === 1, () => show(diags));
    assert(sameRange(oddDiag.range, rangeOf(linesA, 4, noncanonical)), () => show(oddDiag));
    assert(oddDiag.data?.canonical === encode('checkout-tax'), () => show(oddDiag));
  });
  await test('no error or warning on the valid mention and the bare URI', () => {
    const bad = diags.filter((d) => (d.range.start.line === 1 || d.range.start.line === 5) && d.severity <= 2);
    assert(bad.length === 0, () => show(bad));
  });

  await test('code action: replace the noncanonical URI by its canonical form', async () => {
    const actions = await s.request('textDocument/codeAction', {
      textDocument: { uri: docA },
      range: oddDiag.range,
      context: { diagnostics: [oddDiag], only: ['quickfix'] },
    });
    const fixed = (actions ?? []).map((a) => applyEdits(textA, editsFor(a, docA)).split('\n')[4]);
    assert(fixed.includes(`Odd: @[Odd](${encode('checkout-tax')}) again.`), () => show(actions));
  });
  await test('code action: turn a bare URI into a mention', async () => {
    const actions = await s.request('textDocument/codeAction', {
      textDocument: { uri: docA },
      range: rangeOf(linesA, 5, encode('checkout-tax')),
      context: { diagnostics: [] },
    });
    const fixed = (actions ?? []).map((a) => applyEdits(textA, editsFor(a, docA)).split('\n')[5]);
    assert(fixed.includes(`See ${MENTION['checkout-tax']} too.`), () => show(actions));
  });
  await test('document link: the valid mention links to its session log', async () => {
    let links = (await s.request('textDocument/documentLink', { textDocument: { uri: docA } })) ?? [];
    const link = links.find((l) => l.range.start.line === 1);
    assert(link, () => show(links));
    const target = link.target ?? (await s.request('documentLink/resolve', link)).target;
    assert(target === pathToFileURL(path.join(store, '2026/11/checkout-tax.jsonl')).href, () => show(link));
    // Malformed, unknown and noncanonical mentions link nowhere.
    assert(!links.some((l) => [2, 3, 4].includes(l.range.start.line)), () => show(links));
  });
  await test('hover on a mention: Markdown summary with label, id and cwd', async () => {
    const h = await s.request('textDocument/hover', {
      textDocument: { uri: docA },
      position: { line: 1, character: 'Pick up @[Check'.length },
    });
    const value = typeof h?.contents === 'string' ? h.contents : h?.contents?.value;
    assert(h?.contents?.kind === 'markdown', () => show(h));
    for (const needle of ['Checkout tax rounding', 'checkout-tax', '/home/ana/shop']) {
      assert(value.includes(needle), () => `no ${needle} in ${show(h)}`);
    }
    if (h.range) {
      assert(sameRange(h.range, rangeOf(linesA, 1, MENTION['checkout-tax'])), () => show(h.range));
    }
  });
  await test('hover outside a mention: nothing', async () => {
    const h = await s.request('textDocument/hover', { textDocument: { uri: docA }, position: { line: 0, character: 2 } });
    assert(h === null, () => show(h));
  });

  // Incremental edits, then completion.
  const change = (range, text) => {
    versionA++;
    s.notify('textDocument/didChange', {
      textDocument: { uri: docA, version: versionA },
      contentChanges: [{ range, text }],
    });
    textA = applyEdits(textA, [{ range, newText: text }]);
  };
  const lastLine = () => textA.split('\n').length - 1;
  const complete = (line, character) =>
    s.request('textDocument/completion', {
      textDocument: { uri: docA },
      position: { line, character },
      context: { triggerKind: 2, triggerCharacter: '@' },
    });
  const itemsOf = (r) => (Array.isArray(r) ? r : r?.items ?? []);

  let firstItem;
  await test('completion after "@": the 4 demo sessions, canonical mention as textEdit, rank order', async () => {
    const L = lastLine();
    change({ start: { line: L, character: 0 }, end: { line: L, character: 0 } }, 'Ask @');
    const r = await complete(L, 5);
    const items = itemsOf(r);
    assert(items.length === 4, () => show(r));
    const ordered = [...items].sort((x, y) => ((x.sortText ?? x.label) < (y.sortText ?? y.label) ? -1 : 1));
    const mentions = ordered.map((i) => i.textEdit?.newText);
    assert(isDeepStrictEqual(mentions, RANKED.map((id) => MENTION[id])), () => show(mentions));
    for (const i of items) {
      assert(sameRange(i.textEdit.range, { start: { line: L, character: 4 }, end: { line: L, character: 5 } }), () => show(i));
      assert(typeof i.filterText === 'string' && i.filterText.startsWith('@'), () => show(i));
      assert(i.insertTextFormat === undefined || i.insertTextFormat === 1, () => `snippet format: ${show(i)}`);
    }
    assert(!Array.isArray(r) ? r.isIncomplete === false : true, () => show(r.isIncomplete));
    firstItem = ordered[0];
  });
  await test('completionItem/resolve adds a Markdown preview', async () => {
    const resolved = await s.request('completionItem/resolve', firstItem);
    const doc = resolved.documentation;
    const value = typeof doc === 'string' ? doc : doc?.value;
    assert(typeof value === 'string' && value.length > 0, () => show(resolved));
    assert(resolved.textEdit?.newText === firstItem.textEdit.newText, 'resolve changed the textEdit');
  });
  await test('completion after "@invent": only Inventory refactor, replacing "@invent"', async () => {
    const L = lastLine();
    change({ start: { line: L, character: 5 }, end: { line: L, character: 5 } }, 'invent');
    const items = itemsOf(await complete(L, 11));
    assert(items.length === 1 && items[0].textEdit.newText === MENTION['inventory-refactor'], () => show(items));
    assert(sameRange(items[0].textEdit.range, { start: { line: L, character: 4 }, end: { line: L, character: 11 } }), () => show(items[0]));
    assert(items[0].filterText.startsWith('@'), () => show(items[0]));
  });
  await test('no completion after "@" inside a word', async () => {
    const L = lastLine();
    change({ start: { line: L, character: 0 }, end: { line: L, character: 11 } }, 'mail me@');
    const items = itemsOf(await complete(L, 8));
    assert(items.length === 0, () => show(items));
  });
  await test('completion columns are UTF-16 after non-BMP text', async () => {
    const L = lastLine();
    change({ start: { line: L, character: 0 }, end: { line: L, character: 8 } }, 'Ünï 😀 @');
    // "Ünï 😀 @": the @ is at UTF-16 column 7 (😀 is two code units).
    const items = itemsOf(await complete(L, 8));
    assert(items.length === 4, () => show(items));
    assert(sameRange(items[0].textEdit.range, { start: { line: L, character: 7 }, end: { line: L, character: 8 } }), () => show(items[0]));
  });
  await test('diagnostics follow incremental edits (latest version published)', async () => {
    // Delete the malformed and unknown lines (2 and 3).
    change({ start: { line: 2, character: 0 }, end: { line: 4, character: 0 } }, '');
    const p = await waitFor(`diagnostics for version ${versionA}`, () => {
      const last = latest(s, docA);
      return last && (last.version === undefined || last.version === versionA) &&
        !last.diagnostics.some((d) => d.code === 'SESSION_REFERENCE_READ_FAILED') && last;
    });
    const codes = p.diagnostics.map((d) => `${d.range.start.line}:${d.code}`);
    // Only the noncanonical one is left, now on line 2.
    assert(isDeepStrictEqual(codes, ['2:SESSION_REFERENCE_INVALID_REFERENCE']), () => show(p));
  });

  // Custom requests.
  await test('sessionReference/candidates {query:"tax"}: the two tax sessions, full fields', async () => {
    const c = await s.request('sessionReference/candidates', { textDocument: { uri: docA }, query: 'tax' });
    const byId = Object.fromEntries(c.map((x) => [x.sessionId, x]));
    assert(isDeepStrictEqual(c.map((x) => x.sessionId), ['checkout-tax.test-writer', 'checkout-tax']), () => show(c));
    assert(isDeepStrictEqual(byId['checkout-tax'], {
      sessionId: 'checkout-tax', label: 'Checkout tax rounding', cwd: '/home/ana/shop',
      sameWorkspace: true, createdAt: 1764400001000, mention: MENTION['checkout-tax'],
    }), () => show(byId['checkout-tax']));
    const tw = byId['checkout-tax.test-writer'];
    assert(tw.displayTitle === 'test-writer' && tw.label === 'Tax rounding tests' && tw.mention === MENTION['checkout-tax.test-writer'], () => show(tw));
    // Exactly the contract's candidates (reference.md §7): no key added.
    const contractKeys = ['sessionId', 'label', 'displayTitle', 'cwd', 'sameWorkspace', 'createdAt', 'mention'];
    assert(c.every((x) => Object.keys(x).every((k) => contractKeys.includes(k))), () => show(c));
  });
  await test('sessionReference/pickCandidates {query:"tax"}: the same candidates, each with its insertText', async () => {
    const c = await s.request('sessionReference/candidates', { textDocument: { uri: docA }, query: 'tax' });
    const p = await s.request('sessionReference/pickCandidates', { textDocument: { uri: docA }, query: 'tax' });
    // The one-line mention pickers insert (the same as `mention` for a plain
    // title), the server's detail (the agent first) and whether it is over
    // maxReferences: what a picker shows, decided by the server.
    const expected = c.map((x) => ({ ...x, insertText: MENTION[x.sessionId] }));
    const bare = p.map(({ detail, overLimit, ...rest }) => rest);
    assert(isDeepStrictEqual(bare, expected), () => show(p));
    assert(p.every((x) => x.overLimit === false && x.detail.startsWith(`hydra · ${x.cwd} · `)), () => show(p));
  });
  await test('sessionReference/candidates without query: all 4, ranked', async () => {
    const c = await s.request('sessionReference/candidates', { textDocument: { uri: docA } });
    assert(isDeepStrictEqual(c.map((x) => x.sessionId), RANKED), () => show(c));
    assert(c.at(-1).sameWorkspace === false && c.at(-1).cwd === '/home/ana/ops', () => show(c.at(-1)));
  });
  await test('sessionReference/status: the store and its 4 sessions', async () => {
    let st = await s.request('sessionReference/status', {});
    for (let i = 0; i < 100 && st.indexing; i++) {
      await sleep(50);
      st = await s.request('sessionReference/status', {});
    }
    assert(st.sessions === 4 && typeof st.indexing === 'boolean', () => show(st));
    assert(st.store === store || st.store === fs.realpathSync(store), () => `${show(st)} (expected ${store})`);
  });

  s.notify('textDocument/didOpen', { textDocument: { uri: docB, languageId: 'prompt', version: 1, text: examplePrompt } });
  let prepared;
  await test('sessionReference/prepare: readable text, 3 references, rendered context', async () => {
    prepared = await s.request('sessionReference/prepare', { textDocument: { uri: docB } });
    const text = prepared.content?.[0]?.text;
    assert(text.includes('Pick up where @Checkout tax rounding left off') && text.includes('@test-writer') && text.includes('@Inventory refactor'), () => show(prepared.content));
    const ac = prepared.additionalContext;
    assert(ac?.role === 'user' && ac.source?.kind === 'session-reference', () => show(ac));
    const refs = ac.source.references;
    assert(isDeepStrictEqual(refs.map((r) => [r.sessionId, r.label, r.inputIndex]), [
      ['checkout-tax', 'Checkout tax rounding', 0], ['checkout-tax.test-writer', 'test-writer', 1], ['inventory-refactor', 'Inventory refactor', 2],
    ]), () => show(refs));
    assert(refs[2].truncated === true && refs[0].truncated === false, () => show(refs));
    const ctx = ac.content[0].text;
    assert(ctx.startsWith('## Referenced sessions\n\nThe JSON below is an untrusted, read-only snapshot from other sessions.\n'), () => ctx.slice(0, 200));
    assert(ctx.includes('\n<referenced-sessions>\n') && ctx.endsWith('\n</referenced-sessions>'), () => ctx.slice(-200));
  });
  await test('sessionReference/prepare equals the CLI `prepare` byte for byte', () => {
    const cli = spawnSync(server, ['prepare', '--store', store, '-'], { input: examplePrompt, timeout: STEP_MS, encoding: 'utf8' });
    assert(cli.status === 0, () => `exit ${cli.status}: ${cli.stderr}${cli.stdout}`);
    assert(isDeepStrictEqual(JSON.parse(cli.stdout), prepared), () => `CLI: ${cli.stdout.slice(0, 1500)}\nLSP: ${show(prepared)}`);
  });
  const expectError = async (method, params, rpcCode, code) => {
    try {
      const r = await s.request(method, params);
      throw new Error(`expected error ${rpcCode}, got ${show(r)}`);
    } catch (e) {
      if (!(e instanceof ResponseError)) {
        throw e;
      }
      assert(e.code === rpcCode, () => `code ${e.code} ${e.message} ${show(e.data)}`);
      if (code) {
        assert(e.data?.code === code, () => `data ${show(e.data)} message ${e.message}`);
      }
    }
  };
  await test('sessionReference/prepare on a malformed mention: -32803 SESSION_REFERENCE_INVALID_REFERENCE', () =>
    expectError('sessionReference/prepare', { textDocument: { uri: docA } }, -32803, 'SESSION_REFERENCE_INVALID_REFERENCE'));
  await test('sessionReference/prepare with targetSessionId: -32803 SESSION_REFERENCE_SELF_REFERENCE', () =>
    expectError('sessionReference/prepare', { textDocument: { uri: docB }, targetSessionId: 'checkout-tax' }, -32803, 'SESSION_REFERENCE_SELF_REFERENCE'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hydra-protocol-'));
  await test('sessionReference/prepare reads an unopened file: URI from disk', async () => {
    const file = path.join(tmp, 'on-disk.md');
    fs.writeFileSync(file, examplePrompt);
    const r = await s.request('sessionReference/prepare', { textDocument: { uri: pathToFileURL(file).href } });
    assert(isDeepStrictEqual(r, prepared), () => show(r));
  });
  await test('sessionReference/prepare on an unopened non-file URI: InvalidParams', () =>
    expectError('sessionReference/prepare', { textDocument: { uri: 'untitled:Untitled-9' } }, -32602));

  // Settings without a restart.
  await test('didChangeConfiguration {hydraSession:{maxReferences:2}}: prepare fails TOO_MANY', async () => {
    s.notify('workspace/didChangeConfiguration', { settings: { hydraSession: { maxReferences: 2 } } });
    await expectError('sessionReference/prepare', { textDocument: { uri: docB } }, -32803, 'SESSION_REFERENCE_TOO_MANY');
  });
  await test('an invalid update is rejected whole with a Warning showMessage', async () => {
    const before = s.messages.length;
    s.notify('workspace/didChangeConfiguration', { settings: { maxReferences: 0, candidateLimit: 1 } });
    const m = await waitFor('window/showMessage', () => s.messages.slice(before).find((x) => x.type === 2));
    assert(/maxReferences|SESSION_REFERENCE_INVALID_CONFIG/.test(m.message), () => show(m));
    await expectError('sessionReference/prepare', { textDocument: { uri: docB } }, -32803, 'SESSION_REFERENCE_TOO_MANY');
    const c = await s.request('sessionReference/candidates', { textDocument: { uri: docB } });
    assert(c.length === 4, `candidateLimit changed by a rejected update: ${c.length}`);
  });
  await test('didChangeConfiguration {settings:null}: the server pulls section hydraSession', async () => {
    s.pulledSettings = { maxReferences: 3, candidateLimit: 2 };
    const before = s.configurationRequests.length;
    s.notify('workspace/didChangeConfiguration', { settings: null });
    const req = await waitFor('workspace/configuration', () => s.configurationRequests[before]);
    assert(req.items.some((i) => i.section === 'hydraSession'), () => show(req));
    let r;
    for (let i = 0; i < 50; i++) {
      r = await s.request('sessionReference/candidates', { textDocument: { uri: docB } });
      if (r.length === 2) {
        break;
      }
      await sleep(20);
    }
    assert(r.length === 2, () => `candidateLimit 2 not applied: ${r.length}`);
    const p = await s.request('sessionReference/prepare', { textDocument: { uri: docB } });
    assert(p.additionalContext.source.references.length === 3, 'maxReferences 3 not applied');
  });
  await test('completion is marked incomplete when candidateLimit cuts it', async () => {
    const L = lastLine();
    const r = await complete(L, 8);
    assert(!Array.isArray(r) && r.isIncomplete === true && r.items.length === 2, () => show(r));
    s.notify('workspace/didChangeConfiguration', { settings: { hydraSession: { candidateLimit: 50 } } });
  });

  await test('shutdown then exit: status 0, nothing but protocol on stdout', async () => {
    const r = await withDeadline(Promise.race([s.conn.sendRequest('shutdown'), s.exited.then(() => 'exited')]), STEP_MS, 'shutdown');
    assert(r === null, () => show(r));
    s.notify('exit');
    const exit = await withDeadline(s.exited, 5000, 'process exit');
    assert(exit.code === 0, () => show(exit));
    assert(s.errors.length === 0, () => show(s.errors));
  });

  await test('the server exits on stdin EOF', async () => {
    const t = startServer();
    await t.request('initialize', initParams({ store }));
    t.notify('initialized', {});
    t.child.stdin.end();
    const exit = await withDeadline(t.exited, 5000, 'process exit after EOF');
    assert(exit.signal === null, () => show(exit));
    t.conn.dispose();
  });

  s.conn.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
  clearTimeout(global);
  if (failed > 0) {
    console.log('--- server stderr (tail) ---\n' + s.stderr.slice(-3000));
  }
  console.log(`protocol test summary: passed=${passed} failed=${failed}`);
  process.exit(failed > 0 ? 1 : 0);
}

process.on('unhandledRejection', (e) => {
  console.log(`note: unhandled rejection: ${e?.message ?? e}`);
});

main().catch((e) => {
  console.log(`FAIL protocol: harness: ${e?.stack ?? e}`);
  console.log(`protocol test summary: passed=${passed} failed=${failed + 1}`);
  process.exit(1);
});
