//! The custom requests, one type each, as rust-analyzer's and taplo's
//! `lsp_ext` do: the method name, its params and its result in one place.
//! docs/lsp-extensions.md documents them and records a hash of this file,
//! so changing a shape without the doc fails a test. The results the CLI
//! prints too are the wire types of `proto::ext` (covered by the same
//! hash); nothing here is a core type, so the core cannot change the
//! protocol unnoticed. Every shape is `Serialize` and `Deserialize`, so
//! tests/lsp/ext_shapes.rs can read its fields and compare them with the
//! VS Code extension's `lsp_ext.ts`.

pub use lsp_types::request::Request;
use lsp_types::{Position, Range, TextDocumentIdentifier};
use serde::{Deserialize, Serialize};

pub use crate::proto::ext::{
    AdditionalContext, Candidate, ContextSource, FileCandidate, FileKind, NoteKind, Prepared,
    PublishedSession, ReferenceStats, SearchHit, SearchSnippet, SecretFinding, StatusNote,
    StoreStatus, TextBlock,
};
use crate::reference::mention;
use crate::search;

/// `sessionReference/prepare`: the prepare result for a document's text.
pub enum Prepare {}

impl Request for Prepare {
    const METHOD: &'static str = "sessionReference/prepare";
    type Params = PrepareParams;
    type Result = PrepareResult;
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepareParams {
    pub text_document: TextDocumentIdentifier,
    /// Overrides the `targetSessionId` setting for this call.
    #[serde(default)]
    pub target_session_id: Option<String>,
    /// `"json"` (the default): the prepare result; `"text"`: the text form
    /// of `prepare --format text`, as `{"text": …}`; `"markdown"`: what an
    /// editor shows, as `{"markdown": …}`.
    #[serde(default)]
    pub format: PrepareFormat,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrepareFormat {
    #[default]
    Json,
    Text,
    Markdown,
}

/// The prepare result, or its text form.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PrepareResult {
    Prepared(Prepared),
    Text(PreparedText),
    Markdown(PreparedMarkdown),
}

/// The text form of a prepare result: `{"text": …}`.
#[derive(Debug, Serialize, Deserialize)]
pub struct PreparedText {
    pub text: String,
}

/// What an editor shows for a prepare result: `{"markdown": …}`, the
/// rendered context then a table of the reference statistics; `null` when
/// the document references no session. Outside the contract's prepare
/// result, which stays byte for byte the CLI's.
#[derive(Debug, Serialize, Deserialize)]
pub struct PreparedMarkdown {
    pub markdown: Option<String>,
}

/// `sessionReference/candidates`: ranked session candidates for a query,
/// exactly the contract's candidates array (reference.md §7): nothing is
/// added to it, so what the contract says is what the wire carries.
pub enum Candidates {}

impl Request for Candidates {
    const METHOD: &'static str = "sessionReference/candidates";
    type Params = CandidatesParams;
    type Result = Vec<Candidate>;
}

/// `sessionReference/pickCandidates`: the same candidates, each with the
/// mention a picker inserts. A request of its own (issue 17 item 5), so the
/// contract's `candidates` answer stays the contract's.
pub enum PickCandidates {}

impl Request for PickCandidates {
    const METHOD: &'static str = "sessionReference/pickCandidates";
    type Params = PickParams;
    type Result = Vec<PickerCandidate>;
}

/// The params of `pickCandidates`: those of `candidates`, and the cursor.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PickParams {
    pub text_document: TextDocumentIdentifier,
    /// The query; absent or `null` with a `position`: the `@query` typed
    /// just before it (completion's rule), else `""`.
    #[serde(default)]
    pub query: Option<String>,
    /// The cursor: each candidate's `range` is the `@query` that ends here.
    #[serde(default)]
    pub position: Option<Position>,
}

/// A candidate of reference.md §7, plus what a picker shows and inserts:
/// the contract's `mention` stays its canonical text, and the editors
/// never compute a mention, a detail or the reference limit themselves.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PickerCandidate {
    #[serde(flatten)]
    pub candidate: Candidate,
    /// `mention` with the one-line rule applied to its label.
    pub insert_text: String,
    /// Completion's detail of the session: `agent · cwd · workspace · age`,
    /// after `would exceed maxReferences (N) · ` when `overLimit`.
    pub detail: String,
    /// Mentioning it would make the document reference more than
    /// `maxReferences` sessions (these come after the others).
    pub over_limit: bool,
    /// The `@query` ending at the params' `position`, which the mention
    /// replaces; absent without a `position` or with no `@query` there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
}

