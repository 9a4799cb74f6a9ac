//! The replayed message list of a Gemini JSONL session: a message written
//! again under its id keeps its place, a `$set` list replaces all, a rewind
//! drops a message and what follows.

use std::collections::HashMap;

/// What the list keeps of each message.
pub trait Item {
    /// Whether it is a user or assistant message (a log with none is no
    /// session).
    fn counts(&self) -> bool;
}

impl Item for bool {
    fn counts(&self) -> bool {
        *self
    }
}

/// Messages by id, in list order.
#[derive(Debug, Clone)]
pub struct Replay<T> {
    items: Vec<(String, T)>,
    at: HashMap<String, usize>,
    counted: usize,
}

impl<T> Default for Replay<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            at: HashMap::new(),
            counted: 0,
        }
    }
}

impl<T: Item> Replay<T> {
    /// A new id is appended; a known one is replaced where it is.
    pub fn put(&mut self, id: String, item: T) {
        self.counted += usize::from(item.counts());
        match self.at.get(&id) {
            Some(&i) => {
                let old = std::mem::replace(&mut self.items[i].1, item);
                self.counted -= usize::from(old.counts());
            }
            None => {
                self.at.insert(id.clone(), self.items.len());
                self.items.push((id, item));
            }
        }
    }

    pub fn clear(&mut self) {
        self.items.clear();
        self.at.clear();
        self.counted = 0;
    }

    /// Drops the message `id` and every later one; all when `id` is not
    /// there.
    pub fn rewind(&mut self, id: &str) {
        let Some(&from) = self.at.get(id) else {
            self.clear();
            return;
        };
        for (id, item) in self.items.drain(from..) {
            self.at.remove(&id);
            self.counted -= usize::from(item.counts());
        }
    }

    /// Whether a user or assistant message is in the list.
    pub fn has_message(&self) -> bool {
        self.counted > 0
    }

    pub fn into_items(self) -> impl Iterator<Item = T> {
        self.items.into_iter().map(|(_, item)| item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(r: &Replay<bool>) -> Vec<&str> {
        r.items.iter().map(|(id, _)| id.as_str()).collect()
    }

    #[test]
    fn replaced_messages_keep_their_place_and_rewinds_cut() {
        let mut r = Replay::default();
        for id in ["a", "b", "c"] {
            r.put(id.into(), false);
        }
        r.put("a".into(), true);
        assert_eq!(ids(&r), ["a", "b", "c"]);
        assert!(r.has_message());
        r.rewind("b");
        assert_eq!(ids(&r), ["a"]);
        r.put("b".into(), false);
        assert_eq!(ids(&r), ["a", "b"]);
        r.rewind("a");
        assert!(ids(&r).is_empty() && !r.has_message());
        r.put("x".into(), true);
        r.rewind("unknown");
        assert!(ids(&r).is_empty() && !r.has_message());
    }
}
