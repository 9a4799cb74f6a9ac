//! Aider histories in stores: beside line logs in an `auto` store, alone
//! in an `aider` store, one file as a default store; appends read
//! incrementally, a shrunk file read again.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::formats::FormatChoice;
use crate::model::{Event, SessionStore, StoreNote};
use crate::store::{Catalog, FsStore, Scan, StoreSpec};

const NAME: &str = ".aider.chat.history.md";

fn run(stamp: &str, prompt: &str) -> String {
    format!("\n# aider chat started at {stamp}\n\n> Aider v0.86.2  \n\n#### {prompt}  \n\nA reply to {prompt}.\n\n")
}

fn append(path: &Path, text: &str) {
    let mut file = fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn ids(store: &dyn SessionStore) -> Vec<String> {
    store.sessions().into_iter().map(|s| s.header.id).collect()
}

#[test]
fn an_auto_store_lists_histories_beside_line_logs_and_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("web")).unwrap();
    fs::write(
        root.join("s.jsonl"),
        "{\"type\":\"session\",\"id\":\"hydra-1\",\"createdAt\":1}\n",
    )
    .unwrap();
    fs::write(root.join(NAME), run("2025-01-02 10:00:00", "top")).unwrap();
    let web = root.join("web").join(NAME);
    fs::write(
        &web,
        run("2025-01-02 10:00:00", "one") + &run("2025-01-02 11:00:00", "two"),
    )
    .unwrap();
    // Not a history: another name.
    fs::write(root.join("web/notes.md"), run("2025-01-02 10:00:00", "no")).unwrap();
    let store = FsStore::scan(root);
    assert_eq!(
        ids(&store),
        [
            "hydra-1",
            "aider:.aider.chat.history.md#2025-01-02T10:00:00",
            "aider:web/.aider.chat.history.md#2025-01-02T10:00:00",
            "aider:web/.aider.chat.history.md#2025-01-02T11:00:00",
        ]
    );
    let session = store
        .get("aider:web/.aider.chat.history.md#2025-01-02T11:00:00")
        .unwrap();
    assert_eq!(session.title.as_deref(), Some("two"));
    assert_eq!(session.locator.format, "aider");
    assert_eq!(
        session.header.cwd,
        root.join("web").to_str().map(String::from)
    );
    let reader = store.reader();
    let mut texts = Vec::new();
    let summary = reader
        .read(&session, &|| false, &mut |e| {
            if let Event::Message { text, .. } = e.event {
                texts.push(text.into_owned());
            }
        })
        .unwrap();
    assert_eq!(texts, ["two", "A reply to two."]);
    assert_eq!(summary.header.id, session.header.id);
    assert!(reader
        .link_target(&session)
        .unwrap()
        .ends_with("/web/.aider.chat.history.md"));
    // The stamp listed is the reader's, to the bit.
    assert_eq!(
        reader.stamp(&session).map(|v| v.token()),
        Some(session.stamp)
    );
    // Two runs of one file are two versions (the snapshot cache keys on
    // it), and an append to the file changes both.
    let other = store
        .get("aider:web/.aider.chat.history.md#2025-01-02T10:00:00")
        .unwrap();
    let (a, b) = (reader.version(&session), reader.version(&other));
    assert!(a.is_some() && a != b);
    append(&web, &run("2025-01-02 12:00:00", "three"));
    assert_ne!(reader.version(&session), a);
    let status = store.status();
    assert_eq!((status[0].format.as_str(), status[0].sessions), ("auto", 4));
}

#[test]
fn an_aider_store_reads_histories_only_and_notes_what_is_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(
        root.join("s.jsonl"),
        "{\"type\":\"session\",\"id\":\"hydra-1\",\"createdAt\":1}\n",
    )
    .unwrap();
    fs::create_dir(root.join("empty")).unwrap();
    fs::write(root.join("empty").join(NAME), "#### no header\n").unwrap();
    fs::write(
        root.join(NAME),
        run("2025-01-02 10:00:00", "kept")
            + "\n# aider chat started at 2025-01-02 12:00:00\n\n> only tools  \n",
    )
    .unwrap();
    let spec = StoreSpec {
        path: root.to_path_buf(),
        format: FormatChoice::Aider,
    };
    let store = FsStore::open(&[spec], Scan::Full);
    assert_eq!(
        ids(&store),
        ["aider:.aider.chat.history.md#2025-01-02T10:00:00"]
    );
    assert_eq!(store.status()[0].format, "aider");
    let skipped: Vec<String> = store
        .notes()
        .into_iter()
        .filter_map(|n| match n {
            StoreNote::NotASession { rel, .. } => Some(rel),
            _ => None,
        })
        .collect();
    assert_eq!(
        skipped,
        [
            ".aider.chat.history.md#2025-01-02T12:00:00",
            "empty/.aider.chat.history.md"
        ]
    );
    // A run that is no session is not found.
    assert!(store
        .get("aider:.aider.chat.history.md#2025-01-02T12:00:00")
        .is_none());
}