/// The params of `candidates` (and of `files`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidatesParams {
    pub text_document: TextDocumentIdentifier,
    #[serde(default)]
    pub query: Option<String>,
}

/// `sessionReference/files`: file candidates of the document's target cwd
/// (reference.md §7a).
pub enum Files {}

impl Request for Files {
    const METHOD: &'static str = "sessionReference/files";
    type Params = CandidatesParams;
    type Result = Vec<FileCandidate>;
}

/// `sessionReference/status`: the stores and whether they are indexed yet.
/// It never waits for the index.
pub enum Status {}

impl Request for Status {
    const METHOD: &'static str = "sessionReference/status";
    type Params = StatusParams;
    type Result = StatusResult;
}

/// `{}`: no parameters.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct StatusParams {}

/// The store list's status: the shape the CLI's `status` prints too.
pub use crate::proto::ext::Status as StatusResult;

/// `sessionReference/publish`: sessions published to a team store
/// (docs/team-store.md), as the CLI's `publish` does. A refusal is
/// RequestFailed with `data.code` (`SESSION_REFERENCE_SECRET` with
/// `data.findings` when credentials were found; nothing is uploaded then).
pub enum Publish {}

impl Request for Publish {
    const METHOD: &'static str = "sessionReference/publish";
    type Params = PublishParams;
    type Result = Vec<PublishedSession>;
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishParams {
    /// The team store's URL (`s3://…`, `gs://…`, `az://…`, `file:///…`).
    pub to: String,
    /// Each a mention, a bare `hydra-session:` URI or an id.
    pub sessions: Vec<String>,
    /// The publisher name (default: the `publisher` setting, else the
    /// login name).
    #[serde(default, rename = "as")]
    pub publisher: Option<String>,
    /// Secret kinds that are not secrets here.
    #[serde(default)]
    pub allow_secret: Vec<String>,
}

/// `sessionReference/search`: sessions found by what was said in them
/// (docs/search.md), best first, each with what a picker shows and inserts.
pub enum Search {}

impl Request for Search {
    const METHOD: &'static str = "sessionReference/search";
    type Params = SearchParams;
    type Result = Vec<PickerSearchHit>;
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchParams {
    /// The query, in the language of `hydra-session-lsp search`.
    pub query: String,
    /// At most this many sessions (default 10).
    #[serde(default)]
    pub limit: Option<u64>,
    /// The document asking: its workspace folder's sessions rank first.
    #[serde(default)]
    pub text_document: Option<TextDocumentIdentifier>,
    /// The cursor in that document: each hit's `range` is the `@query`
    /// that ends here.
    #[serde(default)]
    pub position: Option<Position>,
}

/// A session of `search --format json`, plus what a picker shows and
/// inserts (issue 17 item 5: the editors render, they never compute a
/// mention or an age themselves).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PickerSearchHit {
    #[serde(flatten)]
    pub hit: SearchHit,
    /// `displayTitle ?? title ?? sessionId` under the one-line rule: the
    /// title a picker shows (the mention's label).
    pub label: String,
    /// `mention` with the one-line rule applied to its label.
    pub insert_text: String,
    /// `agent · cwd · age`, on one line.
    pub detail: String,
    /// As `pickCandidates`' `range`: the `@query` the mention replaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
}

impl PickerSearchHit {
    pub fn new(hit: search::SessionHit, detail: String, range: Option<Range>) -> Self {
        PickerSearchHit {
            label: mention::one_line_label(&hit.session_id, hit.label()),
            insert_text: hit.one_line_mention(),
            detail,
            range,
            hit: hit.into(),
        }
    }
}

/// Every custom method, in the order the docs list them.
pub const METHODS: [&str; 7] = [
    Prepare::METHOD,
    Candidates::METHOD,
    PickCandidates::METHOD,
    Files::METHOD,
    Status::METHOD,
    Search::METHOD,
    Publish::METHOD,
];
