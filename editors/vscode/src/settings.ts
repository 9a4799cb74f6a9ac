// The server's settings, read from VS Code's `hydraSession.*` configuration.
// Pure: takes a getter, so it runs without VS Code too.

/**
 * The keys the server understands (server.md, "Configuration"). Every key
 * is always sent: `null` is "unset", which the server takes as "back to the
 * default", so clearing a setting is an ordinary update, never a restart.
 */
export interface ServerSettings {
  store: string | null;
  targetSessionId: string | null;
  maxReferences: number | null;
  candidateLimit: number | null;
  maxReferenceBytes: number | 'auto' | null;
  spillDir: string | null;
  spillMaxBytes: number | null;
  searchIndex: boolean | null;
}

export type Getter = (key: string) => unknown;

/**
 * Builds the settings sent to the server. Empty strings mean "unset" in the
 * VS Code UI, so they are `null`: the server then uses its default stores
 * (`store`) or has no self session (`targetSessionId`). Numbers are passed
 * as they are, so the server can reject a bad value and say why.
 */
export function serverSettings(get: Getter): ServerSettings {
  const text = (key: string): string | null => {
    const value = get(key);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
  };
  const number = (key: string): number | null => {
    const value = get(key);
    return typeof value === 'number' ? value : null;
  };
  // `"auto"` (the default): the budget follows the target's model window.
  const budget = get('maxReferenceBytes');
  // `""` turns spilling off, so it is passed on; unset is the default directory.
  const spillDir = get('spillDir');
  return {
    store: text('store'),
    targetSessionId: text('targetSessionId'),
    maxReferences: number('maxReferences'),
    candidateLimit: number('candidateLimit'),
    maxReferenceBytes: typeof budget === 'number' || budget === 'auto' ? budget : null,
    spillDir: typeof spillDir === 'string' ? spillDir.trim() : null,
    spillMaxBytes: number('spillMaxBytes'),
    // `false` keeps no full-text index; unset is on.
    searchIndex: typeof get('searchIndex') === 'boolean' ? (get('searchIndex') as boolean) : null,
  };
}
