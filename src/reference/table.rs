//! The one session table and the one ranking rule of reference.md §7.
//!
//! Every face ranks here: the CLI's `candidates`, the language server's
//! completion and custom requests, the MCP server's listing. The rule is
//! spelt once, in three small functions: [`within_rank`] (newest
//! `createdAt` first, ties by id bytes), [`workspace_rank`] (same cwd, then
//! no cwd, then the rest) and [`searched_fields`] (what a query is matched
//! against besides the cwd). The table is an index laid out for that rule:
//!
//! - a session is one fixed-size row, its strings in one buffer; rows are
//!   sorted by [`within_rank`] once, when the table is built, so a row's
//!   number is its place within its workspace rank;
//! - each distinct cwd is stored once with its rows (in order), so the
//!   workspace relation of a query's target is one look-up, and the query
//!   is matched against each distinct cwd once;
//! - the lower-cased searched fields of every row sit in one contiguous
//!   buffer in row order, so "which rows hold the query" is one `memmem`
//!   pass over bytes, without an allocation per session.
//!
//! A query takes the first `limit + 1` matches of each rank in turn (same
//! cwd, no cwd, other cwds), stopping as soon as `limit + 1` are found:
//! nothing is sorted per query, and a [`Candidate`] is built only for the
//! `limit` rows that are returned.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use memchr::memmem::Finder;

use super::candidates::{check_limit, mention_of, Candidate, Candidates, Target};
use super::ReferenceError;
use crate::model::{Locator, Session, SessionHeader, SessionKey};

/// Ends each searched field in the keys (a query holding it is checked
/// field by field, so it can never match across two fields).
const SEPARATOR: u8 = 0;
/// The cwd number of a session without one.
const NO_CWD: u32 = u32::MAX;
/// A subset of rows at most this fraction of the table is matched row by
/// row; a larger one is found through one pass over all keys.
const SMALL_SUBSET_DIVISOR: usize = 16;

/// The order within one workspace rank: newest `createdAt` first, ties by
/// id as UTF-8 bytes (a smaller key is listed first).
pub fn within_rank(created_at: u64, id: &str) -> (Reverse<u64>, &[u8]) {
    (Reverse(created_at), id.as_bytes())
}

/// The workspace rank of a session's cwd for a target cwd: 0, the same cwd
/// (both known, equal as exact strings); 1, no cwd; 2, another cwd.
pub fn workspace_rank(cwd: Option<&str>, target_cwd: Option<&str>) -> u8 {
    match (cwd, target_cwd) {
        (Some(c), Some(t)) if c == t => 0,
        (None, _) => 1,
        _ => 2,
    }
}

/// The fields a query is matched against besides the cwd: the id, the
/// title (the label is the title, else the id) and `displayTitle`.
pub fn searched_fields<'k>(key: &SessionKey<'k>) -> [Option<&'k str>; 3] {
    [Some(key.id), key.title, key.label]
}

/// The full order of the rule for one session (smaller is listed first).
pub fn order_key<'k>(
    key: &SessionKey<'k>,
    target_cwd: Option<&str>,
) -> (u8, Reverse<u64>, &'k [u8]) {
    let (newest, id) = within_rank(key.created_at, key.id);
    (workspace_rank(key.cwd, target_cwd), newest, id)
}

/// Whether a session matches the query (`needle`, already lower-cased).
/// Message bodies are never searched.
pub fn key_matches(key: &SessionKey<'_>, needle: &str) -> bool {
    needle.is_empty()
        || key.cwd.is_some_and(|cwd| contains_lowercased(cwd, needle))
        || searched_fields(key)
            .into_iter()
            .flatten()
            .any(|field| contains_lowercased(field, needle))
}