/// Appends read only the new lines (an edit far into the file that an
/// append hides is not seen until the file is read again); ids stay; a
/// shrunk file is read from its start.
#[test]
fn appends_are_read_incrementally_and_a_shrunk_file_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(NAME);
    // A command first (no title), then enough lines to pass the kept
    // head, then the prompt that titles the run.
    let filler = "> a tool line that pads the run past the head of the file  \n".repeat(6);
    let first = run("2025-01-02 10:00:00", "/add x.py") + &filler + "#### open message  \n";
    fs::write(&path, &first).unwrap();
    let mut catalog = Catalog::scan(dir.path());
    let id = "aider:.aider.chat.history.md#2025-01-02T10:00:00";
    assert_eq!(ids_of(&catalog), [id]);
    let title = |c: &Catalog| c.get(id).and_then(|s| s.title);
    assert_eq!(title(&catalog).as_deref(), Some("open message"));
    // Past the kept head, changed in place (same length: the prompt is
    // now a reply line): the append that follows does not read it again.
    let edited = first.replace("#### open message", "X### open message");
    assert!(first.find("#### open").unwrap() > 256);
    fs::write(&path, &edited).unwrap();
    append(&path, &run("2025-01-02 11:00:00", "second"));
    assert!(catalog.refresh_path(&path));
    assert_eq!(
        ids_of(&catalog),
        [id, "aider:.aider.chat.history.md#2025-01-02T11:00:00"]
    );
    assert_eq!(
        title(&catalog).as_deref(),
        Some("open message"),
        "resumed, not re-read"
    );
    // A fresh scan sees the edit.
    assert_eq!(title(&Catalog::scan(dir.path())), None);
    // Shrunk: read again, from the first line.
    fs::write(&path, run("2025-01-02 09:00:00", "rewritten")).unwrap();
    assert!(catalog.refresh_path(&path));
    assert_eq!(
        ids_of(&catalog),
        ["aider:.aider.chat.history.md#2025-01-02T09:00:00"]
    );
    fs::remove_file(&path).unwrap();
    assert!(catalog.refresh_path(&path));
    assert!(catalog.is_empty());
}

fn ids_of(catalog: &Catalog) -> Vec<String> {
    catalog
        .sessions()
        .into_iter()
        .map(|s| s.header.id)
        .collect()
}

/// A default store is the one file: histories below its folder are not
/// read, and status names the file.
#[test]
fn a_store_of_one_file_reads_that_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("sub")).unwrap();
    fs::write(
        root.join("sub").join(NAME),
        run("2025-01-02 10:00:00", "below"),
    )
    .unwrap();
    fs::write(
        root.join("s.jsonl"),
        "{\"type\":\"session\",\"id\":\"h\",\"createdAt\":1}\n",
    )
    .unwrap();
    let file = root.join(NAME);
    fs::write(&file, run("2025-01-03 10:00:00", "here")).unwrap();
    let spec = StoreSpec {
        path: file.clone(),
        format: FormatChoice::Aider,
    };
    let store = FsStore::open(std::slice::from_ref(&spec), Scan::Full);
    assert_eq!(
        ids(&store),
        ["aider:.aider.chat.history.md#2025-01-03T10:00:00"]
    );
    assert_eq!(store.status()[0].path, file.display().to_string());
    let session = store.sessions().remove(0);
    let read = store
        .reader()
        .read(&session, &|| false, &mut |_| {})
        .unwrap();
    assert_eq!(read.title.as_deref(), Some("here"));
    // The catalog of that one file follows appends and removal.
    let mut catalog = Catalog::single_file(&file, 0, FormatChoice::Aider, true);
    catalog.rescan();
    assert_eq!(catalog.len(), 1);
    append(&file, &run("2025-01-03 11:00:00", "later"));
    catalog.rescan();
    assert_eq!(catalog.len(), 2);
    // A change notice for a history below is not this store's.
    assert!(!catalog.refresh_path(&root.join("sub").join(NAME)));
    fs::remove_file(&file).unwrap();
    catalog.rescan();
    assert!(catalog.is_empty());
}
