// "Hydra: Search Conversations": the mention picker's full-text mode. Each
// keystroke (debounced) asks the server's `sessionReference/search`,
// cancelling the request before it, and lists what the server says to show:
// the title, agent · cwd · age, and the best snippet. The mention inserted
// is the server's `insertText`; nothing here builds a mention.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import * as ext from './lsp_ext';

/** Long enough to skip the keystrokes of a word, short enough to feel live. */
const DEBOUNCE_MS = 150;
/** As many sessions as a quick pick shows without scrolling far. */
const LIMIT = 20;

export interface SearchItem extends vscode.QuickPickItem {
  hit?: ext.PickerSearchHit;
}

/**
 * The quick pick's rows for the server's hits. `alwaysShow`: the server has
 * already matched the words (in message bodies, which the row does not
 * show whole), so the quick pick must not filter the rows again by label.
 */
export function searchItems(hits: ext.PickerSearchHit[]): SearchItem[] {
  return hits.map((hit) => ({
    label: hit.label,
    description: hit.detail,
    detail: hit.snippets[0]?.text,
    alwaysShow: true,
    hit,
  }));
}

/** A row that says something and inserts nothing. */
function note(label: string): SearchItem {
  return { label, alwaysShow: true };
}

/**
 * Shows the search picker for the document `uri`, starting with `initial`;
 * resolves to the hit chosen, or undefined when the picker is closed.
 */
export function pickSearchHit(
  client: LanguageClient,
  uri: string,
  initial: string,
  describe: (e: unknown) => string,
): Promise<ext.PickerSearchHit | undefined> {
  const pick = vscode.window.createQuickPick<SearchItem>();
  pick.title = 'Hydra: Search Conversations';
  pick.placeholder = 'Words said in a session ("a phrase", agent:codex, cwd:PATH, after:2025-11)';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  pick.value = initial;
  // The request under way; a newer query cancels it ($/cancelRequest).
  let pending: vscode.CancellationTokenSource | undefined;
  const load = async (query: string): Promise<void> => {
    pending?.cancel();
    pending?.dispose();
    pending = undefined;
    if (query.trim() === '') {
      pick.items = [];
      pick.busy = false;
      return;
    }
    const mine = new vscode.CancellationTokenSource();
    pending = mine;
    pick.busy = true;
    try {
      const hits = await client.sendRequest(ext.search, { query, limit: LIMIT, textDocument: { uri } }, mine.token);
      if (pending === mine) {
        pick.items = hits.length > 0 ? searchItems(hits) : [note('No session says that')];
      }
    } catch (e) {
      // A malformed query (an open quote while typing one) says why.
      if (pending === mine) {
        pick.items = [note(`$(warning) ${describe(e)}`)];
      }
    } finally {
      if (pending === mine) {
        pick.busy = false;
      }
    }
  };
  let debounce: NodeJS.Timeout | undefined;
  pick.onDidChangeValue((value) => {
    clearTimeout(debounce);
    debounce = setTimeout(() => void load(value), DEBOUNCE_MS);
  });
  return new Promise<ext.PickerSearchHit | undefined>((resolve) => {
    pick.onDidAccept(() => {
      const hit = pick.selectedItems[0]?.hit;
      if (hit !== undefined) {
        resolve(hit);
        pick.hide();
      }
    });
    pick.onDidHide(() => {
      clearTimeout(debounce);
      const running = pending;
      pending = undefined;
      running?.cancel();
      running?.dispose();
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
    void load(pick.value);
  });
}
