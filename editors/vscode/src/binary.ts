// Where the server binary comes from: `hydraSession.serverPath`, else
// `hydra-session-lsp` on the PATH, else the one bundled in the extension.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const BINARY_NAME = process.platform === 'win32' ? 'hydra-session-lsp.exe' : 'hydra-session-lsp';

export interface Resolved {
  command: string;
  from: 'setting' | 'path' | 'bundled';
  /**
   * Set when `hydraSession.serverPath` names no executable file here, so the
   * PATH or the bundled binary runs instead: the caller says so visibly. A
   * remote window may briefly see the User settings' value before VS Code
   * filters it out (the setting is `machine-overridable`), and a stale path
   * should not leave the user with no server when one is at hand.
   */
  unusableSetting?: string;
}

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, process.platform === 'win32' ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Expands `~/` and resolves a relative path against the first workspace folder. */
export function expandPath(p: string, workspaceFolder: string | undefined): string {
  if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) {
    p = path.join(os.homedir(), p.slice(1));
  }
  if (!path.isAbsolute(p) && workspaceFolder !== undefined) {
    p = path.join(workspaceFolder, p);
  }
  return p;
}

export function findOnPath(name: string, envPath: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (dir === '') {
      continue;
    }
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/**
 * Resolves the binary, or throws an Error that says what was tried.
 * `extensionDir` is where the bundled `server/` folder lives.
 */
export function resolveServer(
  setting: string,
  workspaceFolder: string | undefined,
  extensionDir: string,
  envPath: string | undefined = process.env.PATH,
): Resolved {
  let unusable: string | undefined;
  if (setting.trim() !== '') {
    const file = expandPath(setting.trim(), workspaceFolder);
    if (isExecutable(file)) {
      return { command: file, from: 'setting' };
    }
    unusable = `hydraSession.serverPath is set to "${setting}", but ${file} is not an executable file`;
  }
  const fallback = fallbackServer(extensionDir, envPath);
  if (fallback !== undefined) {
    return unusable === undefined ? fallback : { ...fallback, unusableSetting: unusable };
  }
  if (unusable !== undefined) {
    throw new Error(unusable);
  }
  throw new Error(
    `cannot find ${BINARY_NAME}: hydraSession.serverPath is empty, it is not on the PATH, and this extension has no bundled server`,
  );
}

/** The binary on the PATH, else the bundled one, else undefined. */
function fallbackServer(extensionDir: string, envPath: string | undefined): Resolved | undefined {
  const onPath = findOnPath(BINARY_NAME, envPath);
  if (onPath !== undefined) {
    return { command: onPath, from: 'path' };
  }
  const bundled = path.join(extensionDir, 'server', BINARY_NAME);
  if (fs.existsSync(bundled)) {
    // A .vsix unpacked by some tools loses the executable bit.
    if (!isExecutable(bundled) && process.platform !== 'win32') {
      try {
        fs.chmodSync(bundled, 0o755);
      } catch {
        // The caller reports a missing server.
      }
    }
    if (isExecutable(bundled)) {
      return { command: bundled, from: 'bundled' };
    }
  }
  return undefined;
}
