//! One OpenCode session's rows as projection events (agent-logs-more.md
//! "OpenCode"): messages by id, parts by id, the revert cut, compaction.
//! Pure: the rows come from the database or the `storage/` tree alike.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::formats::text;
use crate::model::{Entry, Event, Role};

/// A `message` row (or message file): its id and its `data` JSON.
#[derive(Debug, Clone, Copy)]
pub struct MessageRow<'a> {
    pub id: &'a str,
    pub data: &'a str,
}

/// A `part` row (or part file).
#[derive(Debug, Clone, Copy)]
pub struct PartRow<'a> {
    pub message_id: &'a str,
    pub id: &'a str,
    pub data: &'a str,
}

/// What one session's rows project to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Projected {
    /// In `seq` order; a message's `seq` is its row number (from 1).
    pub entries: Vec<Entry<'static>>,
    /// Message rows read: `capturedThroughSeq`.
    pub rows: u64,
    /// Rows whose `data` is not a JSON object.
    pub skipped: u64,
    /// The first user message's text, reverted or shadowed ones included
    /// (for a title).
    pub first_user_text: Option<String>,
    /// The agent the session started with (the first message's `agent`).
    pub agent: Option<String>,
}

/// One message with what projection needs of it.
struct Message<'a> {
    id: &'a str,
    seq: u64,
    role: Option<Role>,
    summary: bool,
    /// A `finish`, and no `error`: a summary that completes a compaction.
    completed: bool,
    parent: Option<String>,
    agent: Option<String>,
    texts: Vec<String>,
    /// A `compaction` part, with its `tail_start_id` when any.
    compaction: Option<Option<String>>,
}

