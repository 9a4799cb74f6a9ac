//! The VS Code extension's `lsp_ext.ts` declares the wire shapes the server
//! has: every param and result of the custom requests, field by field.
//! The fields are read from the Rust types themselves (a sample of each,
//! serialized; a field is optional when the type still reads without it)
//! and written as editors/vscode/lsp_ext.shapes; the test fails when that
//! list is not the checked-in one, or when `lsp_ext.ts` declares other
//! fields. So a Rust field changed without `lsp_ext.ts` fails here.

use std::collections::BTreeMap;

use hydra_session_lsp::proto::ext::{
    AdditionalContext, Candidate, ContextSource, FileCandidate, FileKind, NoteKind, Prepared,
    ReferenceStats, SearchHit, SearchSnippet, SearchStatus, Status, StatusNote, StoreStatus,
    TextBlock,
};
use hydra_session_lsp::server::lsp_ext::{
    CandidatesParams, PickerCandidate, PickerSearchHit, PrepareFormat, PrepareParams, PreparedText,
    SearchParams, StatusParams,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/editors/vscode/lsp_ext.shapes");
const TYPESCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/editors/vscode/src/lsp_ext.ts");

/// `Name: field optional? …`, the fields in their JSON order. A field is
/// optional when the sample without it still deserializes.
fn object<T: Serialize + DeserializeOwned>(name: &str, sample: &T) -> String {
    let Value::Object(full) = serde_json::to_value(sample).expect("serializes") else {
        panic!("{name} is not a JSON object");
    };
    let mut fields = Vec::new();
    for key in full.keys() {
        let mut without = full.clone();
        without.remove(key);
        let optional = serde_json::from_value::<T>(Value::Object(without)).is_ok();
        fields.push(format!("{key}{}", if optional { "?" } else { "" }));
    }
    format!("{name}: {}", fields.join(" "))
        .trim_end()
        .to_string()
}

/// `Name = value | …` for a string enum.
fn strings<T: Serialize>(name: &str, all: &[T]) -> String {
    let values: Vec<String> = all
        .iter()
        .map(|v| match serde_json::to_value(v).expect("serializes") {
            Value::String(s) => s,
            other => panic!("{name}: {other} is not a string"),
        })
        .collect();
    format!("{name} = {}", values.join(" | "))
}

fn uri_params() -> Value {
    json!({"uri": "file:///w/p.md"})
}

/// Every value of each string enum. The matches have no wildcard, so a new
/// variant does not compile until it is listed here.
fn prepare_formats() -> [PrepareFormat; 2] {
    let all = [PrepareFormat::Json, PrepareFormat::Text];
    for f in all {
        match f {
            PrepareFormat::Json | PrepareFormat::Text => {}
        }
    }
    all
}

fn file_kinds() -> [FileKind; 2] {
    let all = [FileKind::Directory, FileKind::File];
    for k in all {
        match k {
            FileKind::Directory | FileKind::File => {}
        }
    }
    all
}

fn note_kinds() -> [NoteKind; 6] {
    let all = [
        NoteKind::MissingStore,
        NoteKind::UnreadableStore,
        NoteKind::UnreadableFolder,
        NoteKind::NotASession,
        NoteKind::AllSkipped,
        NoteKind::DuplicateId,
    ];
    for k in all {
        match k {
            NoteKind::MissingStore
            | NoteKind::UnreadableStore
            | NoteKind::UnreadableFolder
            | NoteKind::NotASession
            | NoteKind::AllSkipped
            | NoteKind::DuplicateId => {}
        }
    }
    all
}

/// The shapes, from samples with every optional field present (struct
/// literals: a field added to a type does not compile until it is here).
fn shapes() -> String {
    let prepare_params = PrepareParams {
        text_document: serde_json::from_value(uri_params()).expect("a document"),
        target_session_id: Some("s".into()),
        format: PrepareFormat::Text,
    };
    let candidates_params = CandidatesParams {
        text_document: serde_json::from_value(uri_params()).expect("a document"),
        query: Some("q".into()),
    };
    let block = TextBlock {
        kind: "text".into(),
        text: "t".into(),
    };
    let stats = ReferenceStats {
        session_id: "s".into(),
        label: "l".into(),
        captured_format_version: Some(1),
        captured_through_seq: Some(2),
        compacted: false,
        original_messages: 1,
        retained_messages: 1,
        omitted_messages: 0,
        omitted_bytes: 0,
        truncated: false,
        input_index: 0,
    };
    let source = ContextSource {
        kind: "k".into(),
        form: "f".into(),
        version: 1,
        references: vec![stats.clone()],
    };
    let context = AdditionalContext {
        role: "user".into(),
        source: source.clone(),
        content: vec![block.clone()],
    };
    let prepared = Prepared {
        content: vec![block.clone()],
        additional_context: Some(context.clone()),
    };
    let candidate = Candidate {
        session_id: "s".into(),
        label: "l".into(),
        display_title: Some("d".into()),
        cwd: Some("/w".into()),
        same_workspace: true,
        created_at: 1,
        mention: "m".into(),
    };
    let picker = PickerCandidate {
        candidate: candidate.clone(),
        insert_text: "m".into(),
    };
    let file = FileCandidate {
        path: "a".into(),
        kind: FileKind::File,
    };
    let store = StoreStatus {
        path: "/s".into(),
        format: "auto".into(),
        sessions: 1,
        skipped_lines: 0,
        errors: vec!["e".into()],
    };
    let note = StatusNote {
        kind: NoteKind::MissingStore,
        message: "m".into(),
    };
    let search = SearchStatus {
        enabled: true,
        path: Some("/c".into()),
        bytes: 1,
        sessions: 1,
        behind: 0,
        note: Some("n".into()),
    };
    let status = Status {
        store: "/s".into(),
        sessions: 1,
        indexing: false,
        stores: vec![store.clone()],
        notes: vec![note.clone()],
        notes_omitted: 0,
        search: Some(search.clone()),
    };
    let search_params = SearchParams {
        query: "q".into(),
        limit: Some(3),
        text_document: Some(serde_json::from_value(uri_params()).expect("a document")),
    };
    let snippet = SearchSnippet {
        turn: 1,
        role: "user".into(),
        text: "t".into(),
        ranges: vec![[0, 1]],
    };
    let hit = SearchHit {
        session_id: "s".into(),
        title: Some("t".into()),
        display_title: Some("d".into()),
        agent: "codex".into(),
        cwd: Some("/w".into()),
        created_at: 1,
        mention: "m".into(),
        score: 1.5,
        snippets: vec![snippet.clone()],
    };
    let picker_hit = PickerSearchHit {
        hit: hit.clone(),
        label: "d".into(),
        insert_text: "m".into(),
        detail: "codex · /w · 1 d ago".into(),
    };
    let lines = [
        object("TextDocumentIdentifier", &prepare_params.text_document),
        strings("PrepareFormat", &prepare_formats()),
        object("PrepareParams", &prepare_params),
        object("CandidatesParams", &candidates_params),
        object("StatusParams", &StatusParams {}),
        object("TextBlock", &block),
        object("ReferenceStats", &stats),
        object("ContextSource", &source),
        object("AdditionalContext", &context),
        object("Prepared", &prepared),
        object("PreparedText", &PreparedText { text: "t".into() }),
        object("Candidate", &candidate),
        object("PickerCandidate", &picker),
        strings("FileKind", &file_kinds()),
        object("FileCandidate", &file),
        object("StoreStatus", &store),
        strings("NoteKind", &note_kinds()),
        object("StatusNote", &note),
        object("SearchStatus", &search),
        object("Status", &status),
        object("SearchParams", &search_params),
        object("SearchSnippet", &snippet),
        object("SearchHit", &hit),
        object("PickerSearchHit", &picker_hit),
    ];
    lines.join("\n") + "\n"
}

#[test]
fn the_shapes_file_is_generated_from_the_rust_types() {
    let generated = shapes();
    let golden = std::fs::read_to_string(GOLDEN).unwrap_or_default();
    assert_eq!(
        golden.replace("\r\n", "\n"),
        generated,
        "editors/vscode/lsp_ext.shapes is not the Rust types' shapes: update it \
         (and editors/vscode/src/lsp_ext.ts) to:\n{generated}"
    );
}

/// One parsed declaration: the sorted fields of an interface, or the
/// values of a string union.
type Declarations = BTreeMap<String, Vec<String>>;

/// The golden file's declarations: `Name: a b?` and `Name = x | y`.
fn golden_declarations(text: &str) -> Declarations {
    let mut out = Declarations::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (name, rest, split) = match (line.split_once(": "), line.split_once(" = ")) {
            (_, Some((name, rest))) => (name, rest, " | "),
            (Some((name, rest)), None) => (name, rest, " "),
            (None, None) => (line.trim_end_matches(':'), "", " "),
        };
        let mut items: Vec<String> = rest
            .split(split)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        items.sort();
        out.insert(name.to_string(), items);
    }
    out
}

