// What the extension shows that needs no VS Code API: the id beside a
// candidate's title and the text a terminal is handed. Everything about
// sessions (details, ages, mentions, limits, the prepare summary) is the
// server's.

import type { Candidate } from './lsp_ext';

/** The id to show beside a candidate's title: none when the title is the id. */
export function candidateDescription(c: Candidate): string | undefined {
  const title = c.displayTitle ?? c.label;
  return title === c.sessionId ? undefined : c.sessionId;
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
