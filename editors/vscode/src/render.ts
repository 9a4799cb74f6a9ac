// Turns a `sessionReference/prepare` result into the Markdown document that
// "Hydra: Prepare Referenced Context" shows. Pure, shared with no VS Code API.

import type { Candidate, Prepared } from './lsp_ext';

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
}

/** The rendered context as the model will see it, then the statistics. */
export function renderPrepared(result: Prepared): string | undefined {
  const context = result.additionalContext;
  if (context === undefined) {
    return undefined;
  }
  const text = context.content.map((c) => c.text).join('\n');
  const rows = context.source.references.map(
    (r) =>
      `| ${cell(r.label)} | \`${cell(r.sessionId)}\` | ${r.retainedMessages} of ${r.originalMessages} | ` +
      `${r.omittedMessages} | ${r.omittedBytes} | ${r.truncated ? 'yes' : 'no'} | ${r.compacted ? 'yes' : 'no'} | ` +
      `${r.capturedThroughSeq ?? '–'} |`,
  );
  return [
    text,
    '',
    '',
    '---',
    '',
    '## Reference statistics',
    '',
    '| label | session | messages kept | omitted messages | omitted bytes | truncated | compacted | through seq |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** YYYY-MM-DD (UTC) of a Unix-milliseconds timestamp. */
export function date(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * A short age, the same as the server's completion detail shows: minutes,
 * hours or days, else the date; a time in the future is shown as its date.
 */
export function age(createdAt: number, now: number = Date.now()): string {
  if (createdAt > now) {
    return date(createdAt);
  }
  const secs = Math.floor((now - createdAt) / 1000);
  if (secs < 60) {
    return 'just now';
  }
  if (secs < 3600) {
    return `${Math.floor(secs / 60)} min ago`;
  }
  if (secs < 86400) {
    return `${Math.floor(secs / 3600)} h ago`;
  }
  if (secs < 2_592_000) {
    return `${Math.floor(secs / 86400)} d ago`;
  }
  return date(createdAt);
}

/** The picker's detail line, as the server's completion detail: folder · workspace · age. */
export function candidateDetail(c: Candidate, now: number = Date.now()): string {
  const place =
    c.cwd === undefined ? 'no cwd' : `${c.cwd} · ${c.sameWorkspace ? 'same workspace' : 'other workspace'}`;
  return `${place} · ${age(c.createdAt, now)}`;
}

/** The id to show beside a candidate's title: none when the title is the id. */
export function candidateDescription(c: Candidate): string | undefined {
  const title = c.displayTitle ?? c.label;
  return title === c.sessionId ? undefined : c.sessionId;
}

const URI_PREFIX = 'hydra-session:';

function base64UrlDecode(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    return undefined;
  }
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  // Canonical: no padding, and the unused low bits are zero.
  if (bytes.toString('base64url') !== text) {
    return undefined;
  }
  return bytes.toString('utf8');
}

/** The session id of a canonical `hydra-session:` URI, else undefined. */
export function decodeSessionUri(uri: string): string | undefined {
  if (!uri.startsWith(URI_PREFIX)) {
    return undefined;
  }
  const json = base64UrlDecode(uri.slice(URI_PREFIX.length));
  if (json === undefined) {
    return undefined;
  }
  try {
    const id: unknown = JSON.parse(json);
    if (typeof id !== 'string' || id === '' || JSON.stringify(id) !== json) {
      return undefined;
    }
    return id;
  } catch {
    return undefined;
  }
}

/**
 * The distinct sessions a prompt already references with valid mentions,
 * in order of first appearance, leaving out `self` (the prompt's own
 * session, which is an error of its own and not a reference).
 */
export function referencedSessions(text: string, self?: string): string[] {
  const ids: string[] = [];
  // reference.md §2, exactly.
  const mention = /@\[((?:\\.|[^\\\]])*)\]\((hydra-session:[^\s)]*)\)|(hydra-session:[A-Za-z0-9_-]+)/gu;
  for (const m of text.matchAll(mention)) {
    const id = decodeSessionUri(m[2] ?? m[3]);
    if (id !== undefined && id !== self && !ids.includes(id)) {
      ids.push(id);
    }
  }
  return ids;
}

/** The `@query` just before the cursor, if the cursor ends one (server.md, "Completion"). */
export function queryBeforeCursor(lineToCursor: string): { start: number; query: string } | undefined {
  const m = /(^|[\s(\[{"'])@([^\s@\[\]()]*)$/u.exec(lineToCursor);
  if (m === null) {
    return undefined;
  }
  return { start: m.index + m[1].length, query: m[2] };
}

const PASTE_MARKER = /\x1b\[20[01]~/g;
// C0 controls but tab, line feed and carriage return; DEL; C1 controls
// (U+009B is a CSI of its own to an 8-bit terminal).
const CONTROL = /[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]/g;

/**
 * Text safe to hand a terminal as keys: no ESC, and no control character
 * but tab and line breaks, so nothing in it (a session's title, a message)
 * can end a bracketed paste or send a key of its own. Paste markers go
 * first, repeated until none is left, since removing one can join the
 * pieces around it into another (`\x1b[20\x1b[201~1~`); then the controls,
 * ESC among them, so no marker or sequence survives in any form.
 */
export function terminalSafe(text: string): string {
  let out = text;
  for (let next = out.replace(PASTE_MARKER, ''); next !== out; next = out.replace(PASTE_MARKER, '')) {
    out = next;
  }
  return out.replace(CONTROL, '');
}

/**
 * The prepared prompt as one terminal paste: wrapped in bracketed-paste
 * markers (what a terminal sends for a paste, so an agent's prompt such as
 * `claude` or `codex` takes every line as text rather than as Enter), with
 * no trailing newline, so nothing is submitted until the person presses
 * Enter. The text itself is made `terminalSafe`.
 */
export function asTerminalPaste(text: string): string {
  return `\x1b[200~${terminalSafe(text).replace(/\r?\n$/, '')}\x1b[201~`;
}
