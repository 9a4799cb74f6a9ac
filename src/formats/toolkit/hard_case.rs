//! What the formats' hand-written hard cases share (issue 27): a log's
//! whole projected surface — id, created time, cwd, titles and messages —
//! as one value, so that each case states it as a literal written from
//! the contract's words rather than pasted from the reader's output.

use super::memory_log::MemoryLog;
use crate::formats::LogFormat;
use crate::reference::projection::Projector;

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
    let messages = marked(projector);
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

/// The surface of the session `id` as `store` lists it and its reader
/// reads it (the database formats, whose sessions are rows, not files).
pub fn store_surface(store: &dyn crate::model::SessionStore, id: &str) -> Surface {
    let session = store.get(id).unwrap();
    let mut projector = Projector::new(None, usize::MAX);
    store
        .reader()
        .read(&session, &|| false, &mut |e| projector.push(e))
        .unwrap();
    let messages = marked(projector);
    Surface {
        id: session.header.id,
        created_at: session.header.created_at,
        cwd: session.header.cwd,
        title: session.title,
        label: session.header.label,
        messages,
    }
}

/// The projected messages, a checkpoint marked `"checkpoint"`.
fn marked(projector: Projector) -> Vec<(&'static str, String)> {
    projector
        .finish()
        .messages
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
