//! The Codex format on the real fixtures (tests/fixtures/agents/codex) and
//! on synthetic rollouts for the corner cases the fixtures lack.

use std::io::{self, Read};
use std::path::PathBuf;

use super::track::ENCRYPTED_SUMMARY;
use super::*;
use crate::formats::lines::{self, Flow};
use crate::model::{Event, Role};
use crate::reference::projection::Projector;

/// A log held in memory.
struct BytesLog(Vec<u8>);

impl LogSource for BytesLog {
    fn name(&self) -> &str {
        "test.jsonl"
    }

    fn open(&self, limit: Option<u64>) -> io::Result<(Box<dyn Read + '_>, u64)> {
        let size = limit.map_or(self.0.len() as u64, |l| l.min(self.0.len() as u64));
        Ok((Box::new(&self.0[..]), size))
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/codex")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const OLD_EXEC: &str =
    "2026/01/02/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl";
const DESKTOP_REDACTED: &str =
    "2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
const TUI: &str =
    "2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";
const DESKTOP_NO_USER_ITEMS: &str =
    "2026/05/11/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl";

/// Everything a full read yields: events and summary.
struct Read_ {
    entries: Vec<(u64, Event<'static>)>,
    summary: Result<ReadSummary, ReadError>,
}

fn read(bytes: &[u8]) -> Read_ {
    let mut entries = Vec::new();
    let summary = Codex.read(&BytesLog(bytes.to_vec()), &|| false, &mut |e| {
        entries.push((e.seq, owned(e.event)));
    });
    Read_ { entries, summary }
}

fn owned(event: Event<'_>) -> Event<'static> {
    match event {
        Event::Message { role, text } => Event::Message {
            role,
            text: text.into_owned().into(),
        },
        Event::Checkpoint { through_seq, text } => Event::Checkpoint {
            through_seq,
            text: text.into_owned().into(),
        },
        Event::Title(t) => Event::Title(t.into_owned().into()),
        Event::Capacity(c) => Event::Capacity(c),
        Event::Other => Event::Other,
    }
}

/// The projected surface: `(role, checkpoint, text)` in order.
fn surface(bytes: &[u8]) -> Vec<(Role, bool, String)> {
    let r = read(bytes);
    r.summary.expect("readable");
    let mut projector = Projector::new(None, usize::MAX);
    for (seq, event) in r.entries {
        projector.push(Entry { seq, event });
    }
    projector
        .finish()
        .messages
        .into_iter()
        .map(|m| (m.role, m.checkpoint, m.text))
        .collect()
}

fn scan(bytes: &[u8]) -> CodexScanner {
    let mut scanner = CodexScanner::default();
    lines::for_each_line::<()>(&mut &bytes[..], bytes.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    })
    .expect("in memory");
    scanner
}

fn header(bytes: &[u8]) -> SessionHeader {
    match scan(bytes).header() {
        HeaderState::Session(h) => h,
        other => panic!("not a session: {other:?}"),
    }
}

fn texts(surface: &[(Role, bool, String)]) -> Vec<&str> {
    surface.iter().map(|(_, _, t)| t.as_str()).collect()
}

use crate::model::SessionHeader;

#[test]
fn print_fixture_surfaces() {
    for f in [OLD_EXEC, DESKTOP_REDACTED, TUI, DESKTOP_NO_USER_ITEMS] {
        let bytes = fixture(f);
        let s = scan(&bytes);
        eprintln!("== {f}\n{:?}\n{:?}", s.header(), s.meta());
        let r = read(&bytes);
        eprintln!("{:?}", r.summary);
        for (role, cp, text) in surface(&bytes) {
            let short: String = text.chars().take(70).collect();
            eprintln!("  {role:?} {cp} {short:?}");
        }
    }
}
