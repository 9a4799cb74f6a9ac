//! Where an index's bytes go, by field and by kind of file (term
//! dictionary, postings, positions, fieldnorms, fast fields, stored
//! documents), summed over its segments: the total size alone does not
//! say which field a change of the schema should aim at.

use std::collections::BTreeMap;
use std::path::Path;

use tantivy::Index;

/// Markdown rows `| field | part | MiB | % of the index |`, largest first;
/// the stored documents and deletes as fields of their own. Empty when the
/// index cannot be read.
pub fn rows(dir: &Path) -> Vec<String> {
    let Ok(index) = Index::open_in_dir(dir) else {
        return Vec::new();
    };
    let Ok(reader) = index.reader() else {
        return Vec::new();
    };
    let Ok(usage) = reader.searcher().space_usage() else {
        return Vec::new();
    };
    let mut bytes: BTreeMap<(String, &str), u64> = BTreeMap::new();
    for segment in usage.segments() {
        let parts = [
            ("termdict", segment.termdict()),
            ("postings", segment.postings()),
            ("positions", segment.positions()),
            ("fieldnorms", segment.fieldnorms()),
            ("fast", segment.fast_fields()),
        ];
        for (part, per_field) in parts {
            for field in per_field.fields() {
                *bytes
                    .entry((field.field_name().to_string(), part))
                    .or_default() += field.total().get_bytes();
            }
        }
        *bytes
            .entry(("(stored documents)".into(), "store"))
            .or_default() += segment.store().total().get_bytes();
        *bytes.entry(("(deletes)".into(), "deletes")).or_default() += segment.deletes().get_bytes();
    }
    let total = usage.total().get_bytes().max(1);
    let mut sorted: Vec<_> = bytes.into_iter().filter(|(_, b)| *b > 0).collect();
    sorted.sort_by_key(|b| std::cmp::Reverse(b.1));
    sorted
        .into_iter()
        .map(|((field, part), b)| {
            format!(
                "| {field} | {part} | {:.2} MiB | {:.1} % |",
                b as f64 / (1 << 20) as f64,
                100.0 * b as f64 / total as f64
            )
        })
        .collect()
}
