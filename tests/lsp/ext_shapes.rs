//! The VS Code extension's `lsp_ext.ts` declares the wire shapes the server
//! has: every param and result of the custom requests, field by field,
//! each with its type. The fields are read from the Rust types themselves
//! (a sample of each, serialized; a field is optional when the type still
//! reads without it; its type is that of its JSON value, a nested object
//! or array element named by the sample it equals) and written as
//! editors/vscode/lsp_ext.shapes; the test fails when that list is not the
//! checked-in one, or when `lsp_ext.ts` declares other fields or other
//! types. So a Rust field changed without `lsp_ext.ts` fails here.

use std::collections::BTreeMap;

use hydra_session_lsp::proto::ext::{
    AdditionalContext, Candidate, ContextSource, FileCandidate, FileKind, NoteKind, Prepared,
    PublishedSession, ReferenceStats, SearchHit, SearchSnippet, SearchStatus, SecretFinding,
    Status, StatusNote, StoreStatus, TextBlock,
};
use hydra_session_lsp::server::lsp_ext::{
    CandidatesParams, PickParams, PickerCandidate, PickerSearchHit, PrepareFormat, PrepareParams,
    PreparedMarkdown, PreparedText, PublishParams, SearchParams, StatusParams,
};
use lsp_types::{Position, Range};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/editors/vscode/lsp_ext.shapes");
const TYPESCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/editors/vscode/src/lsp_ext.ts");

/// The named shapes seen so far (name, sample as JSON), so a nested object
/// is written by its name; and the string fields typed by a string enum.
struct Names {
    objects: Vec<(String, Value)>,
    enums: &'static [(&'static str, &'static str, &'static str)],
}

/// The string fields whose type is a string enum: (shape, field, enum).
const ENUM_FIELDS: [(&str, &str, &str); 3] = [
    ("PrepareParams", "format", "PrepareFormat"),
    ("FileCandidate", "kind", "FileKind"),
    ("StatusNote", "kind", "NoteKind"),
];

impl Names {
    /// The TypeScript type of a JSON value, as `lsp_ext.ts` writes it
    /// (a tuple as an array).
    fn type_of(&self, shape: &str, field: &str, value: &Value) -> String {
        if let Some((_, _, e)) = self
            .enums
            .iter()
            .find(|(s, f, _)| *s == shape && *f == field)
        {
            return e.to_string();
        }
        match value {
            Value::String(_) => "string".into(),
            Value::Number(_) => "number".into(),
            Value::Bool(_) => "boolean".into(),
            Value::Null => panic!("{shape}.{field}: a sample with null says no type"),
            Value::Array(items) => {
                let first = items
                    .first()
                    .unwrap_or_else(|| panic!("{shape}.{field}: an empty sample array"));
                format!("{}[]", self.type_of(shape, field, first))
            }
            Value::Object(_) => self
                .objects
                .iter()
                .find(|(_, sample)| sample == value)
                .map(|(name, _)| name.clone())
                .unwrap_or_else(|| panic!("{shape}.{field}: no named shape is this object")),
        }
    }

