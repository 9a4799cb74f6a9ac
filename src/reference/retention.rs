//! Fitting one source into its byte budget (reference.md §4).
//!
//! Sizes are additive, so nothing is re-serialised: step 1 keeps every
//! checkpoint, the last message and the longest suffix of the others that
//! fits (one backward pass); step 2 truncates the few survivors, each try
//! of its binary search costing O(1).

use std::borrow::Cow;

use super::error::ReferenceError;
use super::json;
use super::projection::{item_size, Dropped, Message, Projection, Role};

pub const DEFAULT_MAX_REFERENCE_BYTES: usize = 65_536;

pub use super::render::{SourceMeta, Turn};

/// Retention statistics of one source (reference.md §4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub compacted: bool,
    pub original_messages: usize,
    pub retained_messages: usize,
    pub omitted_messages: usize,
    pub omitted_bytes: u64,
}

impl Stats {
    pub fn truncated(&self) -> bool {
        self.omitted_messages > 0 || self.omitted_bytes > 0
    }
}

/// A source fitted into its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retained {
    pub conversation: Vec<Turn>,
    pub stats: Stats,
}

/// Size of the data object with an empty conversation.
pub fn fixed_size(meta: &SourceMeta<'_>) -> usize {
    let mut out = String::new();
    super::render::write_data_object(&mut out, meta, &[]);
    out.len()
}

/// Fits `projection` into `budget` bytes of tag-safe JSON.
pub fn retain(
    meta: &SourceMeta<'_>,
    projection: Projection,
    budget: usize,
) -> Result<Retained, ReferenceError> {
    let Projection {
        messages,
        dropped,
        compacted,
        ..
    } = projection;
    let original_messages = messages.len() + dropped.messages;
    let fixed = fixed_size(meta);
    let (kept, step1_dropped) = drop_oldest(messages, fixed, budget);
    let dropped = Dropped {
        messages: dropped.messages + step1_dropped.messages,
        bytes: dropped.bytes + step1_dropped.bytes,
    };
    let (conversation, truncated_bytes) = truncate_longest(kept, fixed, budget)?;
    Ok(Retained {
        stats: Stats {
            compacted,
            original_messages,
            retained_messages: conversation.len(),
            omitted_messages: dropped.messages,
            omitted_bytes: dropped.bytes + truncated_bytes,
        },
        conversation,
    })
}

/// Tag-safe size of the object holding `sizes` as its conversation.
fn object_size(fixed: usize, items: usize, sum_of_sizes: usize) -> usize {
    fixed + sum_of_sizes + items.saturating_sub(1)
}

/// Step 1: while too large, drop the first message that is neither a
/// checkpoint nor the last. Its survivors are the checkpoints, the last
/// message, and the longest suffix of the others that fits, found in one
/// backward pass that stops at the first message that does not fit: older
/// messages cost O(1) each, their sizes are never computed.
fn drop_oldest(messages: Vec<Message>, fixed: usize, budget: usize) -> (Vec<Message>, Dropped) {
    let last = messages.len().saturating_sub(1);
    let removable = |i: usize, m: &Message| !m.checkpoint && i != last;
    // Every survivor adds its size and one comma; the first has no comma.
    let mut size = fixed;
    let mut kept_items = 0usize;
    for (i, message) in messages.iter().enumerate() {
        if !removable(i, message) {
            size += message.item_size() + usize::from(kept_items > 0);
            kept_items += 1;
        }
    }
    // Walk the removable messages from the newest; keep while they fit.
    let mut keep = vec![true; messages.len()];
    let mut full = false;
    for (i, message) in messages.iter().enumerate().rev() {
        if !removable(i, message) {
            continue;
        }
        if !full {
            let grown = size + message.item_size() + usize::from(kept_items > 0);
            if grown <= budget {
                size = grown;
                kept_items += 1;
                continue;
            }
            full = true;
        }
        keep[i] = false;
    }
    let mut dropped = Dropped::default();
    let kept = messages
        .into_iter()
        .zip(keep)
        .filter_map(|(m, keep)| {
            if !keep {
                dropped.messages += 1;
                dropped.bytes += m.text.len() as u64;
            }
            keep.then_some(m)
        })
        .collect();
    (kept, dropped)
}

