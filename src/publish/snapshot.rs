//! A session's projected surface written as a hydra log
//! (`session-log.md`): the immutable bytes of a published version. Read
//! back by the hydra reader, the bytes project to the same surface — the
//! same header facts (id as given, `createdAt`, `cwd`, display title), the
//! title, the capacity, and the same messages with their roles, seqs and
//! checkpoints — so a pinned mention renders on every machine as it did on
//! the author's.
//!
//! What can differ (`docs/team-store.md`, "A pinned context"): the header's
//! `version` is this format's, 1; and `capturedThroughSeq` is kept except
//! when the title needs a seq and the log has no free one below it.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use crate::formats::hydra::line::COMPACTION_MARKER;
use crate::reference::projection::Role;
use crate::reference::snapshot::Snapshot;

/// The format generation the snapshot's header records.
pub const SNAPSHOT_FORMAT_VERSION: u64 = 1;

/// What a snapshot records beside the surface.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The id the header carries (a published id, `~publisher/id`).
    pub id: &'a str,
    /// The log format (agent) the session was read from, kept in the
    /// header's `agent` (an unvalidated field readers may show).
    pub agent: &'a str,
}

/// One event line to write, before its seq is final.
enum Line<'a> {
    Message {
        role: Role,
        text: &'a str,
    },
    Checkpoint {
        through_seq: u64,
        text: &'a str,
    },
    Title(&'a str),
    /// An event of a type no reader projects: it only carries the
    /// snapshot's `capturedThroughSeq` when nothing else sits there.
    Captured,
}

/// The snapshot's bytes. `snapshot` must be read with no budget (every
/// message of the surface kept).
pub fn write(snapshot: &Snapshot, facts: Facts<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    push_line(&mut out, &header(snapshot, facts));
    for (seq, line) in lines(snapshot) {
        push_line(&mut out, &event(seq, &line));
    }
    out
}

fn push_line(out: &mut Vec<u8>, value: &Value) {
    // serde_json never fails to write a `Value` into a `Vec`.
    if serde_json::to_writer(&mut *out, value).is_ok() {
        out.push(b'\n');
    }
}

fn header(snapshot: &Snapshot, facts: Facts<'_>) -> Value {
    let h = &snapshot.header;
    let mut header = Map::new();
    header.insert("type".into(), json!("session"));
    header.insert("version".into(), json!(SNAPSHOT_FORMAT_VERSION));
    header.insert("id".into(), json!(facts.id));
    header.insert("createdAt".into(), json!(h.created_at));
    if let Some(cwd) = &h.cwd {
        header.insert("cwd".into(), json!(cwd));
    }
    if let Some(label) = &h.label {
        header.insert("label".into(), json!(label));
    }
    header.insert("agent".into(), json!(facts.agent));
    if let Some(capacity) = snapshot.capacity {
        // Before any `route/assembled` (none is written), the header's
        // `options.contextWindow` is the capacity.
        header.insert("options".into(), json!({ "contextWindow": capacity }));
    }
    Value::Object(header)
}

fn event(seq: u64, line: &Line<'_>) -> Value {
    let text_content = |text: &str| {
        if text.is_empty() {
            json!([])
        } else {
            json!([{ "type": "text", "text": text }])
        }
    };
    match line {
        Line::Message {
            role: Role::User,
            text,
        } => json!({"seq": seq, "type": "user/message", "data": {
            "source": {"kind": "user"}, "content": text_content(text)}}),
        Line::Message {
            role: Role::Assistant,
            text,
        } => json!({"seq": seq, "type": "assistant/message", "data": {
            "message": {"content": text_content(text)}}}),
        Line::Checkpoint { through_seq, text } => {
            json!({"seq": seq, "type": "user/message", "data": {
            "source": {"kind": "compaction", "marker": COMPACTION_MARKER,
                       "throughSeq": through_seq},
            "content": text_content(text)}})
        }
        Line::Title(title) => {
            json!({"seq": seq, "type": "session/title", "data": {"title": title}})
        }
        Line::Captured => json!({"seq": seq, "type": "snapshot/captured"}),
    }
}

