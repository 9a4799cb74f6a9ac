// The server's custom requests (docs/lsp-extensions.md), typed: one
// `RequestType` per method with its params and result, as the server
// defines them in src/server/lsp_ext.rs and src/proto/ext.rs.
// tests/lsp/ext_shapes.rs reads this file and fails when an interface's
// fields or their types differ from the Rust type's
// (editors/vscode/lsp_ext.shapes), so keep one `export interface` per Rust
// type, one field per line.
import { RequestType } from 'vscode-languageclient/node';

export interface TextDocumentIdentifier {
  uri: string;
}

/** An LSP position (the negotiated encoding's characters). */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export type PrepareFormat = 'json' | 'text' | 'markdown';

export interface PrepareParams {
  textDocument: TextDocumentIdentifier;
  targetSessionId?: string | null;
  format?: PrepareFormat;
}

export interface CandidatesParams {
  textDocument: TextDocumentIdentifier;
  query?: string | null;
}

/** `candidates`' params and the cursor: the `@query` typed before it is the query when none is given. */
export interface PickParams {
  textDocument: TextDocumentIdentifier;
  query?: string | null;
  position?: Position | null;
}

export interface StatusParams {}

export interface TextBlock {
  type: string;
  text: string;
}

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

export interface ContextSource {
  kind: string;
  form: string;
  version: number;
  references: ReferenceStats[];
}

export interface AdditionalContext {
  role: string;
  source: ContextSource;
  content: TextBlock[];
}

/** The prepare result (reference.md §6). */
export interface Prepared {
  content: TextBlock[];
  additionalContext?: AdditionalContext;
}

/** The text form of a prepare result (`format: "text"`). */
export interface PreparedText {
  text: string;
}

/** What an editor shows for a prepare result (`format: "markdown"`); null: no reference. */
export interface PreparedMarkdown {
  markdown?: string | null;
}

/** One session offered for a mention (reference.md §7). */
export interface Candidate {
  sessionId: string;
  label: string;
  displayTitle?: string;
  cwd?: string;
  sameWorkspace: boolean;
  createdAt: number;
  mention: string;
}

/** A candidate and what a picker shows and inserts, as the server decides it. */
export interface PickerCandidate extends Candidate {
  insertText: string;
  detail: string;
  overLimit: boolean;
  range?: Range;
}

export type FileKind = 'directory' | 'file';

/** One file candidate (reference.md §7a). */
export interface FileCandidate {
  path: string;
  kind: FileKind;
}

export interface StoreStatus {
  path: string;
  format: string;
  sessions: number;
  skippedLines: number;
  errors: string[];
}

export type NoteKind = 'missingStore' | 'unreadableStore' | 'unreadableFolder' | 'notASession' | 'allSkipped' | 'duplicateId';

export interface StatusNote {
  kind: NoteKind;
  message: string;
}

/** The full-text search index (docs/search.md). */
export interface SearchStatus {
  enabled: boolean;
  path?: string;
  bytes: number;
  sessions: number;
  behind: number;
  note?: string;
}

export interface Status {
  store: string;
  sessions: number;
  indexing: boolean;
  stores: StoreStatus[];
  notes: StatusNote[];
  notesOmitted: number;
  search?: SearchStatus;
}

export interface SearchParams {
  query: string;
  limit?: number | null;
  textDocument?: TextDocumentIdentifier | null;
  position?: Position | null;
}

/** The text around one match; `ranges` are `[start, end)` in Unicode scalars into `text`. */
export interface SearchSnippet {
  turn: number;
  role: string;
  text: string;
  ranges: [number, number][];
}

/** One session found by what was said in it (docs/search.md), as `search --format json` prints it. */
export interface SearchHit {
  sessionId: string;
  title?: string;
  displayTitle?: string;
  agent: string;
  cwd?: string;
  createdAt: number;
  mention: string;
  score: number;
  snippets: SearchSnippet[];
}

/** A search hit with what a picker shows (`label`, one line; `detail`: agent · cwd · age) and inserts. */
export interface PickerSearchHit extends SearchHit {
  label: string;
  insertText: string;
  detail: string;
  range?: Range;
}

/** `sessionReference/publish`'s params (docs/team-store.md). */
export interface PublishParams {
  to: string;
  sessions: string[];
  as?: string | null;
  allowSecret?: string[];
}

/** One session published: its live id, the pinned mention, the snapshot's hash and size. */
export interface PublishedSession {
  sessionId: string;
  mention: string;
  sha256: string;
  bytes: number;
}

/** A credential `publish` found (in a refusal's `data.findings`): never the credential. */
export interface SecretFinding {
  session: string;
  turn: number;
  kind: string;
}

/** `sessionReference/prepare` with `format` `"json"` (the default). */
export const prepare = new RequestType<PrepareParams & { format?: 'json' }, Prepared, void>('sessionReference/prepare');
/** `sessionReference/prepare` with `format: "text"`. */
export const prepareText = new RequestType<PrepareParams & { format: 'text' }, PreparedText, void>(
  'sessionReference/prepare',
);
/** `sessionReference/prepare` with `format: "markdown"`: what "Prepare Referenced Context" shows. */
export const prepareMarkdown = new RequestType<PrepareParams & { format: 'markdown' }, PreparedMarkdown, void>(
  'sessionReference/prepare',
);
export const candidates = new RequestType<CandidatesParams, Candidate[], void>('sessionReference/candidates');
export const pickCandidates = new RequestType<PickParams, PickerCandidate[], void>(
  'sessionReference/pickCandidates',
);
export const files = new RequestType<CandidatesParams, FileCandidate[], void>('sessionReference/files');
export const status = new RequestType<StatusParams, Status, void>('sessionReference/status');
export const search = new RequestType<SearchParams, PickerSearchHit[], void>('sessionReference/search');
export const publish = new RequestType<PublishParams, PublishedSession[], void>('sessionReference/publish');
