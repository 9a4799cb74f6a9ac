// The server's settings, read from VS Code's `hydraSession.*` configuration.
// Pure: takes a getter, so it runs without VS Code too.

/** The keys the server understands (server.md, "Configuration"). */
export interface ServerSettings {
  store?: string;
  targetSessionId?: string;
  maxReferences?: number;
  candidateLimit?: number;
  maxReferenceBytes?: number | 'auto';
  spillDir?: string;
  spillMaxBytes?: number;
}

export type Getter = (key: string) => unknown;

/**
 * Builds the settings sent to the server. Empty strings mean "unset" in the
 * VS Code UI, so they are left out: the server then keeps its default
 * (`store`) or has no self session (`targetSessionId`). Numbers are passed
 * as they are, so the server can reject a bad value and say why.
 */
export function serverSettings(get: Getter): ServerSettings {
  const out: ServerSettings = {};
  for (const key of ['store', 'targetSessionId'] as const) {
    const value = get(key);
    if (typeof value === 'string' && value.trim() !== '') {
      out[key] = value.trim();
    }
  }
  for (const key of ['maxReferences', 'candidateLimit', 'spillMaxBytes'] as const) {
    const value = get(key);
    if (typeof value === 'number') {
      out[key] = value;
    }
  }
  // `"auto"` (the default): the budget follows the target's model window.
  const budget = get('maxReferenceBytes');
  if (typeof budget === 'number' || budget === 'auto') {
    out.maxReferenceBytes = budget;
  }
  // `""` turns spilling off, so it is passed on; unset keeps the default.
  const spillDir = get('spillDir');
  if (typeof spillDir === 'string') {
    out.spillDir = spillDir.trim();
  }
  return out;
}

/**
 * The server keeps a key's value when an update leaves it out, so going back
 * from a value to "unset" cannot be said in an update: it takes a restart.
 */
export function needsRestart(previous: ServerSettings, next: ServerSettings): boolean {
  return (
    (previous.store !== undefined && next.store === undefined) ||
    (previous.targetSessionId !== undefined && next.targetSessionId === undefined) ||
    (previous.spillDir !== undefined && next.spillDir === undefined)
  );
}
