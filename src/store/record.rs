//! One log as the index cache keeps it, and its byte layout.
//!
//! A record is the log's name, stamp, format and scan position, then its
//! payload: what the scan found (header or why it is not a session, title,
//! capacity, skipped lines, failure). A catalog seeded from a cache keeps
//! each payload as bytes in the cache's buffer ([`Cached`]) and decodes it
//! only when asked: a warm `candidates` over 100,000 logs then allocates no
//! strings for the logs it does not list, and a payload written back is
//! copied as it is.
//!
//! Integers are LEB128 varints; strings are a length and UTF-8 bytes;
//! optional strings a 0/1 tag first. Every payload is checked whole when
//! the cache is read ([`decode`]), so a later decode cannot fail.

use std::sync::Arc;

use super::stamp::Stamp;
use crate::formats::{self, HeaderState, LogFormat, ScanMeta};
use crate::model::{SessionHeader, SessionKey};

/// One file as an index cache keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub rel: Arc<[u8]>,
    pub stamp: Stamp,
    pub format: Option<&'static dyn LogFormat>,
    pub consumed: u64,
    pub full: bool,
    /// Whether it held the first session of its id when recorded.
    pub winner: bool,
    pub payload: Payload,
}

/// What a scan found, as values or as the bytes a cache holds.
#[derive(Debug, Clone)]
pub(crate) enum Payload {
    Values(HeaderState, ScanMeta),
    Cached(Cached),
}

/// A payload in a cache's buffer, decoded on demand.
#[derive(Clone)]
pub(crate) struct Cached {
    /// The whole cache file (shared by its records, never copied).
    bytes: Arc<Vec<u8>>,
    start: u32,
    end: u32,
}

impl std::fmt::Debug for Cached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cached")
            .field("start", &self.start)
            .field("end", &self.end)
            .finish()
    }
}

/// The payload's first byte: what the header was.
const PENDING: u8 = 0;
const NOT_A_SESSION: u8 = 1;
const SESSION: u8 = 2;

impl Cached {
    /// The buffer this payload lies in, and its length (for tests of
    /// what is kept alive).
    #[cfg(test)]
    pub fn buffer(&self) -> (*const Vec<u8>, usize) {
        (Arc::as_ptr(&self.bytes), self.bytes.len())
    }

    fn raw(&self) -> &[u8] {
        &self.bytes[self.start as usize..self.end as usize]
    }

    /// The payload with its strings borrowed from the buffer.
    fn view(&self) -> Option<PayloadView<'_>> {
        read_payload(&mut In {
            bytes: self.raw(),
            at: 0,
        })
    }

    /// The session's id, borrowed from the buffer.
    pub fn session_id(&self) -> Option<&str> {
        match self.view()?.header {
            HeaderView::Session { id, .. } => Some(id),
            _ => None,
        }
    }

    // Every payload was checked when the cache was read: the fallbacks
    // below are never taken.

    pub fn header(&self) -> HeaderState {
        self.view()
            .map_or(HeaderState::Pending, |v| v.header.to_owned())
    }

    pub fn meta(&self) -> ScanMeta {
        self.view().map(|v| v.meta()).unwrap_or_default()
    }

    /// The scan's skipped lines, building nothing.
    pub fn skipped_lines(&self) -> u64 {
        self.view().map_or(0, |v| v.skipped_lines)
    }

    /// What ranking and matching need, borrowed from the buffer; the title
    /// only when the scan was `full` (as [`crate::model::Session::title`]).
    pub fn key(&self, full: bool) -> Option<SessionKey<'_>> {
        let view = self.view()?;
        match view.header {
            HeaderView::Session {
                id,
                created_at,
                cwd,
                label,
                ..
            } => Some(SessionKey {
                id,
                created_at,
                cwd,
                label,
                title: view.title.filter(|_| full),
            }),
            _ => None,
        }
    }

    /// The session's header and the scan's metadata, in one pass.
    pub fn session(&self) -> Option<(SessionHeader, ScanMeta)> {
        let view = self.view()?;
        match view.header.to_owned() {
            HeaderState::Session(h) => Some((h, view.meta())),
            _ => None,
        }
    }
}

/// A payload as it lies in a cache's buffer.
struct PayloadView<'a> {
    header: HeaderView<'a>,
    title: Option<&'a str>,
    capacity: Option<u64>,
    skipped_lines: u64,
    failure: Option<&'a str>,
}

enum HeaderView<'a> {
    Pending,
    NotASession(&'a str),
    Session {
        version: u64,
        id: &'a str,
        created_at: u64,
        cwd: Option<&'a str>,
        label: Option<&'a str>,
    },
}

impl HeaderView<'_> {
    fn to_owned(&self) -> HeaderState {
        match *self {
            HeaderView::Pending => HeaderState::Pending,
            HeaderView::NotASession(why) => HeaderState::NotASession(why.to_string()),
            HeaderView::Session {
                version,
                id,
                created_at,
                cwd,
                label,
            } => HeaderState::Session(SessionHeader {
                version,
                id: id.to_string(),
                created_at,
                cwd: cwd.map(str::to_string),
                label: label.map(str::to_string),
            }),
        }
    }
}