/// Whether `haystack.to_lowercase()` contains `needle` (already lower-cased).
/// ASCII haystacks, the common case, are compared without allocating: their
/// lower case is ASCII, so a needle with other characters cannot match.
pub fn contains_lowercased(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if !haystack.is_ascii() {
        return haystack.to_lowercase().contains(needle);
    }
    if !needle.is_ascii() || needle.len() > haystack.len() {
        return false;
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

/// A string in [`SessionTable::text`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

/// An optional [`Span`] in the room of one (an `Option` of it was 12
/// bytes, and a row holds three): a span never starts at `u32::MAX`,
/// since the text stays below 4 GiB ([`push_text`]).
#[derive(Debug, Clone, Copy)]
struct MaybeSpan(Span);

impl MaybeSpan {
    const NONE: MaybeSpan = MaybeSpan(Span {
        start: u32::MAX,
        len: 0,
    });

    fn get(self) -> Option<Span> {
        (self.0.start != u32::MAX).then_some(self.0)
    }
}

/// One session, without its strings: 88 bytes, 100,000 of them in a
/// table (and two tables while a view is built beside the one before).
#[derive(Debug)]
struct Row {
    created_at: u64,
    version: u64,
    /// The capacity, when [`Row::HAS_CAPACITY`] is among the flags.
    capacity: u64,
    skipped_lines: u64,
    /// [`Session::stamp`].
    stamp: u64,
    id: Span,
    title: MaybeSpan,
    /// The header's display title.
    label: MaybeSpan,
    /// The locator's name (bytes, not always UTF-8).
    name: Span,
    /// Why the log cannot be read, when it cannot.
    unreadable: MaybeSpan,
    store: u32,
    format: u8,
    flags: u8,
}

impl Row {
    const HAS_CAPACITY: u8 = 1;

    fn capacity(&self) -> Option<u64> {
        (self.flags & Row::HAS_CAPACITY != 0).then_some(self.capacity)
    }
}

/// One distinct cwd.
#[derive(Debug)]
struct Cwd {
    text: Box<str>,
    lower: Box<str>,
    /// Its sessions' rows, in order.
    rows: Vec<u32>,
}

/// The sessions of a store, sorted by [`within_rank`].
#[derive(Debug, Default)]
pub struct SessionTable {
    rows: Vec<Row>,
    /// Each row's cwd number ([`NO_CWD`] for none), apart from the rows so
    /// that a scan by cwd touches 4 bytes a row.
    row_cwds: Vec<u32>,
    /// Every row's id, title, display title, name and read failure.
    text: Vec<u8>,
    /// Per row, in row order: its lower-cased [`searched_fields`], each
    /// ended by [`SEPARATOR`].
    keys: Vec<u8>,
    /// Where each row's keys end (they start where the previous row's end).
    key_ends: Vec<u32>,
    cwds: Vec<Cwd>,
    /// Cwd numbers by cwd text.
    cwds_by_text: Vec<u32>,
    /// The rows without a cwd, in order.
    no_cwd: Vec<u32>,
    /// Rows by id bytes.
    by_id: Vec<u32>,
    formats: Vec<&'static str>,
}

/// Gathers sessions into a [`SessionTable`], one at a time (a large store
/// is never held twice).
#[derive(Default)]
pub struct TableBuilder {
    table: SessionTable,
    cwd_numbers: HashMap<String, u32>,
}

impl TableBuilder {
    /// Adds one session. A session whose strings would not fit the table's
    /// 4 GiB of text is left out.
    pub fn push(&mut self, session: Session) {
        let table = &mut self.table;
        let mark = table.text.len();
        let text = &mut table.text;
        let spans = (|| {
            Some((
                push_text(text, session.header.id.as_bytes())?,
                push_optional(text, session.title.as_deref())?,
                push_optional(text, session.header.label.as_deref())?,
                push_text(text, &session.locator.name)?,
                push_optional(text, session.unreadable.as_deref())?,
            ))
        })();
        let Some((id, title, label, name, unreadable)) = spans else {
            table.text.truncate(mark);
            return;
        };
        let cwd = match session.header.cwd {
            None => NO_CWD,
            Some(cwd) => match self.cwd_numbers.get(&cwd) {
                Some(&n) => n,
                None => {
                    let Ok(n) = u32::try_from(table.cwds.len()) else {
                        table.text.truncate(mark);
                        return;
                    };
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
        table.rows.push(Row {
            created_at: session.header.created_at,
            version: session.header.version,
            capacity: session.capacity.unwrap_or(0),
            skipped_lines: session.skipped_lines,
            stamp: session.stamp,
            id,
            title,
            label,
            name,
            unreadable,
            store: u32::try_from(session.locator.store).unwrap_or(u32::MAX),
            format: u8::try_from(format).unwrap_or(u8::MAX),
            flags: if session.capacity.is_some() {
                Row::HAS_CAPACITY
            } else {
                0
            },
        });
        table.row_cwds.push(cwd);
    }

    /// Sorts the rows by [`within_rank`] and builds the search keys.
    pub fn finish(self) -> SessionTable {
        let TableBuilder { table: built, .. } = self;
        let SessionTable {
            mut rows,
            mut row_cwds,
            text,
            mut cwds,
            formats,
            ..
        } = built;
        // Stable, so sessions sharing an id (a slice given to
        // `candidates`, not a store) keep their order.
        let mut order: Vec<u32> = (0..rows.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let key = |r: u32| {
                let row = rows.get(r as usize);
                let created = row.map_or(0, |r| r.created_at);
                let id = row.map_or("", |r| text_str(&text, r.id));
                within_rank(created, id)
            };
            key(a).cmp(&key(b))
        });
        // Sorted where they are: a copy of the rows beside them was 11 MiB
        // more at 100,000 sessions, while the view before still holds its
        // own (issue 29 item 6). The builder's room beyond them goes back.
        row_cwds.resize(rows.len(), NO_CWD);
        permute(&mut order, |a, b| {
            rows.swap(a, b);
            row_cwds.swap(a, b);
        });
        rows.shrink_to_fit();
        row_cwds.shrink_to_fit();
        let mut table = SessionTable {
            rows,
            row_cwds,
            text,
            formats,
            ..SessionTable::default()
        };

        let key_bytes: usize = table
            .rows
            .iter()
            .map(|r| {
                [Some(r.id), r.title.get(), r.label.get()]
                    .into_iter()
                    .flatten()
                    .map(|s| s.len as usize + 1)
                    .sum::<usize>()
            })
            .sum();
        table.keys.reserve_exact(key_bytes);
        table.key_ends.reserve_exact(table.rows.len());
        for (i, row) in table.rows.iter().enumerate() {
            let key = row_key(&table.text, row, None);
            for field in searched_fields(&key).into_iter().flatten() {
                push_lower(&mut table.keys, field);
                table.keys.push(SEPARATOR);
            }
            table.key_ends.push(table.keys.len() as u32);
            let cwd = table.row_cwds.get(i).copied().unwrap_or(NO_CWD);
            match cwds.get_mut(cwd as usize) {
                Some(c) => c.rows.push(i as u32),
                None => table.no_cwd.push(i as u32),
            }
        }
        for cwd in &mut cwds {
            cwd.rows.shrink_to_fit();
        }
        let mut by_text: Vec<u32> = (0..cwds.len() as u32).collect();
        by_text.sort_by(|&a, &b| {
            let text = |c: u32| cwds.get(c as usize).map_or("", |c| &*c.text);
            text(a).cmp(text(b))
        });
        table.cwds = cwds;
        table.cwds_by_text = by_text;
        let mut by_id: Vec<u32> = (0..table.rows.len() as u32).collect();
        by_id.sort_by(|&a, &b| table.id_bytes(a).cmp(table.id_bytes(b)));
        table.by_id = by_id;
        table.text.shrink_to_fit();
        table
    }
}

/// Puts what is at `order[i]` at `i` for every `i`, in place, through
/// `swap` (each cycle of the permutation followed once); `order` is left
/// as the identity. An `order` that is not a permutation of its places
/// moves nothing out of range.
fn permute(order: &mut [u32], mut swap: impl FnMut(usize, usize)) {
    for start in 0..order.len() {
        let mut at = start;
        while let Some(&from) = order.get(at) {
            let from = from as usize;
            if let Some(slot) = order.get_mut(at) {
                *slot = at as u32;
            }
            if from == start || from == at || from >= order.len() {
                break;
            }
            swap(at, from);
            at = from;
        }
    }
}

/// Lists, filters and ranks the sessions (through a [`SessionTable`]; the faces
/// keep a table or a [`super::preselect::Preselect`] instead).
/// Message bodies are never searched.
pub fn candidates(
    sessions: &[Session],
    target: Target<'_>,
    query: &str,
    limit: u64,
) -> Result<Candidates, ReferenceError> {
    check_limit(limit)?;
    let table: SessionTable = sessions.iter().cloned().collect();
    table.candidates(target, query, limit)
}

impl FromIterator<Session> for SessionTable {
    fn from_iter<I: IntoIterator<Item = Session>>(sessions: I) -> Self {
        let mut builder = TableBuilder::default();
        for session in sessions {
            builder.push(session);
        }
        builder.finish()
    }
}

/// Appends `s` to the text, if it still fits below 4 GiB (so that no
/// span starts at `u32::MAX`, [`MaybeSpan::NONE`]).
fn push_text(text: &mut Vec<u8>, s: &[u8]) -> Option<Span> {
    let start = u32::try_from(text.len()).ok()?;
    let len = u32::try_from(s.len()).ok()?;
    start.checked_add(len).filter(|&end| end < u32::MAX)?;
    text.extend_from_slice(s);
    Some(Span { start, len })
}

/// [`push_text`] of an optional string: `None` only when it does not fit.
fn push_optional(text: &mut Vec<u8>, s: Option<&str>) -> Option<MaybeSpan> {
    match s {
        Some(s) => push_text(text, s.as_bytes()).map(MaybeSpan),
        None => Some(MaybeSpan::NONE),
    }
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

/// The key of a row (its cwd as given).
fn row_key<'t>(text: &'t [u8], row: &Row, cwd: Option<&'t str>) -> SessionKey<'t> {
    SessionKey {
        id: text_str(text, row.id),
        created_at: row.created_at,
        cwd,
        label: row.label.get().map(|s| text_str(text, s)),
        title: row.title.get().map(|s| text_str(text, s)),
    }
}

/// One ranked session of a [`SessionTable`].
#[derive(Debug, Clone, Copy)]
pub struct Ranked<'t> {
    table: &'t SessionTable,
    row: u32,
    same_workspace: bool,
}

impl Ranked<'_> {
    /// Its candidate (reference.md §7).
    pub fn candidate(&self) -> Candidate {
        let table = self.table;
        let Some(row) = table.rows.get(self.row as usize) else {
            return Candidate::default();
        };
        let key = row_key(&table.text, row, table.cwd_text(self.row));
        Candidate {
            session_id: key.id.to_string(),
            label: key.candidate_label().to_string(),
            display_title: key.label.map(str::to_string),
            cwd: key.cwd.map(str::to_string),
            same_workspace: self.same_workspace,
            created_at: key.created_at,
            mention: mention_of(key.id, key.label, key.candidate_label()),
            format: table.format_of(self.row),
        }
    }

    /// The format of its log.
    pub fn format(&self) -> &'static str {
        self.table.format_of(self.row)
    }
}

/// What one query is matched with.
struct Query {
    needle: String,
    /// The needle holds a [`SEPARATOR`]: the keys are checked field by
    /// field.
    split: bool,
}

impl SessionTable {
    /// Number of sessions.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn id_bytes(&self, row: u32) -> &[u8] {
        self.rows
            .get(row as usize)
            .map_or(&[][..], |r| bytes(&self.text, r.id))
    }

    fn str(&self, span: Span) -> &str {
        text_str(&self.text, span)
    }

    fn cwd_of(&self, row: u32) -> u32 {
        self.row_cwds.get(row as usize).copied().unwrap_or(NO_CWD)
    }

    fn cwd_text(&self, row: u32) -> Option<&str> {
        self.cwds.get(self.cwd_of(row) as usize).map(|c| &*c.text)
    }

    fn format_of(&self, row: u32) -> &'static str {
        self.rows
            .get(row as usize)
            .and_then(|r| self.formats.get(r.format as usize))
            .copied()
            .unwrap_or("")
    }

    /// The session with this id.
    pub fn get(&self, id: &str) -> Option<Session> {
        let at = self
            .by_id
            .binary_search_by(|&row| self.id_bytes(row).cmp(id.as_bytes()))
            .ok()?;
        self.session(*self.by_id.get(at)?)
    }

    /// Every session, in the table's order.
    pub fn sessions(&self) -> impl Iterator<Item = Session> + '_ {
        (0..self.rows.len()).filter_map(|row| self.session(u32::try_from(row).ok()?))
    }

    /// The session of one row.
    fn session(&self, row: u32) -> Option<Session> {
        let r = self.rows.get(row as usize)?;
        Some(Session {
            header: SessionHeader {
                version: r.version,
                id: self.str(r.id).to_string(),
                created_at: r.created_at,
                cwd: self.cwd_text(row).map(str::to_string),
                label: r.label.get().map(|s| self.str(s).to_string()),
            },
            locator: Locator {
                store: r.store as usize,
                format: self.format_of(row),
                name: Arc::from(bytes(&self.text, r.name)),
            },
            title: r.title.get().map(|s| self.str(s).to_string()),
            capacity: r.capacity(),
            unreadable: r.unreadable.get().map(|s| self.str(s).to_string()),
            skipped_lines: r.skipped_lines,
            stamp: r.stamp,
        })
    }

    /// The candidates of reference.md §7: every session but the target's
    /// that matches `query`, ranked, the first `limit` of them.
    pub fn candidates(
        &self,
        target: Target<'_>,
        query: &str,
        limit: u64,
    ) -> Result<Candidates, ReferenceError> {
        let (ranked, incomplete) = self.rank(target, query, limit)?;
        Ok(Candidates {
            items: ranked.iter().map(Ranked::candidate).collect(),
            incomplete,
        })
    }

    /// The ranked sessions [`Self::candidates`] lists, and whether the
    /// limit cut the list.
    pub fn rank(
        &self,
        target: Target<'_>,
        query: &str,
        limit: u64,
    ) -> Result<(Vec<Ranked<'_>>, bool), ReferenceError> {
        let limit = check_limit(limit)?;
        let needle = query.to_lowercase();
        let query = Query {
            split: needle.as_bytes().contains(&SEPARATOR),
            needle,
        };
        let finder = Finder::new(query.needle.as_bytes());
        // The workspace relation of this target, and each distinct cwd
        // matched once.
        let target_cwd = target.cwd.and_then(|t| {
            self.cwds_by_text
                .binary_search_by(|&c| self.cwds.get(c as usize).map_or("", |c| &*c.text).cmp(t))
                .ok()
                .and_then(|at| self.cwds_by_text.get(at).copied())
        });
        let cwd_hits: Vec<bool> = self
            .cwds
            .iter()
            .map(|c| query.needle.is_empty() || finder.find(c.lower.as_bytes()).is_some())
            .collect();
        let mut pick = Pick {
            table: self,
            query: &query,
            finder: &finder,
            self_id: target.session_id,
            wanted: limit.saturating_add(1),
            rows: Vec::new(),
        };
        if let Some(cwd) = target_cwd {
            let all = cwd_hits.get(cwd as usize).copied().unwrap_or(false);
            if let Some(c) = self.cwds.get(cwd as usize) {
                pick.subset(&c.rows, cwd, all);
            }
        }
        let same = pick.rows.len();
        pick.subset(&self.no_cwd, NO_CWD, false);
        pick.other_cwds(target_cwd, &cwd_hits);
        let incomplete = pick.rows.len() > limit;
        let rows = pick.rows;
        Ok((
            rows.into_iter()
                .take(limit)
                .enumerate()
                .map(|(i, row)| Ranked {
                    table: self,
                    row,
                    same_workspace: i < same,
                })
                .collect(),
            incomplete,
        ))
    }

    fn keys_of(&self, row: u32) -> &[u8] {
        let row = row as usize;
        let end = self.key_ends.get(row).copied().unwrap_or(0) as usize;
        let start = match row.checked_sub(1) {
            Some(prev) => self.key_ends.get(prev).copied().unwrap_or(0) as usize,
            None => 0,
        };
        self.keys.get(start..end).unwrap_or_default()
    }

    /// The row holding byte `at` of the keys.
    fn row_at(&self, at: usize) -> u32 {
        self.key_ends.partition_point(|&end| end as usize <= at) as u32
    }

    /// Whether the searched fields of a row (not its cwd) hold the query.
    fn fields_match(&self, row: u32, query: &Query, finder: &Finder<'_>) -> bool {
        if query.needle.is_empty() {
            return true;
        }
        if !query.split {
            return finder.find(self.keys_of(row)).is_some();
        }
        // The keys could match across fields: test each field.
        self.rows.get(row as usize).is_some_and(|r| {
            let key = row_key(&self.text, r, None);
            searched_fields(&key)
                .into_iter()
                .flatten()
                .any(|f| contains_lowercased(f, &query.needle))
        })
    }

    /// Where the keys of `row` start (the end of the keys for a row past
    /// the last).
    fn keys_start(&self, row: u32) -> usize {
        match (row as usize).checked_sub(1) {
            None => 0,
            Some(prev) => self
                .key_ends
                .get(prev)
                .map_or(self.keys.len(), |&e| e as usize),
        }
    }
}

