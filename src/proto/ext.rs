//! The contract's JSON answers as wire types: the results of the custom
//! requests (docs/lsp-extensions.md) and the CLI's JSON output, which
//! print the same shapes. The core derives no `Serialize`, so a field
//! added to a core type changes no answer until it is added here, and
//! docs/lsp-extensions.md records a hash of this file beside
//! `server/lsp_ext.rs` (tests/lsp/extensions_doc.rs). The VS Code
//! extension's `lsp_ext.ts` declares the same fields
//! (tests/lsp/ext_shapes.rs).

use serde::{Deserialize, Serialize};

use crate::files;
use crate::model;
use crate::publish;
use crate::reference::candidates as core_candidates;
use crate::reference::prepare as core_prepare;
use crate::search;

/// One session offered for a mention (reference.md §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub session_id: String,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    pub same_workspace: bool,
    pub created_at: u64,
    pub mention: String,
}

impl From<core_candidates::Candidate> for Candidate {
    fn from(c: core_candidates::Candidate) -> Self {
        Candidate {
            session_id: c.session_id,
            label: c.label,
            display_title: c.display_title,
            cwd: c.cwd,
            same_workspace: c.same_workspace,
            created_at: c.created_at,
            mention: c.mention,
        }
    }
}

/// The candidates array, in the core's order.
pub fn candidates(items: Vec<core_candidates::Candidate>) -> Vec<Candidate> {
    items.into_iter().map(Candidate::from).collect()
}

/// One file candidate (reference.md §7a): `{"path","kind"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCandidate {
    pub path: String,
    pub kind: FileKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    Directory,
    File,
}

impl From<files::FileCandidate> for FileCandidate {
    fn from(c: files::FileCandidate) -> Self {
        FileCandidate {
            path: c.path,
            kind: match c.kind {
                files::FileKind::Directory => FileKind::Directory,
                files::FileKind::File => FileKind::File,
            },
        }
    }
}

/// The file candidates array, in the core's order.
pub fn file_candidates(items: Vec<files::FileCandidate>) -> Vec<FileCandidate> {
    items.into_iter().map(FileCandidate::from).collect()
}

/// The result of `prepare` (reference.md §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prepared {
    pub content: Vec<TextBlock>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<AdditionalContext>,
}

/// `{"type":"text","text":…}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextBlock {
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdditionalContext {
    pub role: String,
    pub source: ContextSource,
    pub content: Vec<TextBlock>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextSource {
    pub kind: String,
    pub form: String,
    pub version: u32,
    pub references: Vec<ReferenceStats>,
}

/// What one source contributed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceStats {
    pub session_id: String,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured_format_version: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured_through_seq: Option<u64>,
    pub compacted: bool,
    pub original_messages: usize,
    pub retained_messages: usize,
    pub omitted_messages: usize,
    pub omitted_bytes: u64,
    pub truncated: bool,
    pub input_index: usize,
}

impl From<core_prepare::Prepared> for Prepared {
    fn from(p: core_prepare::Prepared) -> Self {
        Prepared {
            content: text_blocks(p.content),
            additional_context: p.additional_context.map(|c| AdditionalContext {
                role: c.role.to_string(),
                source: ContextSource {
                    kind: c.source.kind.to_string(),
                    form: c.source.form.to_string(),
                    version: c.source.version,
                    references: c
                        .source
                        .references
                        .into_iter()
                        .map(ReferenceStats::from)
                        .collect(),
                },
                content: text_blocks(c.content),
            }),
        }
    }
}

fn text_blocks(blocks: Vec<core_prepare::TextBlock>) -> Vec<TextBlock> {
    blocks
        .into_iter()
        .map(|b| TextBlock {
            kind: b.kind.to_string(),
            text: b.text,
        })
        .collect()
}

impl From<core_prepare::ReferenceStats> for ReferenceStats {
    // The core's `title` stays out: the result's shape is reference.md's.
    fn from(s: core_prepare::ReferenceStats) -> Self {
        ReferenceStats {
            session_id: s.session_id,
            label: s.label,
            captured_format_version: s.captured_format_version,
            captured_through_seq: s.captured_through_seq,
            compacted: s.compacted,
            original_messages: s.original_messages,
            retained_messages: s.retained_messages,
            omitted_messages: s.omitted_messages,
            omitted_bytes: s.omitted_bytes,
            truncated: s.truncated,
            input_index: s.input_index,
        }
    }
}

/// The status of a store list: `sessionReference/status` and the CLI's
/// `status` (docs/lsp-extensions.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub store: String,
    pub sessions: usize,
    pub indexing: bool,
    pub stores: Vec<StoreStatus>,
    pub notes: Vec<StatusNote>,
    pub notes_omitted: usize,
    /// The full-text index (docs/search.md); absent where a face keeps
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchStatus>,
}

