//! The sessions of a view in one compact table, laid out for completion.
//!
//! A large store has 100,000 sessions: one `Session` each (half a dozen
//! allocations) plus a map by id plus lower-cased keys cost over 500 bytes
//! a session and scatter every keystroke's scan over the heap. Here a
//! session is one fixed-size row; its strings live in one buffer, its cwd
//! is a number (a store has few distinct cwds), and the lower-cased fields
//! the query is matched against sit in another buffer in rank order, so a
//! keystroke is one `memmem` pass over contiguous bytes. A [`Session`] is
//! built only for what a request returns.
//!
//! Completion only *pre-selects* here: the first `limit + 1` matches in
//! rank order, found with the core's own rules (same cwd, then no cwd, then
//! the rest; newest first, ties by id bytes; case-insensitive substring of
//! id, cwd, label or displayTitle). The core's `candidates` then runs on
//! that subset, so the result and `incomplete` are exactly what it would
//! give on the whole store.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::{Locator, Session, SessionHeader};
use crate::reference::candidates::Target;

/// Ends each searchable field in the keys (a query holding it is checked
/// field by field).
const SEPARATOR: u8 = 0;
/// The cwd number of a session without one.
const NO_CWD: u32 = u32::MAX;

/// A string in [`Table::text`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

/// One session, without its strings.
#[derive(Debug)]
struct Row {
    created_at: u64,
    version: u64,
    capacity: Option<u64>,
    skipped_lines: u64,
    id: Span,
    title: Option<Span>,
    /// The header's display title.
    label: Option<Span>,
    /// The locator's name (bytes, not always UTF-8).
    name: Span,
    /// Why the log cannot be read, when it cannot.
    unreadable: Option<Span>,
    cwd: u32,
    store: u32,
    format: u8,
}

/// One distinct cwd.
#[derive(Debug)]
struct Cwd {
    text: Box<str>,
    lower: Box<str>,
    /// Its sessions' rows, in rank order.
    rows: Vec<u32>,
}

/// The sessions of a view, in rank order (newest first, ties by id bytes).
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Row>,
    /// Every row's id, title, display title and name.
    text: Vec<u8>,
    /// Per row, in row order: the lower-cased id, title and display title,
    /// each ended by [`SEPARATOR`].
    keys: Vec<u8>,
    /// Where each row's keys end (they start where the previous row's end).
    key_ends: Vec<u32>,
    cwds: Vec<Cwd>,
    /// Rows by id bytes.
    by_id: Vec<u32>,
    formats: Vec<&'static str>,
}

/// Gathers sessions into a [`Table`].
#[derive(Default)]
pub struct Builder {
    table: Table,
    cwd_numbers: HashMap<String, u32>,
}

impl Builder {
    /// Adds one session. A session whose strings would not fit the table's
    /// 4 GiB of text is left out.
    pub fn push(&mut self, session: Session) {
        let table = &mut self.table;
        let mark = table.text.len();
        let spans = (|| {
            Some((
                push_text(&mut table.text, session.header.id.as_bytes())?,
                match &session.title {
                    Some(t) => Some(push_text(&mut table.text, t.as_bytes())?),
                    None => None,
                },
                match &session.header.label {
                    Some(l) => Some(push_text(&mut table.text, l.as_bytes())?),
                    None => None,
                },
                push_text(&mut table.text, &session.locator.name)?,
            ))
        })();
        let Some((id, title, label, name)) = spans else {
            table.text.truncate(mark);
            return;
        };
        let cwd = match session.header.cwd {
            None => NO_CWD,
            Some(cwd) => match self.cwd_numbers.get(&cwd) {
                Some(&n) => n,
                None => {
                    let n = table.cwds.len() as u32;
                    table.cwds.push(Cwd {
                        lower: cwd.to_lowercase().into(),
                        text: cwd.as_str().into(),
                        rows: Vec::new(),
                    });
                    self.cwd_numbers.insert(cwd, n);
                    n
                }
            },
        };
        let format = match table
            .formats
            .iter()
            .position(|&f| f == session.locator.format)
        {
            Some(i) => i,
            None => {
                table.formats.push(session.locator.format);
                table.formats.len() - 1
            }
        };
        let unreadable = match &session.unreadable {
            Some(why) => push_text(&mut table.text, why.as_bytes()),
            None => None,
        };
        table.rows.push(Row {
            created_at: session.header.created_at,
            version: session.header.version,
            capacity: session.capacity,
            skipped_lines: session.skipped_lines,
            id,
            title,
            label,
            name,
            unreadable,
            cwd,
            store: session.locator.store as u32,
            format: format.min(u8::MAX as usize) as u8,
        });
    }

