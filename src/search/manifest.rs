//! What the index holds, by session id: the writer compares every listed
//! session with it at each sync, and it stays cached while the commit it
//! was read from is the one searched.
//!
//! Sorted by id, the ids packed in one string: a hash map of 100,000
//! owned ids held about 10 MB for as long as the language server ran,
//! and each walk added a set of the ids it saw (issue 29 item 6); this
//! holds about 4 MB, and a walk marks what it saw by place.

/// What the index holds of one session (its session document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indexed {
    pub version: u64,
    pub messages: u64,
    pub surface_hash: u64,
}

/// The indexed sessions, sorted by id.
#[derive(Debug, Default)]
pub struct Manifest {
    ids: String,
    /// Where each id is in `ids` (start, length), and what is indexed of
    /// it, in the ids' order.
    entries: Vec<(u32, u32, Indexed)>,
}

/// A manifest being read: ids in any order.
#[derive(Default)]
pub struct ManifestBuilder {
    manifest: Manifest,
}

impl ManifestBuilder {
    pub fn push(&mut self, id: &str, indexed: Indexed) {
        let m = &mut self.manifest;
        let (Ok(start), Ok(len)) = (u32::try_from(m.ids.len()), u32::try_from(id.len())) else {
            return; // 4 GiB of ids: none of this program's stores
        };
        m.ids.push_str(id);
        m.entries.push((start, len, indexed));
    }

    /// Sorted by id; of an id pushed twice, the first.
    pub fn finish(self) -> Manifest {
        let Manifest {
            mut ids,
            mut entries,
        } = self.manifest;
        let id_of = |&(start, len, _): &(u32, u32, Indexed)| {
            ids.get(start as usize..start as usize + len as usize)
                .unwrap_or_default()
        };
        // Stable: of equal ids the first pushed stays first, and stays.
        entries.sort_by(|a, b| id_of(a).cmp(id_of(b)));
        entries.dedup_by(|later, earlier| id_of(later) == id_of(earlier));
        entries.shrink_to_fit();
        ids.shrink_to_fit();
        Manifest { ids, entries }
    }
}

impl Manifest {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The place of `id`, `0..len()`.
    pub fn place(&self, id: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|entry| self.id_at(entry).cmp(id))
            .ok()
    }

    /// What is indexed of `id`.
    pub fn get(&self, id: &str) -> Option<&Indexed> {
        self.place(id).and_then(|place| self.at(place))
    }

    /// The id at `place` (see [`Manifest::place`]).
    pub fn id(&self, place: usize) -> Option<&str> {
        self.entries.get(place).map(|entry| self.id_at(entry))
    }

    /// The indexed entry at `place`.
    pub fn at(&self, place: usize) -> Option<&Indexed> {
        self.entries.get(place).map(|entry| &entry.2)
    }

    fn id_at(&self, &(start, len, _): &(u32, u32, Indexed)) -> &str {
        let start = start as usize;
        self.ids
            .get(start..start + len as usize)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(version: u64) -> Indexed {
        Indexed {
            version,
            messages: version * 2,
            surface_hash: version * 3,
        }
    }

    #[test]
    fn ids_are_found_by_place_whatever_order_they_came_in() {
        let mut builder = ManifestBuilder::default();
        for (id, version) in [("s3", 3), ("s1", 1), ("东京", 9), ("s2", 2), ("s1", 7)] {
            builder.push(id, indexed(version));
        }
        let manifest = builder.finish();
        assert_eq!(manifest.len(), 4);
        assert_eq!(
            manifest.get("s1"),
            Some(&indexed(1)),
            "the first of a repeated id"
        );
        assert_eq!(manifest.get("s2"), Some(&indexed(2)));
        assert_eq!(manifest.get("东京"), Some(&indexed(9)));
        assert_eq!(manifest.get("s4"), None);
        let place = manifest.place("s3").unwrap();
        assert_eq!(manifest.id(place), Some("s3"));
        assert_eq!(manifest.at(place), Some(&indexed(3)));
        let ids: Vec<&str> = (0..manifest.len()).filter_map(|p| manifest.id(p)).collect();
        assert_eq!(ids, ["s1", "s2", "s3", "东京"]);
        assert!(Manifest::default().is_empty());
        assert_eq!(Manifest::default().get(""), None);
    }
}
