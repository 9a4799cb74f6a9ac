// VS Code for real: code-server (VS Code 1.139 in the browser) with the
// packaged extension, driven by playwright-core in Debian's Chromium.
//
//   node24 tests/editors/web/vscode_web_test.mjs VSIX SERVER STORE [SCREENSHOT.png]
//
// With SCREENSHOT.png (editors/test.sh passes docs/vscode.png when
// HYDRA_SCREENS=1), saves the completion menu there and the hover beside it
// (docs/vscode-hover.png).
// The server binary under test is the one bundled in the .vsix (it is not on
// the PATH). Prints PASS/FAIL lines and "N passed, M failed"; exits 1 on a
// failure. Every wait has a deadline; nothing sleeps to synchronise.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const [vsix, server, store, screenshot] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const entry = path.join(here, 'node_modules/code-server/out/node/entry.js');
const CHECKOUT = '@[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI)';
const INVENTORY = '@[Inventory refactor](hydra-session:ImludmVudG9yeS1yZWZhY3RvciI)';
const TESTWRITER = '@[test-writer](hydra-session:ImNoZWNrb3V0LXRheC50ZXN0LXdyaXRlciI)';
const GHOST = '@[Ghost](hydra-session:Im5vLXN1Y2gtc2Vzc2lvbiI)';
const NONCANONICAL = 'hydra-session:' + Buffer.from(' "checkout-tax"').toString('base64url');

let passed = 0;
let failed = 0;
let page;
function check(name, ok, why = '') {
  if (ok) {
    passed++;
    console.log(`PASS vscode: ${name}`);
  } else {
    failed++;
    console.log(`FAIL vscode: ${name}: ${String(why).slice(0, 1500)}`);
    // HYDRA_DEBUG_SHOTS=DIR: a screenshot of each failure.
    if (process.env.HYDRA_DEBUG_SHOTS && page) {
      void page.screenshot({ path: path.join(process.env.HYDRA_DEBUG_SHOTS, `fail-${failed}.png`) }).catch(() => undefined);
    }
  }
  return ok;
}

async function waitFor(pred, ms, every = 100) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const v = await pred();
      if (v) {
        return v;
      }
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      return undefined;
    }
    await new Promise((r) => setTimeout(r, every));
  }
}

