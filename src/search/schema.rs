//! The search documents, in one place, so that the same documents can be
//! exported to another engine (Quickwit is built on tantivy; OpenSearch
//! takes the same fields as JSON) without reading the rest of the module.
//!
//! Two kinds of document, both carrying the session's id:
//! - one per message of the session's projected surface (user and
//!   assistant text and checkpoint summaries after shadowing, before
//!   retention): its turn (1-based place on the surface), role, time, text;
//! - one per session (`kind` = `session`): its title and display title as
//!   text (so titles match like bodies), agent, cwd, creation time, and
//!   what the writer needs to update it incrementally (the log's version
//!   and how many messages are indexed, with a hash of them).

use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST};

use super::counted;
use super::tokenizer;

/// `kind` of a message document.
pub const MESSAGE: &str = "message";
/// `kind` of a session document.
pub const SESSION: &str = "session";
/// `role` of a session document's text (its titles).
pub const TITLE_ROLE: &str = "title";

/// The fields, looked up once.
#[derive(Debug, Clone)]
pub struct Fields {
    pub schema: Schema,
    /// `message` or `session` (raw, indexed).
    pub kind: Field,
    /// The session id, on every document (raw, indexed, fast):
    /// deleting a session deletes every document of it.
    pub session: Field,
    /// The session id on its session document only: replaces that one
    /// document without touching the messages.
    pub session_doc: Field,
    /// `user`, `assistant` or `title` (raw, fast).
    pub role: Field,
    /// A message's place on the surface, from 1; 0 on a session document.
    pub turn: Field,
    /// Milliseconds since the epoch: a message's session's creation time
    /// (the logs give messages no time of their own in the model), fast
    /// for the `after:`/`before:` filters and recency.
    pub time: Field,
    /// The words: a message's text, or a session's titles (positions kept
    /// for phrases; not stored: a snippet is cut from the log read again,
    /// see `texts.rs`, or from the session document's titles).
    pub text: Field,
    /// The log format (`claude-code`, `codex`, …), raw, indexed on every
    /// document for `agent:`.
    pub agent: Field,
    /// The cwd and each of its ancestors, raw, on every document: `cwd:P`
    /// is one term whether P is the folder or one above it.
    pub cwd_path: Field,
    /// The cwd as written (session documents, fast).
    pub cwd: Field,
    /// The latest title (session documents, fast).
    pub title: Field,
    /// The header's durable display title (session documents, fast).
    pub display_title: Field,
    /// A hash of the log's stamp when it was indexed (session documents;
    /// fast, as every field the writer compares).
    pub version: Field,
    /// How many messages of the surface are indexed (session documents).
    pub messages: Field,
    /// A hash of those messages, in order: an append keeps it (only new
    /// messages are added); a shadowing checkpoint, a rewind or a rewrite
    /// changes it (the session is indexed again).
    pub surface_hash: Field,
    /// A message's event `seq` in its log (message documents, fast):
    /// where its snippet's text is read again at query time.
    pub seq: Field,
    /// Session documents: every term of the session's messages and titles
    /// (each once per message that holds it, at most [`SESSION_TF`]
    /// times: they make its length), document ids only (no frequencies,
    /// no positions): a session matches when its messages
    /// together hold every word (docs/search.md "Ranking").
    pub words: Field,
    /// Session documents: the other forms of those terms (English and
    /// German stems, `ae` read as `ä`; `forms.rs`) that differ from the
    /// term itself (a form that is the term is in `words`), likewise.
    pub stems: Field,
}

/// How many times at most a term counts in a session's `words` and
/// `stems`: the messages that hold it, up to this.
pub const SESSION_TF: u32 = 8;