/// Step 2: while too large, cut the message with the most bytes down to
/// what the overflow leaves it. Returns the turns and the bytes omitted
/// from kept messages.
fn truncate_longest(
    kept: Vec<Message>,
    fixed: usize,
    budget: usize,
) -> Result<(Vec<Turn>, u64), ReferenceError> {
    struct Slot {
        role: Role,
        original: String,
        current: Option<String>,
        omitted: u64,
    }
    impl Slot {
        fn text(&self) -> &str {
            self.current.as_deref().unwrap_or(&self.original)
        }
    }
    let mut slots: Vec<Slot> = kept
        .into_iter()
        .map(|m| Slot {
            role: m.role,
            original: m.text,
            current: None,
            omitted: 0,
        })
        .collect();
    let mut sum: usize = slots.iter().map(|s| item_size(s.role, s.text())).sum();
    loop {
        let size = object_size(fixed, slots.len(), sum);
        if size <= budget {
            break;
        }
        // The first of the longest, by current UTF-8 bytes.
        let longest = slots
            .iter()
            .enumerate()
            .fold(None::<(usize, usize)>, |best, (i, s)| match best {
                Some((_, bytes)) if bytes >= s.text().len() => best,
                _ => Some((i, s.text().len())),
            });
        let Some((index, bytes)) = longest.filter(|&(_, bytes)| bytes > 0) else {
            return Err(ReferenceError::budget_exceeded());
        };
        let target = bytes.saturating_sub(size - budget);
        let slot = &mut slots[index];
        let (text, omitted) = truncate(&slot.original, target);
        if text == slot.text() {
            return Err(ReferenceError::budget_exceeded());
        }
        sum = sum - item_size(slot.role, slot.text()) + item_size(slot.role, &text);
        slot.current = Some(text.into_owned());
        slot.omitted = omitted;
    }
    let omitted = slots.iter().map(|s| s.omitted).sum();
    let turns = slots
        .into_iter()
        .map(|s| Turn {
            role: s.role,
            text: s.current.unwrap_or(s.original),
        })
        .collect();
    Ok((turns, omitted))
}

const NOTICE_HEAD: &str = "\n[… omitted ";
const NOTICE_TAIL: &str = " UTF-8 bytes …]\n";

/// Keeps a head and a tail of `text` with an omission notice between them,
/// in at most `target` bytes, as reference.md §4 specifies (same search,
/// same result). Returns the text and the omitted byte count.
pub fn truncate(text: &str, target: usize) -> (Cow<'_, str>, u64) {
    let total = text.len();
    if total <= target {
        return (Cow::Borrowed(text), 0);
    }
    // (head bytes, tail bytes, omitted bytes) of the best candidate so far.
    let mut best: Option<(usize, usize, usize)> = None;
    let (mut low, mut high) = (0usize, target);
    while low <= high {
        let r = low + (high - low) / 2;
        let head = floor_boundary(text, r.div_ceil(2));
        let tail = total - ceil_boundary(text, total - r / 2);
        let omitted = total - head - tail;
        let candidate =
            head + NOTICE_HEAD.len() + json::decimal_len(omitted as u64) + NOTICE_TAIL.len() + tail;
        if candidate <= target {
            best = Some((head, tail, omitted));
            low = r + 1;
        } else if r == 0 {
            break;
        } else {
            high = r - 1;
        }
    }
    match best {
        None => (Cow::Borrowed(""), total as u64),
        Some((head, tail, omitted)) => {
            let out = format!(
                "{}{NOTICE_HEAD}{omitted}{NOTICE_TAIL}{}",
                &text[..head],
                &text[total - tail..]
            );
            (Cow::Owned(out), omitted as u64)
        }
    }
}

/// The largest char boundary at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary at or above `at`.
fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> SourceMeta<'static> {
        SourceMeta {
            session_id: "s",
            label: "s",
            cwd: None,
            captured_through_seq: Some(9),
        }
    }

    fn msg(seq: u64, role: Role, checkpoint: bool, text: &str) -> Message {
        Message {
            seq,
            role,
            checkpoint,
            text: text.to_string(),
        }
    }

    fn size_of(retained: &Retained) -> usize {
        let mut out = String::new();
        super::super::render::write_data_object(&mut out, &meta(), &retained.conversation);
        out.len()
    }

    #[test]
    fn truncate_keeps_head_and_tail() {
        let text = "abcdefghijklmnopqrstuvwxyz".repeat(4);
        let (out, omitted) = truncate(&text, 50);
        assert!(out.len() <= 50);
        assert!(out.starts_with("abcdefg"));
        assert!(out.contains(&format!("[… omitted {omitted} UTF-8 bytes …]")));
        let (out, omitted) = truncate(&text, 10);
        assert_eq!((out.as_ref(), omitted), ("", 104));
    }

    #[test]
    fn truncate_never_splits_characters() {
        let text = "é😀".repeat(50);
        for target in 0..text.len() {
            let (out, _) = truncate(&text, target);
            assert!(out.len() <= target);
        }
    }

    #[test]
    fn drops_oldest_non_checkpoints_first() {
        let messages = vec![
            msg(1, Role::User, false, &"a".repeat(100)),
            msg(2, Role::User, true, "summary"),
            msg(3, Role::Assistant, false, &"b".repeat(100)),
            msg(4, Role::User, false, "last"),
        ];
        let projection = Projection {
            messages,
            dropped: Dropped::default(),
            compacted: true,
            ..Projection::default()
        };
        let fixed = fixed_size(&meta());
        let budget = fixed + 200;
        let retained = retain(&meta(), projection, budget).expect("fits");
        assert!(size_of(&retained) <= budget);
        let texts: Vec<&str> = retained
            .conversation
            .iter()
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(texts[0], "summary");
        assert_eq!(texts.last(), Some(&"last"));
        assert_eq!(retained.stats.omitted_messages, 1);
    }

    #[test]
    fn fails_when_fixed_fields_do_not_fit() {
        let projection = Projection {
            messages: vec![msg(1, Role::User, false, "x")],
            dropped: Dropped::default(),
            compacted: false,
            ..Projection::default()
        };
        assert!(retain(&meta(), projection, 10).is_err());
    }
}
