//! A catalog's files by relative path: one sorted vector.
//!
//! The catalog is rebuilt whole from sorted input on every walk (a list of
//! 100,000 logs, already in name order), read in order far more often than
//! it is changed one file at a time, and changed one file at a time only
//! when a watcher reports a new or vanished log. A sorted vector takes the
//! walk's order as it comes, where a tree would sort and copy it again.

use std::sync::Arc;

/// Values by name, in byte order of the names, each name once.
#[derive(Debug, Clone)]
pub(crate) struct ByName<V> {
    entries: Vec<(Arc<[u8]>, V)>,
}

impl<V> Default for ByName<V> {
    fn default() -> Self {
        ByName {
            entries: Vec::new(),
        }
    }
}

impl<V> ByName<V> {
    /// From entries in strictly increasing name order, as a walk or an
    /// index cache gives them; anything else is sorted (the last of
    /// equal names wins).
    pub fn from_sorted(mut entries: Vec<(Arc<[u8]>, V)>) -> Self {
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable: of equal names, the later entry is kept below.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut kept: Vec<(Arc<[u8]>, V)> = Vec::with_capacity(entries.len());
            for entry in entries {
                match kept.last_mut() {
                    Some(last) if last.0 == entry.0 => *last = entry,
                    _ => kept.push(entry),
                }
            }
            entries = kept;
        }
        ByName { entries }
    }

    /// From entries the caller keeps in strictly increasing name order
    /// (checked in debug builds only: a walk of 100,000 logs need not be
    /// compared again).
    pub fn from_sorted_unchecked(entries: Vec<(Arc<[u8]>, V)>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        ByName { entries }
    }

    fn find(&self, name: &[u8]) -> Result<usize, usize> {
        self.entries.binary_search_by(|(n, _)| (**n).cmp(name))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&self, name: &[u8]) -> Option<&V> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    /// Adds or replaces `name`'s value.
    pub fn insert(&mut self, name: Arc<[u8]>, value: V) {
        match self.find(&name) {
            Ok(i) => self.entries[i] = (name, value),
            Err(i) => self.entries.insert(i, (name, value)),
        }
    }

    pub fn remove_entry(&mut self, name: &[u8]) -> Option<(Arc<[u8]>, V)> {
        self.find(name).ok().map(|i| self.entries.remove(i))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Arc<[u8]>, &V)> + '_ {
        self.entries.iter().map(|(n, v)| (n, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn into_entries(self) -> Vec<(Arc<[u8]>, V)> {
        self.entries
    }

    /// Adds `other`'s entries; where both have a name, `other`'s value wins.
    pub fn merge(&mut self, other: ByName<V>) {
        if other.entries.is_empty() {
            return;
        }
        // All after mine (a first scan's batches come in name order): an
        // append, which grows the list where it lies instead of copying
        // it into a new one beside it (100,000 files are 14 MiB).
        let after = match (self.entries.last(), other.entries.first()) {
            (Some((last, _)), Some((first, _))) => last < first,
            _ => true,
        };
        if after {
            self.entries.reserve_exact(other.entries.len());
            self.entries.extend(other.entries);
            return;
        }
        let mut merged = Vec::with_capacity(self.entries.len() + other.entries.len());
        let mut mine = std::mem::take(&mut self.entries).into_iter().peekable();
        for entry in other.entries {
            while let Some(m) = mine.next_if(|(n, _)| *n < entry.0) {
                merged.push(m);
            }
            mine.next_if(|(n, _)| *n == entry.0);
            merged.push(entry);
        }
        merged.extend(mine);
        self.entries = merged;
    }
}

impl<'a, V> IntoIterator for &'a ByName<V> {
    type Item = (&'a Arc<[u8]>, &'a V);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Arc<[u8]>, V)>,
        fn(&'a (Arc<[u8]>, V)) -> (&'a Arc<[u8]>, &'a V),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(n, v)| (n, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<V>(m: &ByName<V>) -> Vec<String> {
        m.iter()
            .map(|(n, _)| String::from_utf8_lossy(n).into_owned())
            .collect()
    }

    fn name(s: &str) -> Arc<[u8]> {
        Arc::from(s.as_bytes())
    }

    #[test]
    fn keeps_byte_order_through_inserts_and_removals() {
        let mut m = ByName::from_sorted(vec![(name("a"), 1), (name("c"), 3)]);
        m.insert(name("b"), 2);
        m.insert(name("a-b"), 4);
        m.insert(name("c"), 30);
        assert_eq!(names(&m), ["a", "a-b", "b", "c"]);
        assert_eq!(m.get(b"c"), Some(&30));
        assert_eq!(m.remove_entry(b"a-b").map(|e| e.1), Some(4));
        assert_eq!(m.remove_entry(b"zz"), None);
        assert_eq!(m.get(b"a-b"), None);
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn unsorted_input_is_sorted_and_the_last_duplicate_wins() {
        let m = ByName::from_sorted(vec![(name("b"), 1), (name("a"), 2), (name("b"), 3)]);
        assert_eq!(names(&m), ["a", "b"]);
        assert_eq!(m.get(b"b"), Some(&3));
    }

    #[test]
    fn merge_interleaves_and_the_merged_value_wins() {
        let mut m = ByName::from_sorted(vec![(name("a"), 1), (name("c"), 3), (name("e"), 5)]);
        m.merge(ByName::from_sorted(vec![
            (name("b"), 20),
            (name("c"), 30),
            (name("f"), 60),
        ]));
        assert_eq!(names(&m), ["a", "b", "c", "e", "f"]);
        assert_eq!(m.get(b"c"), Some(&30));
    }

    #[test]
    fn a_merge_of_names_all_after_appends_them() {
        let mut m = ByName::from_sorted(Vec::new());
        m.merge(ByName::from_sorted(vec![(name("a"), 1), (name("b"), 2)]));
        m.merge(ByName::from_sorted(vec![(name("c"), 3), (name("d"), 4)]));
        assert_eq!(names(&m), ["a", "b", "c", "d"]);
        // The same name at the seam is one entry, the merged value.
        m.merge(ByName::from_sorted(vec![(name("d"), 40), (name("e"), 5)]));
        assert_eq!(names(&m), ["a", "b", "c", "d", "e"]);
        assert_eq!(m.get(b"d"), Some(&40));
    }
}