    /// Sorts the rows into rank order and builds the search keys.
    pub fn finish(self) -> Table {
        let Builder { mut table, .. } = self;
        {
            // In place: ids are unique, so the order is total.
            let text = &table.text;
            table.rows.sort_unstable_by(|a, b| {
                b.created_at
                    .cmp(&a.created_at)
                    .then_with(|| bytes(text, a.id).cmp(bytes(text, b.id)))
            });
        }

        let mut key_bytes = 0usize;
        for row in &table.rows {
            key_bytes += row.id.len as usize + 1;
            key_bytes += row.title.map_or(0, |s| s.len as usize + 1);
            key_bytes += row.label.map_or(0, |s| s.len as usize + 1);
        }
        table.keys.reserve_exact(key_bytes);
        table.key_ends.reserve_exact(table.rows.len());
        for (i, row) in table.rows.iter().enumerate() {
            for span in [Some(row.id), row.title, row.label].into_iter().flatten() {
                push_lower(&mut table.keys, text_str(&table.text, span));
                table.keys.push(SEPARATOR);
            }
            table.key_ends.push(table.keys.len() as u32);
            if let Some(cwd) = table.cwds.get_mut(row.cwd as usize) {
                cwd.rows.push(i as u32);
            }
        }
        let mut by_id: Vec<u32> = (0..table.rows.len() as u32).collect();
        by_id.sort_by(|&a, &b| table.id_bytes(a).cmp(table.id_bytes(b)));
        table.by_id = by_id;
        table.text.shrink_to_fit();
        table.rows.shrink_to_fit();
        table.formats.shrink_to_fit();
        for cwd in &mut table.cwds {
            cwd.rows.shrink_to_fit();
        }
        table.cwds.shrink_to_fit();
        table
    }
}

/// Appends `s` to the text, if it still fits 4 GiB.
fn push_text(text: &mut Vec<u8>, s: &[u8]) -> Option<Span> {
    let start = u32::try_from(text.len()).ok()?;
    let len = u32::try_from(s.len()).ok()?;
    start.checked_add(len)?;
    text.extend_from_slice(s);
    Some(Span { start, len })
}

/// Appends `s.to_lowercase()` (ASCII without an allocation).
fn push_lower(out: &mut Vec<u8>, s: &str) {
    if s.is_ascii() {
        out.extend(s.bytes().map(|b| b.to_ascii_lowercase()));
    } else {
        out.extend_from_slice(s.to_lowercase().as_bytes());
    }
}

fn bytes(text: &[u8], span: Span) -> &[u8] {
    let start = span.start as usize;
    text.get(start..start + span.len as usize)
        .unwrap_or_default()
}

/// A span the table filled from a `String`: always UTF-8.
fn text_str(text: &[u8], span: Span) -> &str {
    std::str::from_utf8(bytes(text, span)).unwrap_or_default()
}