impl Fields {
    pub fn new() -> Self {
        let mut b = Schema::builder();
        // Raw terms are only filtered on and looked up (constant scores,
        // deletes), never ranked: no fieldnorms, which would cost a byte
        // per document and field (all of them, messages included).
        let raw = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("raw")
                .set_index_option(IndexRecordOption::Basic)
                .set_fieldnorms(false),
        );
        let text_options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer::NAME)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        // Nothing is stored: what a search reads of every document it
        // ranks is a column (`columns.rs`: the session id, a message's
        // role, turn and `seq`, what a hit shows of its session), and so
        // is what the writer compares on every sync (one value per
        // session document). A stored document would cost a block of the
        // doc store decompressed per read, and the store's pages touched
        // stayed mapped into the language server (issue 29 item 6).
        let raw_fast = raw.clone() | FAST;
        let kind = b.add_text_field("kind", raw.clone());
        let session = b.add_text_field("session", raw_fast.clone());
        let session_doc = b.add_text_field("session_doc", raw.clone());
        let role = b.add_text_field("role", raw_fast.clone());
        let turn = b.add_u64_field("turn", FAST);
        let time = b.add_u64_field("time", FAST);
        let text = b.add_text_field("text", text_options);
        let agent = b.add_text_field("agent", raw_fast);
        let cwd_path = b.add_text_field("cwd_path", raw.clone());
        let cwd = b.add_text_field("cwd", FAST);
        let title = b.add_text_field("title", FAST);
        let display_title = b.add_text_field("display_title", FAST);
        let version = b.add_u64_field("version", FAST);
        let messages = b.add_u64_field("messages", FAST);
        let surface_hash = b.add_u64_field("surface_hash", FAST);
        let seq = b.add_u64_field("seq", FAST);
        // Counted by the writer already (per message), given as
        // `counted` entries that its tokenizer hands out as they are.
        // Document ids only: the term frequencies were a quarter of these
        // postings (one byte each past the last full block), and the
        // session-level match ranks by which words a session holds, its
        // length and the words' rarity (the counts still make the length).
        let session_terms = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(counted::NAME)
                .set_index_option(IndexRecordOption::Basic),
        );
        let words = b.add_text_field("words", session_terms.clone());
        let stems = b.add_text_field("stems", session_terms);
        Fields {
            schema: b.build(),
            kind,
            session,
            session_doc,
            role,
            turn,
            time,
            text,
            agent,
            cwd_path,
            cwd,
            title,
            display_title,
            version,
            messages,
            surface_hash,
            seq,
            words,
            stems,
        }
    }
}

impl Default for Fields {
    fn default() -> Self {
        Self::new()
    }
}

/// `cwd` and each folder above it (`/a/b` → `/a/b`, `/a`), as `cwd_path`
/// holds them; a trailing `/` is not part of a folder's name.
pub fn cwd_ancestors(cwd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = cwd.trim_end_matches('/');
    while !path.is_empty() {
        out.push(path.to_string());
        match path.rfind('/') {
            Some(at) => path = &path[..at],
            None => break,
        }
    }
    if cwd.starts_with('/') && !out.is_empty() {
        out.push("/".into());
    }
    out
}

/// How `cwd:` and the workspace name a folder: without a trailing `/`.
pub fn cwd_term(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() && path.starts_with('/') {
        "/"
    } else {
        trimmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cwd_is_found_by_itself_and_every_folder_above() {
        assert_eq!(
            cwd_ancestors("/home/ana/shop/"),
            ["/home/ana/shop", "/home/ana", "/home", "/"]
        );
        assert_eq!(cwd_ancestors("rel/x"), ["rel/x", "rel"]);
        assert_eq!(cwd_term("/home/ana/"), "/home/ana");
        assert_eq!(cwd_term("/"), "/");
    }

    #[test]
    fn the_schema_names_every_field_once() {
        let fields = Fields::new();
        let names: Vec<&str> = fields.schema.fields().map(|(_, e)| e.name()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(names.len(), unique.len());
        assert!(names.contains(&"text") && names.contains(&"session"));
    }
}