// The pids of the running language servers started from the installed
// extension (below `extensions`; zombies are not running). Linux's /proc.
function serverPids() {
  const pids = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const exe = fs.readlinkSync(`/proc/${pid}/exe`);
      const state = /^State:\s+(\S)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (exe.startsWith(extensions + path.sep) && path.basename(exe) === 'hydra-session-lsp' && state !== 'Z' && !args.includes('mcp')) {
        pids.push(Number(pid));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// ---- a private code-server -------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hydra-vscode.'));
const userData = path.join(tmp, 'user-data');
const extensions = path.join(tmp, 'extensions');
const ws = path.join(tmp, 'workspace');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.mkdirSync(path.join(userData, 'Machine'), { recursive: true });
fs.mkdirSync(ws, { recursive: true });
const userSettings = {
  'hydraSession.store': store,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'editor.minimap.enabled': false,
  'editor.accessibilitySupport': 'off',
  'workbench.colorTheme': 'Default Light Modern',
  'window.commandCenter': false,
  'chat.disableAIFeatures': true,
  'files.autoSave': 'off',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.layoutControl.enabled': false,
  // Set where a local VS Code would read it: ignored in this remote window.
  'hydraSession.serverPath': '/nowhere/hydra-session-lsp',
};
fs.writeFileSync(path.join(userData, 'User/settings.json'), JSON.stringify(userSettings, null, 2));
fs.writeFileSync(
  path.join(ws, 'prompt.md'),
  ['# Prompt', '', `Not ${GHOST}.`, `Pick up where ${CHECKOUT} left off.`, `Odd: @[Odd](${NONCANONICAL}) here.`, ''].join('\n'),
);
fs.copyFileSync(path.join(path.dirname(store), 'prompt.md'), path.join(ws, 'example.prompt.md'));
fs.writeFileSync(
  path.join(ws, 'full.md'),
  ['Three already:', CHECKOUT, INVENTORY, TESTWRITER, 'One more: ', ''].join('\n'),
);

// The server must come from the .vsix: keep its folder off the PATH.
const env = { ...process.env, HOME: tmp, XDG_CONFIG_HOME: path.join(tmp, 'config'), XDG_DATA_HOME: path.join(tmp, 'data') };
env.PATH = (env.PATH ?? '')
  .split(':')
  .filter((d) => d !== '' && !fs.existsSync(path.join(d, 'hydra-session-lsp')))
  .join(':');
delete env.HYDRA_SESSION_STORE;
delete env.VSCODE_IPC_HOOK_CLI;

const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
const install = spawnSync(process.execPath, [entry, ...common, '--install-extension', vsix], {
  env,
  encoding: 'utf8',
  timeout: 120_000,
});
check('code-server installs the .vsix', install.status === 0 && /successfully installed/i.test(install.stdout + install.stderr),
  install.stdout + install.stderr);

const port = await freePort();
const cs = spawn(
  process.execPath,
  [
    entry,
    ...common,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    ws,
  ],
  { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
);
let csLog = '';
cs.stdout.on('data', (d) => (csLog += d));
cs.stderr.on('data', (d) => (csLog += d));

let browser;
const shots = path.join(tmp, 'shots');
fs.mkdirSync(shots);
async function cleanup() {
  await browser?.close().catch(() => undefined);
  try {
    process.kill(-cs.pid, 'SIGTERM');
  } catch {
    // gone
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

try {
  const up = await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000, 250);
  if (!check('code-server answers on loopback', up, csLog)) {
    throw new Error('no code-server');
  }
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
  page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  const workbench = await waitFor(async () => (await page.locator('.monaco-workbench').count()) > 0, 60_000);
  check('the workbench loads', workbench);

  // Monaco renders spaces as U+00A0.
  const text = async (selector) =>
    (await page.locator(selector).allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
  const palette = async (command) => {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${command}`);
    await waitFor(async () => (await text('.quick-input-list .monaco-list-row')).includes(command), 10_000);
    await page.keyboard.press('Enter');
  };
  const openFile = async (name) => {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(name);
    await waitFor(async () => (await text('.quick-input-list .monaco-list-row')).includes(name), 10_000);
    await page.keyboard.press('Enter');
    await waitFor(async () => (await text('.tabs-container .tab.active')).includes(name), 10_000);
    // The editor shows this file's first line: then click into it.
    const first = fs.readFileSync(path.join(ws, name), 'utf8').split('\n')[0];
    const lines = page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
    await waitFor(async () => (await lines.innerText()).replace(/\u00a0/g, ' ').includes(first), 10_000);
    await lines.click({ position: { x: 5, y: 5 } });
  };
  const gotoLine = async (spec) => {
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`:${spec}`);
    await page.keyboard.press('Enter');
  };
  const save = async () => {
    await page.keyboard.press('Control+S');
  };
  const fileText = (name) => fs.readFileSync(path.join(ws, name), 'utf8');
  // Saves (again, if a keystroke was lost under load) until the file on
  // disk satisfies pred.
  const waitFile = async (name, pred, ms = 15_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const ok = await waitFor(() => pred(fileText(name)), 3_000);
      if (ok || Date.now() > deadline) {
        return ok;
      }
      await save();
    }
  };

  // ---- status bar, and the notice about serverPath ------------------------
  await openFile('prompt.md');
  const status = await waitFor(async () => {
    const t = await text('.statusbar-item');
    return /Hydra: 4 sessions/.test(t) && t;
  }, 120_000);
  check('status bar: "Hydra: 4 sessions" once the store is indexed', status,
    `${await text('.statusbar')}; notifications: ${await text('.notification-list-item-message')}`);
  const notice = await waitFor(async () => {
    const t = await text('.notifications-toasts');
    return /serverPath/.test(t) && t;
  }, 15_000);
  check('a visible warning says hydraSession.serverPath from the User settings is not in use here',
    notice && /not used here|Remote settings/.test(notice), await text('.notification-list-item-message'));
  await page.keyboard.press('Escape');

  // ---- the MCP server for Copilot Chat ------------------------------------
  // Copilot Chat cannot be installed here; what can be seen is that this VS
  // Code has the API and the extension registered its provider, as its
  // output channel (which code-server keeps in its log folder) says.
  const outputLines = () =>
    fs.readdirSync(path.join(userData, 'logs'), { recursive: true })
      .filter((f) => String(f).endsWith('Hydra Session.log'))
      .map((f) => fs.readFileSync(path.join(userData, 'logs', String(f)), 'utf8'))
      .join('');
  const mcp = await waitFor(() => /MCP: registered "Hydra Sessions"/.test(outputLines()), 15_000);
  check('the extension registers its MCP server for Copilot Chat (vscode.lm.registerMcpServerDefinitionProvider)', mcp,
    outputLines().split('\n').filter((l) => /MCP|Starting/.test(l)).join('\n') || 'no Hydra Session output log');

  // ---- diagnostics and the Problems panel ---------------------------------
  await page.keyboard.press('Control+Shift+M');
  const problems = await waitFor(async () => {
    const t = await text('.markers-panel');
    return /no-such-session/.test(t) && /noncanonical|canonical/i.test(t) && t;
  }, 30_000);
  check('Problems panel lists the unknown session (warning) and the noncanonical URI (error)', problems,
    await text('.markers-panel'));
  const squiggles = await page.locator('.squiggly-warning, .squiggly-error').count();
  check('squiggles in the editor', squiggles >= 2, `${squiggles} squiggles`);
  await page.keyboard.press('Control+Shift+M');
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();

  // ---- quick fix: the noncanonical URI ------------------------------------
  await gotoLine('5:18');
  await page.keyboard.press('Control+.');
  const fix = await waitFor(async () => {
    const t = await text('.action-widget');
    return /canonical/i.test(t) && t;
  }, 15_000);
  check('quick fix (Ctrl+.) offers the canonical URI', fix, await text('.action-widget'));
  await page.keyboard.press('Enter');
  await save();
  const fixed = await waitFile('prompt.md', (t) => t.includes('Odd: @[Odd](hydra-session:ImNoZWNrb3V0LXRheCI) here.'));
  check('applying it writes the canonical URI', fixed, fileText('prompt.md'));

  // ---- hover --------------------------------------------------------------
  await gotoLine('4:20');
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  const hover = await waitFor(async () => {
    const t = await text('.monaco-hover');
    return /capturedThroughSeq/.test(t) && t;
  }, 15_000);
  check('hover shows what the mention carries', hover && /Checkout tax rounding/.test(hover) && /checkout-tax/.test(hover),
    await text('.monaco-hover'));
  if (screenshot && hover) {
    await page.screenshot({ path: screenshot.replace(/\.png$/, '-hover.png') });
  }
  check('hover shows no backslash escapes', hover && !hover.includes('\\`') && !/\\[_*[\]]/.test(hover), hover);
  await page.keyboard.press('Escape');

  // ---- completion: "@che", accept Checkout tax rounding --------------------
  await page.keyboard.press('Control+End');
  await page.keyboard.type('Ask @che', { delay: 40 });
  const menu = await waitFor(async () => {
    const t = await text('.suggest-widget .monaco-list-row');
    return /Checkout tax rounding/.test(t) && t;
  }, 20_000);
  check('typing "@che" opens the suggestions, "Checkout tax rounding" first', menu && /^Checkout tax rounding/.test(menu),
    await text('.suggest-widget'));
  if (screenshot) {
    await page.screenshot({ path: screenshot });
  }
  const rows = page.locator('.suggest-widget .monaco-list-row');
  const labels = await rows.allInnerTexts();
  const idx = labels.findIndex((l) => l.includes('Checkout tax rounding'));
  for (let i = 0; i < idx; i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await save();
  const accepted = await waitFile('prompt.md', (t) => t.includes('Ask '));
  const last = (fileText('prompt.md').split('\n').filter((l) => l.startsWith('Ask '))[0]) ?? '';
  check('accepting it leaves exactly one canonical mention', accepted && last === `Ask ${CHECKOUT}`, JSON.stringify(last));

  // ---- the mention picker -------------------------------------------------
  await page.keyboard.press('Enter');
  await page.keyboard.type('See ', { delay: 20 });
  await palette('Hydra: Insert Session Mention');
  const picked = await waitFor(async () => {
    const t = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    return t.length === 4 && t;
  }, 15_000);
  check('Insert Session Mention lists the 4 sessions', picked, JSON.stringify(picked));
  const untitled = (picked || []).find((r) => r.includes('deploy-2026-11-28')) ?? '';
  check('an untitled session shows its id once', untitled.split('deploy-2026-11-28').length === 2, JSON.stringify(untitled));
  check('the picker shows ages as completion does (a date for old sessions)',
    /\d{4}-\d{2}-\d{2}/.test(untitled) && !/ago/.test(untitled) && /other workspace/.test(untitled), JSON.stringify(untitled));
  check("the picker shows the server's detail, agent included",
    /hydra · \/home\/ana\/ops · other workspace · \d{4}-\d{2}-\d{2}/.test(untitled), JSON.stringify(untitled));
  await page.locator('.quick-input-widget input').fill('inv');
  await waitFor(async () => {
    const t = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    return t.length === 1 && t[0].includes('Inventory refactor');
  }, 10_000);
  await page.keyboard.press('Enter');
  await save();
  const inserted = await waitFile('prompt.md', (t) => t.includes(`See ${INVENTORY}`));
  check('choosing one inserts its mention', inserted, fileText('prompt.md'));

  // ---- search conversations: words said only in a session's body ----------
  // "regression" is in test-writer's first message, not in any title, id or
  // folder; the last word is half typed (the server matches it as a prefix).
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Found ', { delay: 20 });
  await palette('Hydra: Search Conversations');
  const searchInput = page.locator('.quick-input-widget input');
  // The palette's own input says "Hydra: Search Conversations" too: wait
  // for the picker itself (its placeholder, nothing typed yet), or the
  // first key goes to the editor while the palette closes.
  await waitFor(async () => (await searchInput.getAttribute('placeholder') ?? '').startsWith('Words said in a session')
    && (await searchInput.inputValue()) === '', 10_000);
  await searchInput.focus();
  await page.keyboard.type('regression tes', { delay: 40 });
  // Wait for the answer to the whole query: under load a keystroke may
  // come after the debounce, and the answer to a shorter query (such as
  // "No session says that" for "r") would be one row too.
  const found = await waitFor(async () => {
    const t = (await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map((r) => r.replace(/\u00a0/g, ' '));
    return t.length === 1 && /test-writer/.test(t[0]) && t;
  }, 20_000);
  const row = found?.[0] ?? '';
  check('Search Conversations finds the session by words only in its body: its title, agent · cwd · age, the snippet',
    /test-writer/.test(row) && /hydra · \/home\/ana\/shop · 2025-11-29/.test(row) && /Write regression tests/.test(row),
    JSON.stringify(found) + ' ' + (await text('.quick-input-widget')));
  await page.keyboard.press('Enter');
  await save();
  const searched = await waitFile('prompt.md', (t) => t.split('\n').includes(`Found ${TESTWRITER}`));
  check('accepting a search result inserts exactly the server\'s one-line mention', searched,
    JSON.stringify(fileText('prompt.md').split('\n').filter((l) => l.startsWith('Found'))));

  // The mention picker's search button switches to that mode with what was
  // typed: the titles, ids and folders hold no "regression", the bodies do.
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Via ', { delay: 20 });
  await palette('Hydra: Insert Session Mention');
  await waitFor(async () => (await page.locator('.quick-input-list .monaco-list-row').count()) === 4, 15_000);
  await page.locator('.quick-input-widget input').fill('regression');
  const none = await waitFor(async () => (await page.locator('.quick-input-list .monaco-list-row').count()) === 0, 10_000);
  check('Insert Session Mention finds nothing for a word said only in a body', none,
    JSON.stringify(await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()));
  await page.locator('.quick-input-widget [aria-label*="Search Conversations"]').first().click();
  const switched = await waitFor(async () => {
    const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    return /Search Conversations/.test(await text('.quick-input-widget')) && rows.length === 1 && /test-writer/.test(rows[0]) && rows;
  }, 20_000);
  check("the picker's search button switches to Search Conversations, keeping the query", switched,
    await text('.quick-input-widget'));
  await page.keyboard.press('Enter');
  await save();
  const via = await waitFile('prompt.md', (t) => t.split('\n').includes(`Via ${TESTWRITER}`));
  check('accepting it there inserts the server\'s mention', via,
    JSON.stringify(fileText('prompt.md').split('\n').filter((l) => l.startsWith('Via'))));

  // A prompt at maxReferences: the others are marked, not offered as fine.
  await openFile('full.md');
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  await palette('Hydra: Insert Session Mention');
  const marked = await waitFor(async () => {
    const t = await text('.quick-input-list');
    return /would exceed maxReferences/.test(t) && t;
  }, 15_000);
  check('with 3 sessions referenced, the picker marks the others as over maxReferences',
    marked && /deploy-2026-11-28[\s\S]*would exceed maxReferences/.test(marked), await text('.quick-input-list'));
  await page.keyboard.press('Escape');
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  await page.keyboard.type('@', { delay: 20 });
  const overMenu = await waitFor(async () => {
    const rows = await page.locator('.suggest-widget .monaco-list-row').all();
    const out = [];
    for (const r of rows) {
      out.push({ text: (await r.innerText()).replace(/\u00a0/g, ' '), struck: (await r.locator('.deprecated').count()) > 0 });
    }
    // The sessions (file mentions add the workspace's files after them).
    const sessions = out.filter((r) => /Checkout tax rounding|Inventory refactor|test-writer|deploy-2026-11-28/.test(r.text));
    return sessions.length === 4 && sessions;
  }, 15_000);
  const struck = (overMenu || []).filter((r) => r.struck).map((r) => r.text.split('\n')[0]);
  check('completion at maxReferences marks (strikes through) the one session that would exceed it',
    struck.length === 1 && struck[0].startsWith('deploy-2026-11-28'), JSON.stringify(overMenu));
  await page.keyboard.press('Escape');

  // ---- the prepare command ------------------------------------------------
  await openFile('example.prompt.md');
  await palette('Hydra: Prepare Referenced Context');
  const prepared = await waitFor(async () => {
    const tabs = await text('.tabs-container .tab');
    const body = await text('.editor-group-container .view-lines');
    return /referenced context/.test(tabs) && /Referenced sessions/.test(body) && tabs;
  }, 20_000);
  check('Prepare Referenced Context opens the context beside the prompt', prepared,
    await text('.tabs-container'));

  // ---- restart --------------------------------------------------------------
  // The status already reads "4 sessions" before the restart: what proves
  // the restart is a new server process in place of the old one.
  const before = serverPids();
  check('before the restart one server runs from the installed extension', before.length === 1, JSON.stringify(before));
  await palette('Hydra: Restart Server');
  const replaced = await waitFor(() => {
    const now = serverPids();
    return now.length === 1 && !before.includes(now[0]) && now;
  }, 30_000);
  check('Restart Server replaces the server process', replaced,
    `before ${JSON.stringify(before)}, now ${JSON.stringify(serverPids())}`);
  const restarted = await waitFor(async () => {
    const t = await text('.statusbar-item');
    return /Hydra: 4 sessions/.test(t);
  }, 30_000);
  check('Restart Server brings the status back', restarted, await text('.statusbar'));
  await openFile('prompt.md');
  await page.keyboard.press('Control+Shift+M');
  const again = await waitFor(async () => /no-such-session/.test(await text('.markers-panel')), 30_000);
  check('after the restart diagnostics come back', again, await text('.markers-panel'));
} catch (e) {
  check('test script', false, e && e.stack);
} finally {
  await cleanup();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
