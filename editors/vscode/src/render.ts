// Turns a `sessionReference/prepare` result into the Markdown document that
// "Hydra: Prepare Referenced Context" shows. Pure, shared with no VS Code API.

export interface ReferenceStats {
  sessionId: string;
  label: string;
  capturedFormatVersion?: number;
  capturedThroughSeq?: number;
  compacted: boolean;
  originalMessages: number;
  retainedMessages: number;
  omittedMessages: number;
  omittedBytes: number;
  truncated: boolean;
  inputIndex: number;
}

export interface PrepareResult {
  content: { type: string; text: string }[];
  additionalContext?: {
    role: string;
    source: { kind: string; references: ReferenceStats[] };
    content: { type: string; text: string }[];
  };
}

export interface Candidate {
  sessionId: string;
  label: string;
  displayTitle?: string;
  cwd?: string;
  sameWorkspace: boolean;
  createdAt: number;
  mention: string;
}

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
}

/** The rendered context as the model will see it, then the statistics. */
export function renderPrepared(result: PrepareResult): string | undefined {
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

/** "3 minutes ago" style age of a Unix-milliseconds timestamp. */
export function age(createdAt: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - createdAt) / 1000));
  const units: [number, string][] = [
    [86400 * 365, 'year'],
    [86400 * 30, 'month'],
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size) {
      const n = Math.floor(seconds / size);
      return `${n} ${name}${n === 1 ? '' : 's'} ago`;
    }
  }
  return 'just now';
}

/** The `@query` just before the cursor, if the cursor ends one (server.md, "Completion"). */
export function queryBeforeCursor(lineToCursor: string): { start: number; query: string } | undefined {
  const m = /(^|[\s(\[{"'])@([^\s@\[\]()]*)$/u.exec(lineToCursor);
  if (m === null) {
    return undefined;
  }
  return { start: m.index + m[1].length, query: m[2] };
}

/**
 * The prepared prompt as one terminal paste: wrapped in bracketed-paste
 * markers (what a terminal sends for a paste, so an agent's prompt such as
 * `claude` or `codex` takes every line as text rather than as Enter), with
 * no trailing newline, so nothing is submitted until the person presses
 * Enter. Markers inside the text are removed.
 */
export function asTerminalPaste(text: string): string {
  const body = text.replace(/\x1b\[20[01]~/g, '').replace(/\r?\n$/, '');
  return `\x1b[200~${body}\x1b[201~`;
}