/// Projects one session. `messages` sorted by id, `parts` by message id
/// then id (as the queries and the tree listing give them); `revert` is
/// `session.revert.messageID`.
pub fn project(
    messages: &[MessageRow<'_>],
    parts: &[PartRow<'_>],
    revert: Option<&str>,
) -> Projected {
    let mut out = Projected::default();
    let mut parsed = Vec::with_capacity(messages.len());
    let mut parts = parts.iter().peekable();
    for (i, row) in messages.iter().enumerate() {
        // Parts of messages not listed (or out of order) are passed over.
        while parts.peek().is_some_and(|p| p.message_id < row.id) {
            parts.next();
        }
        let mut own = Vec::new();
        while let Some(p) = parts.next_if(|p| p.message_id == row.id) {
            match object(p.data) {
                Some(part) => own.push(part),
                None => out.skipped += 1,
            }
        }
        let seq = i as u64 + 1;
        out.rows = seq;
        let Some(data) = object(row.data) else {
            out.skipped += 1;
            continue;
        };
        parsed.push(message(row.id, seq, &data, own));
    }
    out.agent = parsed.iter().find_map(|m| m.agent.clone());
    // Only what a title is taken from: never a copy of the whole text.
    out.first_user_text = parsed
        .iter()
        .filter(|m| m.role == Some(Role::User))
        .find(|m| m.texts.iter().any(|t| !t.trim().is_empty()))
        .map(|m| title_source(&m.texts));
    // The revert: that message and every later one are undone.
    if let Some(at) = revert.and_then(|id| parsed.iter().position(|m| m.id == id)) {
        parsed.truncate(at);
    }
    let checkpoint = checkpoint(&parsed);
    for m in parsed {
        let mut seq = m.seq;
        if let Some(c) = &checkpoint {
            if m.seq == c.place() {
                out.entries.push(Entry {
                    seq: c.place(),
                    event: Event::Checkpoint {
                        through_seq: c.through(),
                        text: Cow::Owned(c.text.clone()),
                    },
                });
            }
            // The request is the checkpoint's place in OpenCode's own
            // view; the tail moves one place on, after the summary.
            if m.seq == c.request {
                continue;
            }
            if c.tail
                .is_some_and(|tail| (tail..c.request).contains(&m.seq))
            {
                seq += 1;
            }
        }
        let Some(role) = m.role else { continue };
        if m.summary && role == Role::Assistant {
            continue;
        }
        let text = joined(m.texts);
        if text.trim().is_empty() {
            continue;
        }
        out.entries.push(Entry::message(seq, role, text));
    }
    out
}

/// The completed compaction that decides shadowing.
///
/// OpenCode hands its model (`filterCompacted`) the compaction request,
/// its summary, then the tail (`tail_start_id` up to the request), then
/// what followed: the tail is listed after the checkpoint, as there. So
/// the checkpoint takes the tail's first place and every tail message
/// moves one place on, into the request's place at most (the request,
/// a marker with no text of its own, is never projected). Every `seq`
/// stays a row number, strictly increasing.
struct Compacted {
    /// The request's seq.
    request: u64,
    /// The tail's first seq, when the request kept one.
    tail: Option<u64>,
    text: String,
}

impl Compacted {
    /// The checkpoint's seq.
    fn place(&self) -> u64 {
        self.tail.unwrap_or(self.request)
    }

    /// The last seq the checkpoint shadows.
    fn through(&self) -> u64 {
        match self.tail {
            Some(tail) => tail - 1,
            None => self.request,
        }
    }
}

/// The completed compaction with the highest request id, with the text
/// of the last summary completing it.
fn checkpoint(messages: &[Message<'_>]) -> Option<Compacted> {
    let request_of = |m: &Message<'_>| {
        let parent = m.parent.as_deref()?;
        messages
            .iter()
            .position(|r| r.id == parent && r.role == Some(Role::User) && r.compaction.is_some())
    };
    // Ids ascend with time: the last summary completing a request wins
    // for it, and the highest request wins overall.
    let mut best: Option<(usize, &Message<'_>)> = None;
    for m in messages {
        if m.role != Some(Role::Assistant) || !m.summary || !m.completed {
            continue;
        }
        if let Some(at) = request_of(m) {
            if best.is_none_or(|(b, _)| at >= b) {
                best = Some((at, m));
            }
        }
    }
    let (at, summary) = best?;
    let request = &messages[at];
    let tail = request
        .compaction
        .as_ref()
        .and_then(|t| t.as_deref())
        .and_then(|tail| messages[..at].iter().find(|m| m.id == tail));
    Some(Compacted {
        request: request.seq,
        tail: tail.map(|t| t.seq),
        text: summary.texts.join("\n"),
    })
}

fn object(data: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(data) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// A message's texts joined with `\n`; one text is moved, never copied
/// (a 100 MB part is held once).
fn joined(mut texts: Vec<String>) -> String {
    match texts.len() {
        1 => texts.pop().unwrap_or_default(),
        _ => texts.join("\n"),
    }
}

/// The start of a message's joined texts a title is taken from, read
/// without joining them whole.
fn title_source(texts: &[String]) -> String {
    let mut start = String::new();
    for (i, t) in texts.iter().enumerate() {
        if i > 0 {
            start.push('\n');
        }
        let room = text::TITLE_SOURCE_MAX.saturating_sub(start.len());
        let mut end = t.len().min(room);
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        start.push_str(&t[..end]);
        if start.trim_start().len() >= text::TITLE_SOURCE_MAX || end < t.len() {
            break;
        }
    }
    text::title_source(&start)
}

/// One message: its parts taken by value, their texts moved out.
fn message<'a>(
    id: &'a str,
    seq: u64,
    data: &Map<String, Value>,
    parts: Vec<Map<String, Value>>,
) -> Message<'a> {
    let text_of = |key: &str| data.get(key).and_then(Value::as_str).map(str::to_string);
    let present = |key: &str| data.get(key).is_some_and(|v| !v.is_null());
    let role = match data.get("role").and_then(Value::as_str) {
        Some("user") => Some(Role::User),
        Some("assistant") => Some(Role::Assistant),
        _ => None,
    };
    let flag = |part: &Map<String, Value>, key: &str| part.get(key) == Some(&Value::Bool(true));
    let mut texts = Vec::new();
    let mut compaction = None;
    for mut part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("text") => {
                let hidden = role == Some(Role::User)
                    && (flag(&part, "synthetic") || flag(&part, "ignored"));
                if let (false, Some(Value::String(text))) = (hidden, part.remove("text")) {
                    texts.push(text);
                }
            }
            Some("compaction") => {
                compaction = Some(
                    part.get("tail_start_id")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                );
            }
            _ => {}
        }
    }
    Message {
        id,
        seq,
        role,
        summary: data.get("summary") == Some(&Value::Bool(true)),
        completed: present("finish") && !present("error"),
        parent: text_of("parentID"),
        agent: text_of("agent"),
        texts,
        compaction,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(p: &Projected) -> Vec<(u64, String)> {
        p.entries
            .iter()
            .map(|e| match &e.event {
                Event::Message { role, text } => (e.seq, format!("{}: {text}", role.as_str())),
                Event::Checkpoint { through_seq, text } => {
                    (e.seq, format!("checkpoint<={through_seq}: {text}"))
                }
                _ => (e.seq, String::new()),
            })
            .collect()
    }

    const USER: &str = r#"{"role":"user","agent":"build"}"#;
    const ASSISTANT: &str = r#"{"role":"assistant","parentID":"m1","finish":"stop"}"#;

    #[test]
    fn text_parts_become_messages_and_hidden_ones_do_not() {
        let messages = [
            MessageRow {
                id: "m1",
                data: USER,
            },
            MessageRow {
                id: "m2",
                data: ASSISTANT,
            },
            MessageRow {
                id: "m3",
                data: "[1]",
            },
        ];
        let parts = [
            PartRow {
                message_id: "m1",
                id: "p1",
                data: r#"{"type":"text","text":"hi"}"#,
            },
            PartRow {
                message_id: "m1",
                id: "p2",
                data: r#"{"type":"text","text":"x","synthetic":true}"#,
            },
            PartRow {
                message_id: "m1",
                id: "p3",
                data: r#"{"type":"text","text":"y","ignored":true}"#,
            },
            PartRow {
                message_id: "m2",
                id: "p4",
                data: r#"{"type":"reasoning","text":"hmm"}"#,
            },
            PartRow {
                message_id: "m2",
                id: "p5",
                data: r#"{"type":"text","text":"a"}"#,
            },
            PartRow {
                message_id: "m2",
                id: "p6",
                data: r#"{"type":"text","text":"b"}"#,
            },
            PartRow {
                message_id: "m2",
                id: "p7",
                data: "nope",
            },
        ];
        let p = project(&messages, &parts, None);
        assert_eq!(
            texts(&p),
            [(1, "user: hi".into()), (2, "assistant: a\nb".into())]
        );
        assert_eq!((p.rows, p.skipped), (3, 2));
        assert_eq!(p.first_user_text.as_deref(), Some("hi"));
        assert_eq!(p.agent.as_deref(), Some("build"));
    }

    #[test]
    fn a_revert_drops_that_message_and_later_but_the_title_still_sees_them() {
        let messages = [
            MessageRow {
                id: "m1",
                data: USER,
            },
            MessageRow {
                id: "m2",
                data: ASSISTANT,
            },
        ];
        let parts = [
            PartRow {
                message_id: "m1",
                id: "p1",
                data: r#"{"type":"text","text":"first"}"#,
            },
            PartRow {
                message_id: "m2",
                id: "p2",
                data: r#"{"type":"text","text":"a"}"#,
            },
        ];
        let p = project(&messages, &parts, Some("m1"));
        assert!(p.entries.is_empty());
        assert_eq!(p.first_user_text.as_deref(), Some("first"));
        // A revert naming no message of the session cuts nothing.
        assert_eq!(project(&messages, &parts, Some("zz")).entries.len(), 2);
    }

    #[test]
    fn a_completed_compaction_is_a_checkpoint_at_its_request_with_its_tail() {
        let summary = r#"{"role":"assistant","parentID":"m4","summary":true,"finish":"stop"}"#;
        let failed = r#"{"role":"assistant","parentID":"m4","summary":true,"finish":"stop","error":{"name":"x"}}"#;
        let messages = [
            MessageRow {
                id: "m1",
                data: USER,
            },
            MessageRow {
                id: "m2",
                data: ASSISTANT,
            },
            MessageRow {
                id: "m3",
                data: USER,
            },
            MessageRow {
                id: "m4",
                data: USER,
            },
            MessageRow {
                id: "m5",
                data: failed,
            },
            MessageRow {
                id: "m6",
                data: summary,
            },
            MessageRow {
                id: "m7",
                data: USER,
            },
        ];
        let text = |m: &'static str, p: &'static str, t: &'static str| PartRow {
            message_id: m,
            id: p,
            data: t,
        };
        let mut parts = vec![
            text("m1", "p1", r#"{"type":"text","text":"one"}"#),
            text("m2", "p2", r#"{"type":"text","text":"two"}"#),
            text("m3", "p3", r#"{"type":"text","text":"three"}"#),
            text("m4", "p4", r#"{"type":"compaction","auto":true}"#),
            text("m5", "p5", r#"{"type":"text","text":"failed"}"#),
            text("m6", "p6", r#"{"type":"text","text":"summary"}"#),
            text("m7", "p7", r#"{"type":"text","text":"after"}"#),
        ];
        let p = project(&messages, &parts, None);
        assert_eq!(
            texts(&p),
            [
                (1, "user: one".into()),
                (2, "assistant: two".into()),
                (3, "user: three".into()),
                (4, "checkpoint<=4: summary".into()),
                (7, "user: after".into())
            ]
        );
        parts[3] = text(
            "m4",
            "p4",
            r#"{"type":"compaction","auto":true,"tail_start_id":"m3"}"#,
        );
        // The tail (m3) is listed after the checkpoint, as OpenCode does.
        let p = project(&messages, &parts, None);
        assert_eq!(
            texts(&p),
            [
                (1, "user: one".into()),
                (2, "assistant: two".into()),
                (3, "checkpoint<=2: summary".into()),
                (4, "user: three".into()),
                (7, "user: after".into())
            ]
        );
    }

    proptest::proptest! {
        /// Issue 27 (generated logs, as Claude Code's and Codex's): a
        /// session's rows put together from OpenCode's records (users,
        /// assistants, summaries completing a compaction or not, junk;
        /// text, hidden, reasoning and compaction parts, junk), with or
        /// without a revert. Projection never panics, counts every message
        /// row, hands out `seq`s that ascend within the rows, places each
        /// checkpoint after what it covers, and counts as skipped at most
        /// the rows it was given.
        #[test]
        fn any_generated_session_projects_in_order(
            rows in proptest::collection::vec(
                (0usize..6, proptest::collection::vec((0usize..6, 0usize..3), 0..4)),
                0..12,
            ),
            revert in proptest::option::of(0usize..12),
        ) {
            let messages_pool = [
                USER,
                ASSISTANT,
                r#"{"role":"assistant","summary":true,"finish":"stop","parentID":"m00"}"#,
                r#"{"role":"assistant","summary":true,"error":{"name":"x"}}"#,
                r#"{"role":"user"}"#,
                "[1]",
            ];
            let ids: Vec<String> = (0..rows.len()).map(|i| format!("m{i:02}")).collect();
            let part_ids: Vec<Vec<String>> = rows
                .iter()
                .enumerate()
                .map(|(i, (_, parts))| (0..parts.len()).map(|j| format!("p{i:02}{j}")).collect())
                .collect();
            let part_data: Vec<Vec<String>> = rows
                .iter()
                .map(|(_, parts)| {
                    parts
                        .iter()
                        .map(|&(kind, tail)| match kind {
                            0 => r#"{"type":"text","text":"words"}"#.to_string(),
                            1 => r#"{"type":"text","text":"x","synthetic":true}"#.to_string(),
                            2 => r#"{"type":"reasoning","text":"hmm"}"#.to_string(),
                            3 => format!(r#"{{"type":"compaction","tail_start_id":"m{tail:02}"}}"#),
                            4 => r#"{"type":"compaction"}"#.to_string(),
                            _ => "nope".to_string(),
                        })
                        .collect()
                })
                .collect();
            let messages: Vec<MessageRow<'_>> = rows
                .iter()
                .zip(&ids)
                .map(|((kind, _), id)| MessageRow { id, data: messages_pool[*kind] })
                .collect();
            let mut parts = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                for (pid, data) in part_ids[i].iter().zip(&part_data[i]) {
                    parts.push(PartRow { message_id: id, id: pid, data });
                }
            }
            let revert = revert.map(|r| format!("m{r:02}"));
            let p = project(&messages, &parts, revert.as_deref());
            proptest::prop_assert_eq!(p.rows, messages.len() as u64);
            proptest::prop_assert!(p.skipped <= (messages.len() + parts.len()) as u64);
            let seqs: Vec<u64> = p.entries.iter().map(|e| e.seq).collect();
            proptest::prop_assert!(seqs.windows(2).all(|w| w[0] <= w[1]), "{:?}", seqs);
            proptest::prop_assert!(seqs.iter().all(|&s| s >= 1 && s <= p.rows), "{:?}", seqs);
            for e in &p.entries {
                if let Event::Checkpoint { through_seq, .. } = &e.event {
                    proptest::prop_assert!(*through_seq <= p.rows);
                }
            }
        }
    }
}