/// `lsp_ext.ts`'s declarations: each `export interface` (with the fields
/// of the interface it extends) and each `export type X = 'a' | 'b';`.
fn typescript_declarations(text: &str) -> Declarations {
    let mut out = Declarations::new();
    let mut open: Option<(String, Vec<String>)> = None;
    for line in text.lines().map(str::trim) {
        if let Some((name, fields)) = open.as_mut() {
            if line == "}" {
                let (name, mut fields) = (name.clone(), std::mem::take(fields));
                fields.sort();
                out.insert(name, fields);
                open = None;
            } else if let Some((field, _)) = line.split_once(": ") {
                fields.push(field.to_string());
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("export interface ") {
            let head = rest.trim_end_matches("{}").trim_end_matches('{').trim();
            let (name, parent) = match head.split_once(" extends ") {
                Some((name, parent)) => (name.trim(), Some(parent.trim())),
                None => (head, None),
            };
            let inherited = parent
                .map(|p| out.get(p).cloned().expect("the parent is declared first"))
                .unwrap_or_default();
            if rest.ends_with("{}") {
                out.insert(name.to_string(), inherited);
            } else {
                open = Some((name.to_string(), inherited));
            }
        } else if let Some(rest) = line.strip_prefix("export type ") {
            let Some((name, union)) = rest.split_once(" = ") else {
                continue;
            };
            let mut values: Vec<String> = union
                .trim_end_matches(';')
                .split('|')
                .map(|v| v.trim().trim_matches('\'').to_string())
                .collect();
            values.sort();
            out.insert(name.trim().to_string(), values);
        }
    }
    out
}

#[test]
fn lsp_ext_ts_declares_the_rust_fields() {
    let golden = golden_declarations(&shapes());
    let ts = std::fs::read_to_string(TYPESCRIPT).expect("lsp_ext.ts");
    let declared = typescript_declarations(&ts);
    assert_eq!(
        declared, golden,
        "editors/vscode/src/lsp_ext.ts does not declare the Rust wire shapes"
    );
}

#[test]
fn the_typescript_reader_sees_fields_optionals_and_parents() {
    let ts = "export interface A {\n  a: string;\n  b?: number | null;\n}\n\
              export interface B extends A {\n  c: A[];\n}\n\
              export interface C {}\n\
              export type K = 'x' | 'y';\n";
    let declared = typescript_declarations(ts);
    assert_eq!(declared["A"], ["a", "b?"]);
    assert_eq!(declared["B"], ["a", "b?", "c"]);
    assert!(declared["C"].is_empty());
    assert_eq!(declared["K"], ["x", "y"]);
}