impl PayloadView<'_> {
    fn meta(&self) -> ScanMeta {
        ScanMeta {
            title: self.title.map(str::to_string),
            capacity: self.capacity,
            skipped_lines: self.skipped_lines,
            failure: self.failure.map(str::to_string),
        }
    }
}

/// Appends `r` to `out`.
pub(crate) fn encode(out: &mut Out, r: &Record) {
    out.bytes(&r.rel);
    let s = &r.stamp;
    out.u64(s.size);
    out.u64(s.mtime as u64);
    out.u32(s.mtime_nsec);
    out.u64(s.ctime as u64);
    out.u32(s.ctime_nsec);
    out.u64(s.ino);
    out.u64(s.dev);
    out.u64(s.side);
    out.str(r.format.map_or("", |f| f.name()));
    out.u64(r.consumed);
    out.u8(u8::from(r.full));
    out.u8(u8::from(r.winner));
    write_payload(out, &r.payload);
}

fn write_payload(out: &mut Out, payload: &Payload) {
    match payload {
        Payload::Cached(c) => out.0.extend_from_slice(c.raw()),
        Payload::Values(header, meta) => {
            write_header(out, header);
            write_meta(out, meta);
        }
    }
}

fn write_header(out: &mut Out, header: &HeaderState) {
    match header {
        HeaderState::Pending => out.u8(PENDING),
        HeaderState::NotASession(why) => {
            out.u8(NOT_A_SESSION);
            out.str(why);
        }
        HeaderState::Session(h) => {
            out.u8(SESSION);
            let SessionHeader {
                version,
                id,
                created_at,
                cwd,
                label,
            } = h;
            out.u64(*version);
            out.str(id);
            out.u64(*created_at);
            out.opt_str(cwd.as_deref());
            out.opt_str(label.as_deref());
        }
    }
}

fn write_meta(out: &mut Out, meta: &ScanMeta) {
    // Every field, so that a field added to the metadata fails to compile
    // here until the cache keeps it too (then bump the cache's magic).
    let ScanMeta {
        title,
        capacity,
        skipped_lines,
        failure,
    } = meta;
    out.opt_str(title.as_deref());
    match capacity {
        Some(c) => {
            out.u8(1);
            out.u64(*c);
        }
        None => out.u8(0),
    }
    out.u64(*skipped_lines);
    out.opt_str(failure.as_deref());
}

/// Payloads written one after another into one new buffer, each then a
/// [`Cached`] in it: what a scan found, kept as compactly as an index
/// cache keeps it, before any cache is written.
#[derive(Default)]
pub(crate) struct PayloadBuffer {
    out: Out,
    ends: Vec<u32>,
}

impl PayloadBuffer {
    /// Appends one payload; `false` (nothing kept) once the buffer would
    /// pass the 4 GiB a [`Cached`] can point into.
    pub fn push(&mut self, payload: &Payload) -> bool {
        let mark = self.out.0.len();
        write_payload(&mut self.out, payload);
        match u32::try_from(self.out.0.len()) {
            Ok(end) => {
                self.ends.push(end);
                true
            }
            Err(_) => {
                self.out.0.truncate(mark);
                false
            }
        }
    }

    /// Every payload pushed, in order, sharing the buffer.
    pub fn finish(self) -> Vec<Cached> {
        let bytes = Arc::new(self.out.0);
        let mut start = 0;
        self.ends
            .into_iter()
            .map(|end| {
                let cached = Cached {
                    bytes: bytes.clone(),
                    start,
                    end,
                };
                start = end;
                cached
            })
            .collect()
    }
}

/// The records of `body` from `at` on, decoded as they are asked for (no
/// list of them is built); payloads stay in `body`, checked whole. An item
/// is `None` where a record does not decode.
pub(crate) fn decode(body: Arc<Vec<u8>>, at: usize) -> impl Iterator<Item = Option<Record>> {
    let mut at = at;
    std::iter::from_fn(move || {
        if at >= body.len() {
            return None;
        }
        let mut input = In { bytes: &body, at };
        let record = read_record(&mut input, &body);
        // A record that does not decode ends the list (the caller refuses
        // the whole cache).
        at = if record.is_some() {
            input.at
        } else {
            body.len()
        };
        Some(record)
    })
}

fn read_record(input: &mut In<'_>, body: &Arc<Vec<u8>>) -> Option<Record> {
    let rel: Arc<[u8]> = Arc::from(input.bytes()?);
    let stamp = Stamp {
        size: input.u64()?,
        mtime: input.u64()? as i64,
        mtime_nsec: input.u32()?,
        ctime: input.u64()? as i64,
        ctime_nsec: input.u32()?,
        ino: input.u64()?,
        dev: input.u64()?,
        side: input.u64()?,
    };
    let format = match input.str()? {
        "" => None,
        name => Some(formats::by_name(name)?),
    };
    let consumed = input.u64()?;
    let full = input.u8()? != 0;
    let winner = input.u8()? != 0;
    let start = input.at;
    // Checked whole now (UTF-8 included), read again only when asked.
    read_payload(input)?;
    let payload = Cached {
        bytes: body.clone(),
        start: u32::try_from(start).ok()?,
        end: u32::try_from(input.at).ok()?,
    };
    Some(Record {
        rel,
        stamp,
        format,
        consumed,
        full,
        winner,
        payload: Payload::Cached(payload),
    })
}