impl Table {
    /// Number of sessions.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    fn id_bytes(&self, row: u32) -> &[u8] {
        self.rows
            .get(row as usize)
            .map_or(&[][..], |r| bytes(&self.text, r.id))
    }

    fn str(&self, span: Span) -> &str {
        text_str(&self.text, span)
    }

    /// The session with this id.
    pub fn get(&self, id: &str) -> Option<Session> {
        let at = self
            .by_id
            .binary_search_by(|&row| self.id_bytes(row).cmp(id.as_bytes()))
            .ok()?;
        self.session(*self.by_id.get(at)? as usize)
    }

    /// The session of one row.
    fn session(&self, row: usize) -> Option<Session> {
        let r = self.rows.get(row)?;
        Some(Session {
            header: SessionHeader {
                version: r.version,
                id: self.str(r.id).to_string(),
                created_at: r.created_at,
                cwd: self.cwds.get(r.cwd as usize).map(|c| c.text.to_string()),
                label: r.label.map(|s| self.str(s).to_string()),
            },
            locator: Locator {
                store: r.store as usize,
                format: self.formats.get(r.format as usize).copied().unwrap_or(""),
                name: Arc::from(bytes(&self.text, r.name)),
            },
            title: r.title.map(|s| self.str(s).to_string()),
            capacity: r.capacity,
            unreadable: r.unreadable.map(|s| self.str(s).to_string()),
            skipped_lines: r.skipped_lines,
        })
    }

    fn keys_of(&self, row: usize) -> &[u8] {
        let end = self.key_ends.get(row).copied().unwrap_or(0) as usize;
        let start = match row.checked_sub(1) {
            Some(prev) => self.key_ends.get(prev).copied().unwrap_or(0) as usize,
            None => 0,
        };
        self.keys.get(start..end).unwrap_or_default()
    }

    /// The row holding byte `at` of the keys.
    fn row_at(&self, at: usize) -> usize {
        self.key_ends.partition_point(|&end| end as usize <= at)
    }

    /// The first `limit + 1` sessions the core would list for this query,
    /// in rank order.
    pub fn preselect(&self, target: Target<'_>, query: &str, limit: usize) -> Vec<Session> {
        let needle = query.to_lowercase();
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let split = needle.as_bytes().contains(&SEPARATOR);
        // Each distinct cwd is matched once.
        let cwd_hits: Vec<bool> = self
            .cwds
            .iter()
            .map(|c| c.lower.contains(&needle))
            .collect();
        let row_matches = |row: usize| -> bool {
            if needle.is_empty() {
                return true;
            }
            let Some(r) = self.rows.get(row) else {
                return false;
            };
            if cwd_hits.get(r.cwd as usize).copied().unwrap_or(false) {
                return true;
            }
            if split {
                // The keys could match across fields: test each field.
                return [Some(r.id), r.title, r.label]
                    .into_iter()
                    .flatten()
                    .any(|s| self.str(s).to_lowercase().contains(&needle));
            }
            finder.find(self.keys_of(row)).is_some()
        };
        let is_self = |row: usize| {
            target
                .session_id
                .is_some_and(|id| self.rows.get(row).is_some_and(|r| self.str(r.id) == id))
        };
        let wanted = limit.saturating_add(1);
        let target_cwd = target
            .cwd
            .and_then(|t| self.cwds.iter().position(|c| &*c.text == t));

        // Rank 0, same cwd: only that cwd's rows.
        let mut picked: Vec<usize> = Vec::new();
        if let Some(cwd) = target_cwd.and_then(|c| self.cwds.get(c)) {
            for &row in &cwd.rows {
                let row = row as usize;
                if row_matches(row) && !is_self(row) {
                    picked.push(row);
                    if picked.len() >= wanted {
                        return self.sessions_of(&picked);
                    }
                }
            }
        }
        // Ranks 1 (no cwd) and 2 (another cwd), in one pass over the rows
        // that match: every row when the query is empty or a cwd matches
        // it, else the rows whose keys hold it (found in one pass).
        let room = wanted - picked.len();
        let mut no_cwd: Vec<usize> = Vec::new();
        let mut other: Vec<usize> = Vec::new();
        let mut take = |row: usize| -> bool {
            let Some(r) = self.rows.get(row) else {
                return false;
            };
            let list = match r.cwd {
                NO_CWD => &mut no_cwd,
                c if Some(c as usize) == target_cwd => return false,
                _ => &mut other,
            };
            if list.len() < room && !is_self(row) {
                list.push(row);
            }
            // Once `room` rows without a cwd are found, nothing after them
            // can make the cut.
            no_cwd.len() >= room
        };
        let cwd_hit = cwd_hits
            .iter()
            .enumerate()
            .any(|(i, &hit)| hit && Some(i) != target_cwd);
        if needle.is_empty() || cwd_hit || split {
            for row in 0..self.rows.len() {
                if row_matches(row) && take(row) {
                    break;
                }
            }
        } else {
            let mut from = 0;
            while let Some(found) = self.keys.get(from..).and_then(|k| finder.find(k)) {
                let row = self.row_at(from + found);
                if take(row) {
                    break;
                }
                // Go on after this row's keys.
                from = self.key_ends.get(row).map_or(usize::MAX, |&e| e as usize);
            }
        }
        picked.extend(no_cwd);
        picked.extend(other);
        picked.truncate(wanted);
        self.sessions_of(&picked)
    }

    fn sessions_of(&self, rows: &[usize]) -> Vec<Session> {
        rows.iter().filter_map(|&row| self.session(row)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Locator, SessionHeader as Header};
    use crate::reference::candidates::candidates;

    fn session(
        id: &str,
        created_at: u64,
        cwd: Option<&str>,
        title: Option<&str>,
        label: Option<&str>,
    ) -> Session {
        Session {
            header: Header {
                version: 1,
                id: id.to_string(),
                created_at,
                cwd: cwd.map(String::from),
                label: label.map(String::from),
            },
            locator: Locator {
                store: 0,
                format: "hydra",
                name: format!("{id}.jsonl").into_bytes().into(),
            },
            title: title.map(String::from),
            capacity: None,
            unreadable: None,
            skipped_lines: 0,
        }
    }

    fn table(sessions: &[Session]) -> Table {
        let mut builder = Builder::default();
        for s in sessions {
            builder.push(s.clone());
        }
        builder.finish()
    }

    /// Pre-selection then the core equals the core on every session.
    #[test]
    fn preselection_changes_nothing() {
        let cwds = [Some("/a"), Some("/b"), None, Some("/A")];
        let titles = [None, Some("Tax Rounding"), Some("ΣΊΣΥΦΟΣ"), Some("cart")];
        let mut sessions = Vec::new();
        for i in 0..60u64 {
            let id = format!("s{}", i % 23);
            let label = (i % 5 == 0).then_some("sub-Agent");
            sessions.push(session(
                &format!("{id}-{i}"),
                i % 7,
                cwds[(i % 4) as usize],
                titles[(i % 3) as usize],
                label,
            ));
        }
        sessions.push(session("nul\0id", 3, Some("/b\0c"), Some("x\0y"), None));
        let search = table(&sessions);
        for query in [
            "",
            "s1",
            "TAX",
            "σίσυφος",
            "/a",
            "/",
            "agent",
            "zzz",
            "-1",
            "1\0/",
            "\0",
            "x\0y",
            "b\0c",
        ] {
            for cwd in [None, Some("/a"), Some("/A"), Some("/zz")] {
                for self_id in [None, Some("s1-1"), Some("s2-2")] {
                    for limit in [1usize, 2, 5, 17, 60, 1000] {
                        let target = Target {
                            session_id: self_id,
                            cwd,
                        };
                        let whole = candidates(&sessions, target, query, limit as u64).unwrap();
                        let subset = search.preselect(target, query, limit);
                        let fast = candidates(&subset, target, query, limit as u64).unwrap();
                        assert_eq!(fast, whole, "{query:?} {cwd:?} {self_id:?} {limit}");
                    }
                }
            }
        }
    }

    /// A session comes back from the table as it went in.
    #[test]
    fn sessions_round_trip() {
        let mut with_all = session("b", 5, Some("/w"), Some("Title"), Some("Label"));
        with_all.capacity = Some(200_000);
        with_all.unreadable = Some("line 3: bad".into());
        with_all.skipped_lines = 4;
        with_all.locator.store = 2;
        with_all.locator.format = "codex";
        let sessions = vec![
            session("a", 1, None, None, None),
            with_all,
            session("c", 9, Some("/w"), None, None),
        ];
        let search = table(&sessions);
        assert_eq!(search.len(), 3);
        for s in &sessions {
            assert_eq!(search.get(s.id()).as_ref(), Some(s));
        }
        assert_eq!(search.get("d"), None);
    }
}
