//! Full snapshots of truncated sources (reference.md §5a): a source's data
//! object before retention, streamed from a second pass over the same
//! bytes of its log, so memory does not grow with the log. Where the bytes
//! go is the caller's business ([`SpillStore`]): the core does no file I/O.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use super::projection::{Role, Surface};
pub use super::render::FullSnapshot;
use super::render::{self, SourceMeta};
use super::source::{Cancelled, SnapshotSource};
use crate::model::Event;

/// The reason given when no spill directory is configured.
pub const SPILL_DISABLED: &str = "spill disabled";

/// Bytes buffered before they are handed to the writer.
const FLUSH_AT: usize = 64 * 1024;

/// Where full snapshots are stored.
pub trait SpillStore: Sync {
    /// Stores one full snapshot, whose bytes `write` streams into the
    /// writer it is given. Never fails: a failure is a locator saying so,
    /// and leaves nothing partial behind.
    fn store(&self, write: &mut dyn FnMut(&mut dyn io::Write) -> io::Result<()>) -> FullSnapshot;

    /// Runs once per `prepare`, after every snapshot of its result is
    /// stored; never removes a path of `keep`. Failures change nothing.
    fn evict(&self, keep: &[String]);

    /// The most bytes the text of a locator this store gives (a stored
    /// path, or the reason it was not stored) can take as a tag-safe JSON
    /// string. A host that must keep the whole context under a limit (an
    /// agent's hook) leaves this much room per truncated source: the
    /// locator is outside the source's budget, and its path can be long.
    fn locator_bound(&self) -> usize;
}

/// The most bytes a truncated source's omission facts and locator add
/// outside its budget, for a locator text of at most `locator_bound`
/// bytes (numbers at their widest, 20 digits).
pub fn omission_bound(locator_bound: usize) -> usize {
    let mut object = String::from("{}");
    let widest = FullSnapshot::Stored {
        path: String::new(),
        bytes: u64::MAX,
    };
    render::append_omission(&mut object, usize::MAX, u64::MAX, &widest);
    let reason = super::json::tag_safe_len(SPILL_DISABLED);
    object.len() - 2 + locator_bound.max(reason)
}

/// What a second pass needs to write one source's full snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullSnapshotPlan {
    pub session_id: String,
    pub label: String,
    pub cwd: Option<String>,
    pub captured_through_seq: Option<u64>,
    pub surface: Surface,
    /// The last checkpoint's text, when it is projected: it comes first.
    pub checkpoint_text: Option<String>,
    /// The bytes of the log the first pass read.
    pub bytes: u64,
}

/// Streams the full snapshot of `plan` (tag-safe JSON, then `"\n"`) into
/// `out`, reading the source's log again over the same bytes.
pub fn stream(
    plan: &FullSnapshotPlan,
    source: &dyn SnapshotSource,
    out: &mut dyn io::Write,
    cancelled: Cancelled<'_>,
) -> io::Result<()> {
    let meta = SourceMeta {
        session_id: &plan.session_id,
        label: &plan.label,
        cwd: plan.cwd.as_deref(),
        captured_through_seq: plan.captured_through_seq,
    };
    let mut buf = String::with_capacity(FLUSH_AT);
    render::write_head(&mut buf, &meta);
    let mut first = true;
    if let Some(text) = &plan.checkpoint_text {
        render::write_turn(&mut buf, Role::User, text);
        first = false;
    }
    let surface = plan.surface;
    let stop = AtomicBool::new(false);
    let mut failure: Option<io::Error> = None;
    let give_up = || stop.load(Ordering::Relaxed) || cancelled();
    let read = source.reread(&plan.session_id, plan.bytes, &give_up, &mut |entry| {
        if failure.is_some() {
            return;
        }
        let (role, text) = match entry.event {
            Event::Message { role, text } if surface.visible(entry.seq) => (role, text),
            Event::Checkpoint { text, .. }
                if Some(entry.seq) != surface.last_checkpoint_seq && surface.visible(entry.seq) =>
            {
                (Role::User, text)
            }
            _ => return,
        };
        if text.is_empty() {
            return;
        }
        if !first {
            buf.push(',');
        }
        first = false;
        render::write_turn(&mut buf, role, &text);
        if buf.len() >= FLUSH_AT {
            if let Err(e) = out.write_all(buf.as_bytes()) {
                failure = Some(e);
                stop.store(true, Ordering::Relaxed);
            }
            buf.clear();
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let summary = read.map_err(|e| io::Error::other(e.message))?;
    if summary.captured_through_seq != plan.captured_through_seq {
        return Err(io::Error::other("the log changed between its two reads"));
    }
    buf.push_str(render::TAIL);
    buf.push('\n');
    out.write_all(buf.as_bytes())?;
    out.flush()
}