fn read_payload<'a>(input: &mut In<'a>) -> Option<PayloadView<'a>> {
    let header = match input.u8()? {
        PENDING => HeaderView::Pending,
        NOT_A_SESSION => HeaderView::NotASession(input.str()?),
        SESSION => HeaderView::Session {
            version: input.u64()?,
            id: input.str()?,
            created_at: input.u64()?,
            cwd: input.opt_str()?,
            label: input.opt_str()?,
        },
        _ => return None,
    };
    Some(PayloadView {
        header,
        title: input.opt_str()?,
        capacity: match input.u8()? {
            0 => None,
            1 => Some(input.u64()?),
            _ => return None,
        },
        skipped_lines: input.u64()?,
        failure: input.opt_str()?,
    })
}

/// Bytes being written.
#[derive(Default)]
pub(crate) struct Out(pub Vec<u8>);

impl Out {
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }

    fn u32(&mut self, v: u32) {
        self.u64(u64::from(v));
    }

    /// LEB128: seven bits a byte, low bits first.
    pub fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
}

/// Bytes being read; every read is checked.
pub(crate) struct In<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> In<'a> {
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.u64()?).ok()
    }

    fn u64(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }

    fn str(&mut self) -> Option<&'a str> {
        simdutf8::basic::from_utf8(self.bytes()?).ok()
    }

    fn opt_str(&mut self) -> Option<Option<&'a str>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.str()?)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(header: HeaderState, meta: ScanMeta) -> Record {
        Record {
            rel: Arc::from(&b"d/a.jsonl"[..]),
            stamp: Stamp {
                size: 300,
                mtime: 1_700_000_000,
                mtime_nsec: 5,
                ctime: 1_700_000_001,
                ctime_nsec: 6,
                ino: 42,
                dev: 2049,
                side: 7,
            },
            format: formats::by_name("hydra"),
            consumed: 280,
            full: true,
            winner: true,
            payload: Payload::Values(header, meta),
        }
    }

    fn round_trip(r: &Record) -> Record {
        let mut out = Out(Vec::new());
        encode(&mut out, r);
        let mut all: Vec<_> = decode(Arc::new(out.0), 0).collect();
        assert_eq!(all.len(), 1);
        all.remove(0).expect("decodes")
    }

    #[test]
    fn a_session_comes_back_as_written_and_is_copied_back_verbatim() {
        let header = SessionHeader {
            version: 1,
            id: "s-é".into(),
            created_at: 1_700_000_000_000,
            cwd: Some("/w".into()),
            label: None,
        };
        let meta = ScanMeta {
            title: Some("Title".into()),
            capacity: Some(200_000),
            skipped_lines: 3,
            failure: None,
        };
        let r = record(HeaderState::Session(header.clone()), meta.clone());
        let back = round_trip(&r);
        assert_eq!(
            (back.rel.clone(), back.stamp, back.consumed),
            (r.rel.clone(), r.stamp, 280)
        );
        assert!(back.full && back.winner);
        let Payload::Cached(c) = &back.payload else {
            panic!("a decoded record keeps its payload as bytes")
        };
        assert_eq!(c.session_id(), Some("s-é"));
        assert_eq!(c.header(), HeaderState::Session(header.clone()));
        assert_eq!(c.meta(), meta);
        assert_eq!(c.session(), Some((header.clone(), meta)));
        let key = c.key(true).unwrap();
        assert_eq!(
            (key.id, key.created_at, key.cwd, key.label, key.title),
            ("s-é", header.created_at, Some("/w"), None, Some("Title"))
        );
        assert_eq!(c.key(false).unwrap().title, None);
        // Written back from the cached bytes: the same record.
        let again = round_trip(&back);
        let Payload::Cached(c2) = &again.payload else {
            panic!()
        };
        assert_eq!(c2.raw(), c.raw());
    }

    #[test]
    fn not_sessions_have_no_id_and_keep_their_reason() {
        for header in [HeaderState::Pending, HeaderState::NotASession("why".into())] {
            let back = round_trip(&record(header.clone(), ScanMeta::default()));
            let Payload::Cached(c) = &back.payload else {
                panic!()
            };
            assert_eq!(c.session_id(), None);
            assert_eq!(c.session(), None);
            assert_eq!(c.header(), header);
        }
    }

    #[test]
    fn a_bad_payload_refuses_the_record() {
        let r = record(HeaderState::NotASession("why".into()), ScanMeta::default());
        let mut out = Out(Vec::new());
        encode(&mut out, &r);
        let mut bytes = out.0;
        // The reason's bytes: not UTF-8.
        let at = bytes.len() - 7;
        bytes[at] = 0xff;
        let all: Vec<_> = decode(Arc::new(bytes), 0).collect();
        assert!(matches!(all.as_slice(), [None]), "{all:?}");
    }
}