/// The event lines with their seqs, in order.
fn lines(snapshot: &Snapshot) -> Vec<(u64, Line<'_>)> {
    let projection = &snapshot.projection;
    let surface = projection.surface;
    let mut lines: Vec<(u64, Line<'_>)> = Vec::with_capacity(projection.messages.len() + 2);
    let mut last_checkpoint_written = false;
    for m in &projection.messages {
        let line = if m.checkpoint {
            let last = Some(m.seq) == surface.last_checkpoint_seq;
            last_checkpoint_written |= last;
            Line::Checkpoint {
                // Only the last checkpoint decides shadowing; an earlier
                // one still on the surface shadows nothing of it.
                through_seq: if last {
                    surface.shadowed_through.unwrap_or(0)
                } else {
                    0
                },
                text: &m.text,
            }
        } else {
            Line::Message {
                role: m.role,
                text: &m.text,
            }
        };
        lines.push((m.seq, line));
    }
    // A last checkpoint with no text is on no list of messages, yet it
    // alone shadows what it summarises.
    if let (false, Some(seq), Some(through)) = (
        last_checkpoint_written,
        surface.last_checkpoint_seq,
        surface.shadowed_through,
    ) {
        lines.push((
            seq,
            Line::Checkpoint {
                through_seq: through,
                text: "",
            },
        ));
    }
    lines.sort_by_key(|(seq, _)| *seq);
    if !strictly_increasing(&lines) {
        return renumbered(snapshot, lines);
    }
    let used: BTreeSet<u64> = lines.iter().map(|(seq, _)| *seq).collect();
    let last_used = used.last().copied().unwrap_or(0);
    let captured = snapshot.captured_through_seq.unwrap_or(0);
    let mut title_seq = None;
    if let Some(title) = snapshot.title.as_deref() {
        // The title can sit at any seq (shadowing does not apply to it):
        // at `capturedThroughSeq` if free, else in a gap, else after all.
        let seq = if captured > last_used {
            captured
        } else {
            (1..last_used)
                .find(|s| !used.contains(s))
                .unwrap_or(last_used + 1)
        };
        title_seq = Some(seq);
        lines.push((seq, Line::Title(title)));
    }
    let end = last_used.max(title_seq.unwrap_or(0));
    if captured > end {
        lines.push((captured, Line::Captured));
    }
    lines.sort_by_key(|(seq, _)| *seq);
    lines
}

fn strictly_increasing(lines: &[(u64, Line<'_>)]) -> bool {
    lines.windows(2).all(|w| w[0].0 < w[1].0) && lines.first().is_none_or(|(seq, _)| *seq >= 1)
}

/// The fallback for seqs a reader gave out of order (never from a
/// conforming reader): every other message in surface order from seq 1,
/// then the last checkpoint shadowing nothing: it is the log's last
/// checkpoint, so it still comes first on the surface.
fn renumbered<'a>(snapshot: &'a Snapshot, lines: Vec<(u64, Line<'a>)>) -> Vec<(u64, Line<'a>)> {
    let last = snapshot.projection.surface.last_checkpoint_seq;
    let (mut first, rest): (Vec<_>, Vec<_>) = lines
        .into_iter()
        .partition(|(seq, line)| matches!(line, Line::Checkpoint { .. }) && Some(*seq) == last);
    let mut ordered: Vec<Line<'a>> = rest.into_iter().map(|(_, line)| line).collect();
    if let Some((_, Line::Checkpoint { text, .. })) = first.pop() {
        ordered.push(Line::Checkpoint {
            through_seq: 0,
            text,
        });
    }
    if let Some(title) = snapshot.title.as_deref() {
        ordered.push(Line::Title(title));
    }
    ordered
        .into_iter()
        .enumerate()
        .map(|(i, line)| (i as u64 + 1, line))
        .collect()
}

#[cfg(test)]
mod tests;