/// The search index's part of a status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchStatus {
    /// `false` when the setting or the flag turned it off, or a full disk
    /// did (then `note` says why).
    pub enabled: bool,
    /// The index's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The bytes of its files.
    pub bytes: u64,
    /// Sessions it holds.
    pub sessions: usize,
    /// Sessions of the stores it does not hold as they are now.
    pub behind: usize,
    /// Why search is off, that it is not built yet, or why the index
    /// could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One store of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStatus {
    pub path: String,
    pub format: String,
    pub sessions: usize,
    pub skipped_lines: u64,
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusNote {
    pub kind: NoteKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NoteKind {
    MissingStore,
    UnreadableStore,
    UnreadableFolder,
    NotASession,
    AllSkipped,
    DuplicateId,
}

impl From<model::Status> for Status {
    fn from(s: model::Status) -> Self {
        Status {
            store: s.store,
            sessions: s.sessions,
            indexing: s.indexing,
            stores: s.stores.into_iter().map(StoreStatus::from).collect(),
            notes: s.notes.into_iter().map(StatusNote::from).collect(),
            notes_omitted: s.notes_omitted,
            search: None,
        }
    }
}

impl From<model::SearchStatus> for SearchStatus {
    fn from(s: model::SearchStatus) -> Self {
        SearchStatus {
            enabled: s.enabled,
            path: s.path,
            bytes: s.bytes,
            sessions: s.sessions,
            behind: s.behind,
            note: s.note,
        }
    }
}

impl From<model::StoreStatus> for StoreStatus {
    fn from(s: model::StoreStatus) -> Self {
        StoreStatus {
            path: s.path,
            format: s.format,
            sessions: s.sessions,
            skipped_lines: s.skipped_lines,
            errors: s.errors,
        }
    }
}

impl From<model::StatusNote> for StatusNote {
    fn from(n: model::StatusNote) -> Self {
        let kind = match n.kind {
            model::NoteKind::MissingStore => NoteKind::MissingStore,
            model::NoteKind::UnreadableStore => NoteKind::UnreadableStore,
            model::NoteKind::UnreadableFolder => NoteKind::UnreadableFolder,
            model::NoteKind::NotASession => NoteKind::NotASession,
            model::NoteKind::AllSkipped => NoteKind::AllSkipped,
            model::NoteKind::DuplicateId => NoteKind::DuplicateId,
        };
        StatusNote {
            kind,
            message: n.message,
        }
    }
}

/// One session found by the full-text search (docs/search.md): what
/// `search --format json`, the MCP tool `search_sessions` and
/// `sessionReference/search` carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_title: Option<String>,
    pub agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    pub created_at: u64,
    pub mention: String,
    pub score: f32,
    pub snippets: Vec<SearchSnippet>,
}

/// The text around one match: `ranges` are `[start, end)` in Unicode
/// scalars into `text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchSnippet {
    pub turn: u64,
    pub role: String,
    pub text: String,
    pub ranges: Vec<[usize; 2]>,
}

impl From<search::SessionHit> for SearchHit {
    fn from(h: search::SessionHit) -> Self {
        SearchHit {
            session_id: h.session_id,
            title: h.title,
            display_title: h.display_title,
            agent: h.agent,
            cwd: h.cwd,
            created_at: h.created_at,
            mention: h.mention,
            score: h.score,
            snippets: h.snippets.into_iter().map(SearchSnippet::from).collect(),
        }
    }
}

impl From<search::Snippet> for SearchSnippet {
    fn from(s: search::Snippet) -> Self {
        SearchSnippet {
            turn: s.turn,
            role: s.role,
            text: s.text,
            ranges: s.ranges,
        }
    }
}

/// The search results, in the core's order.
pub fn search_hits(hits: Vec<search::SessionHit>) -> Vec<SearchHit> {
    hits.into_iter().map(SearchHit::from).collect()
}

/// One session published (the CLI's `publish`, `sessionReference/publish`):
/// its live published id, the canonical mention of the pinned version, the
/// snapshot's SHA-256 and size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedSession {
    pub session_id: String,
    pub mention: String,
    pub sha256: String,
    pub bytes: u64,
}

/// A credential found by `publish`'s scan: where and what kind, never the
/// credential (`turn` as search numbers turns; 0 = id, titles, cwd).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretFinding {
    pub session: String,
    pub turn: u64,
    pub kind: String,
}

impl From<publish::Published> for PublishedSession {
    fn from(p: publish::Published) -> Self {
        PublishedSession {
            session_id: p.session_id,
            mention: p.mention,
            sha256: p.sha256,
            bytes: p.bytes,
        }
    }
}

impl From<&publish::secrets::Finding> for SecretFinding {
    fn from(f: &publish::secrets::Finding) -> Self {
        SecretFinding {
            session: f.session.clone(),
            turn: f.turn,
            kind: f.kind.to_owned(),
        }
    }
}

mod summary;

#[cfg(test)]
mod tests;