    /// `Name: field:type optional?:type …`, the fields in their JSON
    /// order. A field is optional when the sample without it still
    /// deserializes.
    fn object<T: Serialize + DeserializeOwned>(&mut self, name: &str, sample: &T) -> String {
        let value = serde_json::to_value(sample).expect("serializes");
        let Value::Object(full) = &value else {
            panic!("{name} is not a JSON object");
        };
        let mut fields = Vec::new();
        for (key, field) in full {
            let mut without = full.clone();
            without.remove(key);
            let optional = serde_json::from_value::<T>(Value::Object(without)).is_ok();
            let ty = self.type_of(name, key, field);
            fields.push(format!("{key}{}:{ty}", if optional { "?" } else { "" }));
        }
        self.objects.push((name.to_string(), value.clone()));
        format!("{name}: {}", fields.join(" "))
            .trim_end()
            .to_string()
    }
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
fn prepare_formats() -> [PrepareFormat; 3] {
    let all = [
        PrepareFormat::Json,
        PrepareFormat::Text,
        PrepareFormat::Markdown,
    ];
    for f in all {
        match f {
            PrepareFormat::Json | PrepareFormat::Text | PrepareFormat::Markdown => {}
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
    let position = Position::new(1, 2);
    let range = Range::new(position, position);
    let pick_params = PickParams {
        text_document: serde_json::from_value(uri_params()).expect("a document"),
        query: Some("q".into()),
        position: Some(position),
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
        detail: "codex · /w · same workspace · 1 d ago".into(),
        over_limit: false,
        range: Some(range),
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
        position: Some(position),
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
        range: Some(range),
    };
    let mut names = Names {
        objects: Vec::new(),
        enums: &ENUM_FIELDS,
    };
    let mut object = |name: &str, sample: &dyn Sample| sample.shape(&mut names, name);
    let lines = [
        object("TextDocumentIdentifier", &prepare_params.text_document),
        object("Position", &position),
        object("Range", &range),
        strings("PrepareFormat", &prepare_formats()),
        object("PrepareParams", &prepare_params),
        object("CandidatesParams", &candidates_params),
        object("PickParams", &pick_params),
        object("StatusParams", &StatusParams {}),
        object("TextBlock", &block),
        object("ReferenceStats", &stats),
        object("ContextSource", &source),
        object("AdditionalContext", &context),
        object("Prepared", &prepared),
        object("PreparedText", &PreparedText { text: "t".into() }),
        object(
            "PreparedMarkdown",
            &PreparedMarkdown {
                markdown: Some("m".into()),
            },
        ),
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
        object(
            "PublishParams",
            &PublishParams {
                to: "s3://b/p".into(),
                sessions: vec!["s1".into()],
                publisher: Some("ana".into()),
                allow_secret: vec!["jwt".into()],
            },
        ),
        object(
            "PublishedSession",
            &PublishedSession {
                session_id: "~ana/s1".into(),
                mention: "m".into(),
                sha256: "0".repeat(64),
                bytes: 1,
            },
        ),
        object(
            "SecretFinding",
            &SecretFinding {
                session: "s1".into(),
                turn: 2,
                kind: "jwt".into(),
            },
        ),
    ];
    lines.join("\n") + "\n"
}

/// A sample whose shape can be written (object-safe, for the list above).
trait Sample {
    fn shape(&self, names: &mut Names, name: &str) -> String;
}

impl<T: Serialize + DeserializeOwned> Sample for T {
    fn shape(&self, names: &mut Names, name: &str) -> String {
        names.object(name, self)
    }
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
            } else if let Some((field, ty)) = line.split_once(": ") {
                fields.push(format!("{field}:{}", typescript_type(ty)));
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

/// A field's TypeScript type as the shapes write it: `| null` dropped (an
/// `Option` reads `null` as absent), a tuple `[T, T]` written `T[]`.
fn typescript_type(ty: &str) -> String {
    let ty = ty.trim().trim_end_matches(';').trim_end_matches(" | null");
    match ty.strip_prefix('[').and_then(|t| t.split_once(']')) {
        Some((tuple, rest)) => {
            let first = tuple.split(',').next().unwrap_or_default().trim();
            format!("{first}[]{rest}")
        }
        None => ty.to_string(),
    }
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
              export interface D {\n  r: [number, number][];\n}\n\
              export interface C {}\n\
              export type K = 'x' | 'y';\n";
    let declared = typescript_declarations(ts);
    assert_eq!(declared["A"], ["a:string", "b?:number"]);
    assert_eq!(declared["B"], ["a:string", "b?:number", "c:A[]"]);
    assert!(declared["C"].is_empty());
    assert_eq!(declared["K"], ["x", "y"]);
    assert_eq!(declared["D"], ["r:number[][]"]);
}
