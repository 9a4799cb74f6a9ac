//! What the formats' unit tests share: the log at a fixture's path, lines
//! as a log, the store's scan of a log (by its lines or as a document),
//! the projected surface of a full read, and a golden file that
//! `BLESS=1` rewrites. Every log is modified at 7, as the tests expect.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::golden::assert_golden_file;
use super::hard_case::marked;
use super::memory_log::MemoryLog;
use crate::formats::lines::{for_each_line, Flow};
use crate::formats::{LogFormat, Scanner};
use crate::model::Role;
use crate::reference::projection::{Message, Projector};

/// A path in the clone (a fixture's).
pub fn in_clone(rel: impl AsRef<Path>) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The log at `path`, read from memory but placed there.
pub fn placed(path: &Path) -> MemoryLog {
    MemoryLog::new(std::fs::read(path).unwrap())
        .modified(7)
        .at(path)
}

/// The log at `path`, read from memory, with no place.
pub fn unplaced(path: &Path) -> MemoryLog {
    MemoryLog::new(std::fs::read(path).unwrap()).modified(7)
}

/// `lines` as a log with no place, each ended by a line feed.
pub fn lines(lines: &[&str]) -> MemoryLog {
    MemoryLog::new(lines.iter().map(|l| format!("{l}\n")).collect::<String>()).modified(7)
}

/// `format`'s scanner after every complete line of `log` (told its place,
/// if it has one).
pub fn scan_lines(format: &dyn LogFormat, log: &MemoryLog) -> Box<dyn Scanner> {
    let mut scanner = format.scanner();
    scanner.file_modified(7);
    if let Some(path) = &log.path {
        scanner.file_path(path);
    }
    let bytes = &log.bytes;
    for_each_line::<()>(&mut &bytes[..], bytes.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    })
    .unwrap();
    scanner
}

/// `format`'s scanner after the whole document `log`, which has a place.
pub fn scan_document(format: &dyn LogFormat, log: &MemoryLog) -> Box<dyn Scanner> {
    let mut scanner = format.scanner();
    scanner.file_modified(7);
    scanner.file_path(log.path.as_deref().unwrap());
    scanner.document(&mut &log.bytes[..]).unwrap();
    scanner
}

/// The name of the format whose first-line rule `line` meets, if one does.
pub fn detected(line: &[u8]) -> Option<&'static str> {
    crate::formats::detect(line).map(|f| f.name())
}

/// The first line of `log`, without its line end.
pub fn first_line(log: &MemoryLog) -> &[u8] {
    log.bytes.split(|&b| b == b'\n').next().unwrap_or_default()
}

/// The messages a full read of `log` projects.
pub fn projected(format: &dyn LogFormat, log: &MemoryLog) -> Vec<Message> {
    let mut projector = Projector::new(None, usize::MAX);
    format
        .read(log, &|| false, &mut |e| projector.push(e))
        .unwrap();
    projector.finish().messages
}

/// The projected surface: `(role, text)`.
pub fn surface(format: &dyn LogFormat, log: &MemoryLog) -> Vec<(Role, String)> {
    projected(format, log)
        .into_iter()
        .map(|m| (m.role, m.text))
        .collect()
}

/// The projected surface: `(role, text)`, a checkpoint as `"checkpoint"`.
pub fn marked_surface(format: &dyn LogFormat, log: &MemoryLog) -> Vec<(&'static str, String)> {
    marked(projected(format, log))
}

/// Asserts that `read` is what the golden file `golden` holds; with
/// `BLESS` set, writes it there first (after an intended change).
pub fn assert_blessed(golden: &Path, read: &Value) {
    if std::env::var_os("BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(golden, serde_json::to_string_pretty(read).unwrap() + "\n").unwrap();
    }
    assert_golden_file(golden, read);
}

/// Every file below `dir` that `keep` keeps, depth first.
pub fn files_below(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if keep(&path) {
                files.push(path);
            }
        }
    }
    files
}

/// Whether `path` ends in `.jsonl`.
pub fn is_jsonl(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

/// `pairs` with owned texts, to compare with a [`marked_surface`].
pub fn owned(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(r, t)| (*r, t.to_string())).collect()
}

/// Reading `log` in one go equals reading it in appended pieces: the
/// scanner fed its first `cut` complete lines, then the rest, ends where
/// one fed all ends; and a full read of those first lines agrees with the
/// scanner at that point (with `strict`, a read that finds a session the
/// scanner does not is wrong too). For the formats' property tests.
pub fn one_go_equals_appended_pieces(
    format: &dyn LogFormat,
    log: &MemoryLog,
    cut: usize,
    strict: bool,
) -> Result<(), proptest::test_runner::TestCaseError> {
    use crate::formats::HeaderState;
    use proptest::test_runner::TestCaseError;
    let complete: Vec<&[u8]> = log
        .bytes
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| l.ends_with(b"\n"))
        .collect();
    let cut = cut.min(complete.len());
    let prefix = MemoryLog {
        bytes: complete[..cut].concat(),
        ..log.clone()
    };
    let mut pieces = scan_lines(format, &prefix);
    let early = format.read(&prefix, &|| false, &mut |_| {});
    match (&early, pieces.header()) {
        (Ok(s), HeaderState::Session(h)) => {
            proptest::prop_assert_eq!(&s.header, &h);
            proptest::prop_assert_eq!(&s.title, &pieces.meta().title);
            proptest::prop_assert_eq!(s.skipped_lines, pieces.meta().skipped_lines);
        }
        (Err(_), HeaderState::Session(h)) => {
            return Err(TestCaseError::fail(format!(
                "scanner has {h:?}, read fails"
            )));
        }
        (Ok(s), other) if strict => {
            return Err(TestCaseError::fail(format!(
                "read has {s:?}, scanner {other:?}"
            )));
        }
        _ => {}
    }
    for line in &complete[cut..] {
        pieces.line(line.strip_suffix(b"\n").unwrap_or(line));
    }
    let whole = scan_lines(format, log);
    proptest::prop_assert_eq!(pieces.header(), whole.header());
    proptest::prop_assert_eq!(pieces.meta(), whole.meta());
    Ok(())
}