/// The rows whose searched fields hold the query, found in order and
/// lazily: a search never goes past the row the caller needs.
#[derive(Default)]
struct FieldHits {
    /// Keys before this byte (or, for a split query, rows before this
    /// row) have been searched.
    next: usize,
}

impl FieldHits {
    /// The next matching row before row `bound`.
    fn next_before(
        &mut self,
        table: &SessionTable,
        query: &Query,
        finder: &Finder<'_>,
        bound: u32,
    ) -> Option<u32> {
        if query.split {
            let rows = u32::try_from(self.next).unwrap_or(u32::MAX)..bound;
            for row in rows {
                self.next = row as usize + 1;
                if table.fields_match(row, query, finder) {
                    return Some(row);
                }
            }
            return None;
        }
        let end = table.keys_start(bound);
        let found = table
            .keys
            .get(self.next..end)
            .and_then(|keys| finder.find(keys));
        let Some(found) = found else {
            self.next = self.next.max(end);
            return None;
        };
        let row = table.row_at(self.next + found);
        // Go on after this row's keys.
        self.next = table
            .key_ends
            .get(row as usize)
            .map_or(usize::MAX, |&e| e as usize);
        Some(row)
    }
}

/// The rows picked so far for one query, in rank order.
struct Pick<'q> {
    table: &'q SessionTable,
    query: &'q Query,
    finder: &'q Finder<'q>,
    self_id: Option<&'q str>,
    /// `limit + 1`: one more tells whether the list is incomplete.
    wanted: usize,
    rows: Vec<u32>,
}

