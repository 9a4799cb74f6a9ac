//! What a search needs of each document it ranks, read from the index's
//! columns: its session id, and for a message its turn, role and `seq`
//! (where its snippet is read from). Never from the stored documents: each
//! of those reads decompresses a block of the doc store, and a search
//! ranks 200 documents or more, spread over the whole store; at 100,000
//! sessions the pages of the store those reads touched stayed mapped into
//! the language server, 41 MiB of them after a thousand completions
//! (issue 29 item 6, docs/performance.md).

use std::collections::HashMap;

use tantivy::columnar::{Column, StrColumn};
use tantivy::{DocAddress, Searcher};

use super::schema::Fields;

/// Where a message sits (a session document: turn 0, role `title`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub turn: u64,
    pub role: String,
    /// The event's `seq` in the log (0 for a session document).
    pub seq: u64,
}

/// What a hit shows of its session, from its session document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFacts {
    pub created_at: u64,
    /// The log's version when it was indexed.
    pub version: u64,
    pub title: Option<String>,
    pub display_title: Option<String>,
    pub cwd: Option<String>,
    pub agent: String,
}

/// One segment's columns.
struct Segment {
    session: Option<StrColumn>,
    role: Option<StrColumn>,
    turn: Option<Column<u64>>,
    seq: Option<Column<u64>>,
    time: Option<Column<u64>>,
    version: Option<Column<u64>>,
    title: Option<StrColumn>,
    display_title: Option<StrColumn>,
    cwd: Option<StrColumn>,
    agent: Option<StrColumn>,
}

/// The columns of the segments asked about so far, each opened once.
pub struct Columns<'a> {
    searcher: &'a Searcher,
    fields: &'a Fields,
    segments: HashMap<u32, Segment>,
    text: String,
}

impl<'a> Columns<'a> {
    pub fn new(searcher: &'a Searcher, fields: &'a Fields) -> Self {
        Columns {
            searcher,
            fields,
            segments: HashMap::new(),
            text: String::new(),
        }
    }

    fn segment(&mut self, ord: u32) -> &Segment {
        let (searcher, fields) = (self.searcher, self.fields);
        self.segments.entry(ord).or_insert_with(|| {
            let fast = searcher.segment_reader(ord).fast_fields();
            let name = |field| fields.schema.get_field_name(field);
            let text = |field| fast.str(name(field)).ok().flatten();
            let number = |field| fast.column_opt(name(field)).ok().flatten();
            Segment {
                session: text(fields.session),
                role: text(fields.role),
                turn: number(fields.turn),
                seq: number(fields.seq),
                time: number(fields.time),
                version: number(fields.version),
                title: text(fields.title),
                display_title: text(fields.display_title),
                cwd: text(fields.cwd),
                agent: text(fields.agent),
            }
        })
    }

    /// The session id of the document at `address`.
    pub fn session(&mut self, address: DocAddress) -> Option<String> {
        let column = self.segment(address.segment_ord).session.clone()?;
        self.string(&column, address.doc_id)
    }

    /// Where the document at `address` sits.
    pub fn place(&mut self, address: DocAddress) -> Place {
        let doc = address.doc_id;
        let segment = self.segment(address.segment_ord);
        let (turn, seq) = (number(&segment.turn, doc), number(&segment.seq, doc));
        let role = segment.role.clone();
        Place {
            turn,
            role: self.text_of(role, doc).unwrap_or_default(),
            seq,
        }
    }

    /// What the session document at `address` says of its session.
    pub fn session_facts(&mut self, address: DocAddress) -> SessionFacts {
        let doc = address.doc_id;
        let segment = self.segment(address.segment_ord);
        let (created_at, version) = (number(&segment.time, doc), number(&segment.version, doc));
        let columns = [
            segment.title.clone(),
            segment.display_title.clone(),
            segment.cwd.clone(),
            segment.agent.clone(),
        ];
        let [title, display_title, cwd, agent] = columns.map(|c| self.text_of(c, doc));
        SessionFacts {
            created_at,
            version,
            title,
            display_title,
            cwd,
            agent: agent.unwrap_or_default(),
        }
    }

    fn text_of(&mut self, column: Option<StrColumn>, doc: u32) -> Option<String> {
        self.string(&column?, doc)
    }

    fn string(&mut self, column: &StrColumn, doc: u32) -> Option<String> {
        let ord = column.term_ords(doc).next()?;
        self.text.clear();
        column
            .ord_to_str(ord, &mut self.text)
            .ok()?
            .then(|| self.text.clone())
    }
}

/// The first value of `column` for `doc`, 0 when it has none.
fn number(column: &Option<Column<u64>>, doc: u32) -> u64 {
    column.as_ref().and_then(|c| c.first(doc)).unwrap_or(0)
}
