//! What the formats' hand-written hard cases share (issue 27): a log's
//! whole projected surface — id, created time, cwd, titles and messages —
//! as one value, so that each case states it as a literal written from
//! the contract's words rather than pasted from the reader's output.

use super::memory_log::MemoryLog;
use crate::formats::LogFormat;
use crate::reference::projection::{Message, Projector};

/// Everything a person sees of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surface {
    pub id: String,
    /// Unix epoch milliseconds.
    pub created_at: u64,
    pub cwd: Option<String>,
    pub title: Option<String>,
    /// The durable display title (a sub-agent's).
    pub label: Option<String>,
    /// `(role, text)`, a compact checkpoint as `"checkpoint"`.
    pub messages: Vec<(&'static str, String)>,
}

/// The surface a full read of `log` projects (every log is modified at 7).
pub fn read_surface(format: &dyn LogFormat, log: &MemoryLog) -> Surface {
    let mut projector = Projector::new(None, usize::MAX);
    let summary = format
        .read(log, &|| false, &mut |e| projector.push(e))
        .unwrap();
    let messages = marked(projector.finish().messages);
    Surface {
        id: summary.header.id,
        created_at: summary.header.created_at,
        cwd: summary.header.cwd,
        title: summary.title,
        label: summary.header.label,
        messages,
    }
}

/// The expected surface, written out: `cwd`, `title` and `label` as
/// `Some` strings or `None`.
pub fn expect(
    id: &str,
    created_at: u64,
    cwd: Option<&str>,
    title: Option<&str>,
    label: Option<&str>,
    messages: &[(&'static str, &str)],
) -> Surface {
    Surface {
        id: id.to_string(),
        created_at,
        cwd: cwd.map(str::to_string),
        title: title.map(str::to_string),
        label: label.map(str::to_string),
        messages: messages.iter().map(|(r, t)| (*r, t.to_string())).collect(),
    }
}

/// A session one format's cases expect again and again: its id and cwd,
/// with no label (each case names when it started, its title and
/// messages; [`expect`] writes out any other).
pub struct Expected {
    pub id: &'static str,
    pub cwd: Option<&'static str>,
}

impl Expected {
    pub const fn new(id: &'static str, cwd: Option<&'static str>) -> Self {
        Expected { id, cwd }
    }

    /// The session's surface, started at `created_at`, titled `title`.
    pub fn surface(
        &self,
        created_at: u64,
        title: &str,
        messages: &[(&'static str, &str)],
    ) -> Surface {
        expect(self.id, created_at, self.cwd, Some(title), None, messages)
    }
}

/// The surface of the session `id` as `store` lists it and its reader
/// reads it (the database formats, whose sessions are rows, not files).
pub fn store_surface(store: &dyn crate::model::SessionStore, id: &str) -> Surface {
    let session = store.get(id).unwrap();
    let mut projector = Projector::new(None, usize::MAX);
    store
        .reader()
        .read(&session, &|| false, &mut |e| projector.push(e))
        .unwrap();
    let messages = marked(projector.finish().messages);
    Surface {
        id: session.header.id,
        created_at: session.header.created_at,
        cwd: session.header.cwd,
        title: session.title,
        label: session.header.label,
        messages,
    }
}

/// The projected `messages` as `(role, text)`, a checkpoint marked
/// `"checkpoint"`.
pub fn marked(messages: Vec<Message>) -> Vec<(&'static str, String)> {
    messages
        .into_iter()
        .map(|m| {
            let who = if m.checkpoint {
                "checkpoint"
            } else {
                m.role.as_str()
            };
            (who, m.text)
        })
        .collect()
}