impl Pick<'_> {
    fn full(&self) -> bool {
        self.rows.len() >= self.wanted
    }

    /// Takes a matching row unless it is the target's own session; whether
    /// the pick is full.
    fn take(&mut self, row: u32) -> bool {
        let is_self = self
            .self_id
            .is_some_and(|id| self.table.id_bytes(row) == id.as_bytes());
        if !is_self {
            self.rows.push(row);
        }
        self.full()
    }

    /// Takes the matches among `subset` (the rows of cwd `cwd`, in order);
    /// `all` when its cwd holds the query, so every row matches.
    fn subset(&mut self, subset: &[u32], cwd: u32, all: bool) {
        if self.full() || subset.is_empty() {
            return;
        }
        let table = self.table;
        let all = all || self.query.needle.is_empty();
        if all || subset.len().saturating_mul(SMALL_SUBSET_DIVISOR) <= table.len() {
            for &row in subset {
                if (all || table.fields_match(row, self.query, self.finder)) && self.take(row) {
                    return;
                }
            }
            return;
        }
        let mut hits = FieldHits::default();
        let end = table.len() as u32;
        while let Some(row) = hits.next_before(table, self.query, self.finder, end) {
            if table.cwd_of(row) == cwd && self.take(row) {
                return;
            }
        }
    }

    /// Takes the matches with a cwd other than the target's: the rows of
    /// every cwd that holds the query merged with the rows whose fields
    /// do, in order.
    fn other_cwds(&mut self, target_cwd: Option<u32>, cwd_hits: &[bool]) {
        if self.full() {
            return;
        }
        let table = self.table;
        let is_other = |cwd: u32| cwd != NO_CWD && Some(cwd) != target_cwd;
        // The next row of each cwd holding the query, smallest first.
        let mut by_cwd: BinaryHeap<Reverse<(u32, u32, usize)>> = cwd_hits
            .iter()
            .enumerate()
            .filter(|&(c, &hit)| hit && is_other(c as u32))
            .filter_map(|(c, _)| {
                let first = *table.cwds.get(c)?.rows.first()?;
                Some(Reverse((first, c as u32, 0)))
            })
            .collect();
        let hit = |cwd: u32| cwd_hits.get(cwd as usize).copied().unwrap_or(false);
        // With an empty query every cwd holds it: the fields add nothing.
        let mut hits = (!self.query.needle.is_empty()).then(FieldHits::default);
        let mut by_fields: Option<u32> = None;
        loop {
            let from_cwd = by_cwd.peek().map(|Reverse((row, _, _))| *row);
            if by_fields.is_none() {
                if let Some(hits) = &mut hits {
                    let bound = from_cwd.unwrap_or(table.len() as u32);
                    by_fields = std::iter::from_fn(|| {
                        hits.next_before(table, self.query, self.finder, bound)
                    })
                    .find(|&row| {
                        let cwd = table.cwd_of(row);
                        is_other(cwd) && !hit(cwd)
                    });
                }
            }
            let row = match (from_cwd, by_fields) {
                (_, Some(row)) => {
                    by_fields = None;
                    row
                }
                (Some(_), None) => {
                    let Some(Reverse((row, cwd, at))) = by_cwd.pop() else {
                        return;
                    };
                    let next = table
                        .cwds
                        .get(cwd as usize)
                        .and_then(|c| c.rows.get(at + 1));
                    if let Some(&next) = next {
                        by_cwd.push(Reverse((next, cwd, at + 1)));
                    }
                    row
                }
                (None, None) => return,
            };
            if self.take(row) {
                return;
            }
        }
    }
}

/// The table's rows as sessions, each made when it is asked for: the
/// search index's walk over every session copies none of them whole.
impl crate::model::SessionList for SessionTable {
    fn count(&self) -> usize {
        self.len()
    }

    fn at(&self, place: usize) -> Option<std::borrow::Cow<'_, Session>> {
        self.session(u32::try_from(place).ok()?)
            .map(std::borrow::Cow::Owned)
    }
}

#[cfg(test)]
mod tests;
