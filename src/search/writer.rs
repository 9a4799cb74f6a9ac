//! Bringing the index up to date with a store, from the store's own change
//! detection (each log's stamp, [`SessionReader::stamp`]): an unchanged
//! log costs nothing; a changed one is read, and
//! - when the messages indexed before are still the first ones of its
//!   surface (an append), only the new messages are added;
//! - otherwise (a new checkpoint shadowed some, a branch or `$rewindTo`
//!   rewound, the log was replaced or rewritten) the session is indexed
//!   again;
//!
//! and a session no longer in the store is removed. Commits come every
//! [`COMMIT_EVERY`] changed sessions and at the end, so a crash loses at
//! most the uncommitted tail; readers see only commits.

use std::borrow::Cow;

use tantivy::{IndexWriter, TantivyDocument, Term};

use super::backlog::{self, Backlog, Queued};
use super::error::SearchError;
use super::index::{Indexed, Manifest, SearchIndex};
use super::paged::Pager;
pub use super::report::SyncReport;
use super::session_docs::{Meta, Out, Outcome, SessionDocs, Start, SurfaceHash};
use super::session_terms::SessionTerms;
use super::surface::{FirstPass, FirstRead, Plan, Stream};
use crate::model::{
    Cancelled, Entry, Event, ReadError, ReadSummary, Session, SessionList, SessionReader,
};
use crate::reference::projection::{Message, Projector};

/// Changed sessions between two commits.
const COMMIT_EVERY: usize = 500;

/// The writer's memory budget: tantivy flushes a segment when it is used.
/// It checks between documents, so a document's own terms come on top:
/// [`MAX_MESSAGE_BYTES`] bounds those. 16 MiB, just above tantivy's
/// least (15 MB): the language server builds the index beside its live
/// session index, and both must fit in 80 MiB (issue 29 item 6; with
/// 32 MiB the server peaked at 100 MiB during the build at 10,000
/// sessions, with 16 MiB at 65 MiB, docs/performance.md).
pub const WRITER_BYTES: usize = 16 << 20;

/// The most of one message that is indexed: its first 1 MiB (cut at a
/// character). A 100 MB message once made the writer peak at 1.6 GB;
/// search never finds a word past this point (docs/search.md).
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// Message text read and indexed between two returns of the freed heap
/// to the system ([`crate::heap::give_back_freed`]), at most: a commit
/// returns it too. A session's reads are freed once its documents are
/// queued, and glibc keeps that memory resident: a commit every 500
/// sessions is every 1–10 MB of text at 100,000 sessions of 2–20 KB, but
/// every 50 MB in a store of 100 KB sessions (the prose corpus).
const TRIM_AFTER_BYTES: u64 = 16 << 20;

/// When a sync gives the freed heap back: at each commit, and once
/// [`TRIM_AFTER_BYTES`] of text came since the last time.
#[derive(Debug, Default)]
struct Trims {
    /// The text indexed when it last did.
    at: u64,
}

impl Trims {
    /// Whether to now, after a session (`committed`: a commit followed
    /// it), `text_bytes` indexed so far; counts it as done.
    fn due(&mut self, committed: bool, text_bytes: u64) -> bool {
        let due = committed || text_bytes >= self.at.saturating_add(TRIM_AFTER_BYTES);
        if due {
            self.at = text_bytes;
        }
        due
    }
}

/// How many sessions of `sessions` differ from what the index holds, plus
/// those it holds that are gone: how far behind the index is.
pub fn behind(
    index: &SearchIndex,
    sessions: &dyn SessionList,
    reader: &dyn SessionReader,
) -> Result<usize, SearchError> {
    let manifest = index.manifest()?;
    let mut listed = vec![false; manifest.len()];
    let mut stale = 0;
    for place in 0..sessions.count() {
        let Some(session) = sessions.at(place) else {
            continue;
        };
        if !is_current(&manifest, &mut listed, reader, &session).0 {
            stale += 1;
        }
    }
    Ok(stale + listed.iter().filter(|seen| !**seen).count())
}

/// Whether the index holds `session` as it is now, and its version now;
/// its manifest entry is marked in `listed` (by its place in the
/// manifest, so no session need outlive the walk).
fn is_current(
    manifest: &Manifest,
    listed: &mut [bool],
    reader: &dyn SessionReader,
    session: &Session,
) -> (bool, u64) {
    let current = version_hash(reader, session);
    let Some(place) = manifest.place(session.id()) else {
        return (false, current);
    };
    if let Some(seen) = listed.get_mut(place) {
        *seen = true;
    }
    let indexed = manifest.at(place).map(|i| i.version);
    (indexed == Some(current), current)
}

/// Brings `index` up to date with `sessions` (a store's list, read with
/// `reader`) with a writer of `writer_bytes` ([`WRITER_BYTES`] at
/// least); `progress(done, total)` after each session. Fails with
/// [`SearchError::Busy`] when another process holds the writer.
pub fn sync(
    index: &SearchIndex,
    sessions: &dyn SessionList,
    reader: &dyn SessionReader,
    cancelled: Cancelled<'_>,
    progress: &mut dyn FnMut(usize, usize),
    writer_bytes: usize,
) -> Result<SyncReport, SearchError> {
    let manifest = index.manifest()?;
    // The changed sessions by place: each is made again when its turn
    // comes, so the walk holds no copy of the list.
    let mut work: Vec<(usize, u64)> = Vec::new();
    let mut listed = vec![false; manifest.len()];
    for place in 0..sessions.count() {
        let Some(session) = sessions.at(place) else {
            continue;
        };
        let (current, version) = is_current(&manifest, &mut listed, reader, &session);
        if !current {
            work.push((place, version));
        }
    }
    let gone: Vec<&str> = (0..manifest.len())
        .filter(|place| !listed.get(*place).copied().unwrap_or(false))
        .filter_map(|place| manifest.id(place))
        .collect();
    let mut report = SyncReport::default();
    if work.is_empty() && gone.is_empty() {
        return Ok(report);
    }
    // The merges and the reloads map segments whole (issue 29 item 6).
    let _pager = Pager::start(index.pages());
    let mut writer: IndexWriter<Queued> = index
        .index
        .writer_with_num_threads(1, writer_bytes.max(WRITER_BYTES))?;
    let backlog = Backlog::new(backlog::MOST_BYTES);
    let f = &index.fields;
    for id in gone {
        writer.delete_term(Term::from_field_text(f.session, id));
        report.removed += 1;
    }
    let total = work.len();
    let mut since_commit = 0;
    let mut trims = Trims::default();
    let mut terms = SessionTerms::new();
    for (done, (place, version)) in work.into_iter().enumerate() {
        if cancelled() {
            break;
        }
        let Some(session) = sessions.at(place) else {
            continue;
        };
        let session = session.as_ref();
        let out = Out {
            writer: &writer,
            backlog: &backlog,
            fields: f,
            cancelled,
        };
        index_session(
            out,
            session,
            version,
            reader,
            manifest.get(session.id()),
            &mut report,
            &mut terms,
        )?;
        since_commit += 1;
        let committing = since_commit >= COMMIT_EVERY;
        if committing {
            commit(&mut writer, index)?;
            since_commit = 0;
        }
        if trims.due(committing, report.text_bytes) {
            // What the sessions since were read, projected and indexed
            // with is freed now (issue 29 item 6).
            crate::heap::give_back_freed();
        }
        progress(done + 1, total);
    }
    commit(&mut writer, index)?;
    writer.wait_merging_threads()?;
    if manifest.is_empty() && !cancelled() {
        compact(index, writer_bytes);
    }
    index.narrow();
    index.reload()?;
    // A build from nothing is read back whole once: a corrupt file is
    // found now, not by the first search that panics on it.
    if manifest.is_empty() {
        index.verify()?;
    }
    Ok(report)
}

/// More segments than this after a build from nothing are merged into
/// one.
const COMPACT_ABOVE: usize = 4;

/// An index of more documents than this is left to tantivy's own merges,
/// level by level: merging all of it once more costs about a third of the
/// build again (the prose corpus: 82,000 documents, 14.6 → 20.1 s of
/// CPU), and in the language server of a large store that is long work
/// beside completion and its memory bound.
const COMPACT_MOST_DOCS: u64 = 200_000;

/// Merges the segments of a build from nothing into one when there are
/// more than [`COMPACT_ABOVE`]: each segment has a term dictionary of its
/// own, and a large vocabulary is in all of them. The language server's
/// 16 MiB writer left 10 segments of the prose corpus after tantivy's own
/// merges, an index of 41.8 % of the logs (docs/performance.md, "A quiet
/// machine, 7 December"). A writer of its own, once the build's writer
/// and its merges are done: another process that takes the lock between
/// the two only leaves the segments as they are, and so does a merge that
/// fails (a full disk): the index is whole either way, only larger.
fn compact(index: &SearchIndex, writer_bytes: usize) {
    let Ok(metas) = index.index.searchable_segment_metas() else {
        return;
    };
    let docs: u64 = metas.iter().map(|m| u64::from(m.num_docs())).sum();
    if metas.len() <= COMPACT_ABOVE || docs > COMPACT_MOST_DOCS {
        return;
    }
    let Ok(mut writer) = index
        .index
        .writer_with_num_threads::<TantivyDocument>(1, writer_bytes.max(WRITER_BYTES))
    else {
        return;
    };
    let ids: Vec<_> = metas.iter().map(|m| m.id()).collect();
    // A segment's meta held here keeps its files alive for the collection.
    drop(metas);
    if writer.merge(&ids).wait().is_ok() && index.reload().is_ok() {
        // The merged segments' files go once no reader holds them (the
        // reader was just moved to the merged one): else they would stay
        // on disk beside it until the next writer's collection.
        let _ = writer.garbage_collect_files().wait();
    }
    let _ = writer.wait_merging_threads();
}

fn commit(writer: &mut IndexWriter<Queued>, index: &SearchIndex) -> Result<(), SearchError> {
    writer.commit()?;
    index.narrow();
    Ok(())
}

/// Reads one changed session and writes what changed of it.
fn index_session(
    out: Out<'_>,
    session: &Session,
    version: u64,
    reader: &dyn SessionReader,
    before: Option<&Indexed>,
    report: &mut SyncReport,
    terms: &mut SessionTerms,
) -> Result<(), SearchError> {
    let cancelled = out.cancelled;
    let mut first = FirstPass::default();
    let Ok(summary) = reader.read(session, cancelled, &mut |entry| first.push(capped(entry)))
    else {
        // Unreadable now: it leaves the results until it reads again.
        return unreadable(out, session, before, report);
    };
    let meta = Meta::of(session, &summary, version);
    let again = |sink: &mut dyn FnMut(Entry<'_>)| {
        reader.read_range(session, Some(summary.bytes), cancelled, sink)
    };
    let messages = match first.finish() {
        FirstRead::Held(messages) => messages,
        FirstRead::Large(plan) => {
            return write_streamed(out, &meta, &plan, &again, before, report, terms)
        }
        FirstRead::Unordered => {
            let mut projector = Projector::new(None, usize::MAX);
            if again(&mut |entry| projector.push(capped(entry))).is_err() {
                return unreadable(out, session, before, report);
            }
            projector.finish().messages
        }
    };
    write_held(out, &meta, messages, before, report, terms)
}

/// A session that cannot be read now leaves the results until it can
/// (nothing of it was written by this read).
fn unreadable(
    out: Out<'_>,
    session: &Session,
    before: Option<&Indexed>,
    report: &mut SyncReport,
) -> Result<(), SearchError> {
    if before.is_some() {
        out.delete_session(session.id());
    }
    report.unreadable += 1;
    Ok(())
}

/// The session's log read again, the same bytes as the first read.
type ReadAgain<'a> = dyn Fn(&mut dyn FnMut(Entry<'_>)) -> Result<ReadSummary, ReadError> + 'a;

/// Writes a session whose surface is held: what changed of it.
fn write_held(
    out: Out<'_>,
    meta: &Meta<'_>,
    messages: Vec<Message>,
    before: Option<&Indexed>,
    report: &mut SyncReport,
    terms: &mut SessionTerms,
) -> Result<(), SearchError> {
    let kept = before.and_then(|b| {
        let n = usize::try_from(b.messages).ok()?;
        let prefix = messages.get(..n)?;
        let mut hash = SurfaceHash::default();
        prefix.iter().for_each(|m| hash.add(m.into()));
        (hash.value() == b.surface_hash).then_some(n)
    });
    let first_new = match (before, kept) {
        (Some(_), Some(n)) => {
            out.delete_session_doc(meta.id);
            report.appended += 1;
            n
        }
        (Some(_), None) => {
            out.delete_session(meta.id);
            report.reindexed += 1;
            0
        }
        (None, _) => {
            report.added += 1;
            0
        }
    };
    let mut docs = SessionDocs::new(out, meta, Start::From(first_new), terms, report);
    // Each message is let go once its document holds its copy: a large
    // session is not held twice over while its documents wait for the
    // indexing thread.
    for message in messages {
        docs.message((&message).into());
        drop(message);
    }
    docs.finish().map(drop)
}

/// Writes a large session from a second read of its log (surface.rs),
/// and a third when the messages indexed before are no longer its first.
fn write_streamed(
    out: Out<'_>,
    meta: &Meta<'_>,
    plan: &Plan,
    again: &ReadAgain<'_>,
    before: Option<&Indexed>,
    report: &mut SyncReport,
    terms: &mut SessionTerms,
) -> Result<(), SearchError> {
    let start = match before {
        Some(b) => Start::IfPrefix {
            messages: usize::try_from(b.messages).unwrap_or(usize::MAX),
            hash: b.surface_hash,
        },
        None => Start::From(0),
    };
    let outcome = match stream_once(out, meta, plan, again, start, report, terms)? {
        Some(Outcome::Reindex) => {
            out.delete_session(meta.id);
            report.reindexed += 1;
            match stream_once(out, meta, plan, again, Start::From(0), report, terms)? {
                Some(_) => return Ok(()),
                None => None,
            }
        }
        other => other,
    };
    match outcome {
        Some(Outcome::Written { appended: true }) => report.appended += 1,
        Some(_) => report.added += 1,
        // The log changed or vanished between the reads: what was
        // written of it goes, and the next sync reads it again.
        None => {
            out.delete_session(meta.id);
            report.unreadable += 1;
        }
    }
    Ok(())
}

/// One read of a large session that writes its documents as they come;
/// `None` when the read failed or found another log than the plan's.
fn stream_once(
    out: Out<'_>,
    meta: &Meta<'_>,
    plan: &Plan,
    again: &ReadAgain<'_>,
    start: Start,
    report: &mut SyncReport,
    terms: &mut SessionTerms,
) -> Result<Option<Outcome>, SearchError> {
    let mut docs = SessionDocs::new(out, meta, start, terms, report);
    let mut stream = Stream::new(plan);
    let read = again(&mut |entry| stream.push(capped(entry), &mut |m| docs.message(m)));
    stream.begin(&mut |m| docs.message(m));
    if read.is_err() || !stream.agrees() {
        return Ok(None);
    }
    docs.finish().map(Some)
}

/// `entry` with a message's or a checkpoint's text cut to its first
/// [`MAX_MESSAGE_BYTES`] (at a character boundary), before it is copied.
pub(crate) fn capped(entry: Entry<'_>) -> Entry<'_> {
    let event = match entry.event {
        Event::Message { role, text } => Event::Message {
            role,
            text: cut(text),
        },
        Event::Checkpoint { through_seq, text } => Event::Checkpoint {
            through_seq,
            text: cut(text),
        },
        other => other,
    };
    Entry {
        seq: entry.seq,
        event,
    }
}

/// `text` cut to its first [`MAX_MESSAGE_BYTES`], at a character.
fn cut(text: Cow<'_, str>) -> Cow<'_, str> {
    if text.len() <= MAX_MESSAGE_BYTES {
        return text;
    }
    let mut end = MAX_MESSAGE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text {
        Cow::Borrowed(t) => Cow::Borrowed(&t[..end]),
        Cow::Owned(mut t) => {
            t.truncate(end);
            t.shrink_to_fit();
            Cow::Owned(t)
        }
    }
}

/// A hash of the log's current stamp (what the store's own change
/// detection compares: a `stat`, no read, so an unchanged store of 2,000
/// logs is checked in a few milliseconds); 0 when the store cannot tell
/// (such a session is read again on every sync).
/// The stamp of `session`'s log as one number (0: none, the log is gone):
/// the one its store saw when it listed it, else the reader's.
pub(crate) fn version_hash(reader: &dyn SessionReader, session: &Session) -> u64 {
    if session.stamp != 0 {
        return session.stamp;
    }
    reader.stamp(session).map_or(0, |v| v.token())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    use crate::model::{Locator, ReadError, ReadSummary, Role, SessionHeader, Version};

    #[test]
    fn the_heap_is_given_back_at_each_commit_and_every_16_mib_of_text() {
        let mut trims = Trims::default();
        let mib = 1 << 20;
        assert!(!trims.due(false, 15 * mib));
        assert!(trims.due(false, 16 * mib));
        assert!(!trims.due(false, 31 * mib));
        assert!(trims.due(true, 31 * mib), "a commit");
        assert!(!trims.due(false, 46 * mib), "counted from the commit's");
        assert!(trims.due(false, 47 * mib));
    }

    /// Stamps made of the log's name; the log named `gone` has none.
    struct Named;

    impl SessionReader for Named {
        fn read_range(
            &self,
            _: &Session,
            _: Option<u64>,
            _: Cancelled<'_>,
            _: &mut dyn FnMut(Entry<'_>),
        ) -> Result<ReadSummary, ReadError> {
            Err(ReadError::Cancelled)
        }

        fn version(&self, session: &Session) -> Option<Version> {
            (&*session.locator.name != b"gone").then(|| Version(session.locator.name.to_vec()))
        }

        fn link_target(&self, _: &Session) -> Option<String> {
            None
        }
    }

    fn session(name: &str) -> Session {
        Session {
            header: SessionHeader {
                version: 1,
                id: name.to_string(),
                created_at: 0,
                cwd: None,
                label: None,
            },
            locator: Locator {
                store: 0,
                format: "hydra",
                name: Arc::from(name.as_bytes()),
            },
            title: None,
            capacity: None,
            unreadable: None,
            skipped_lines: 0,
            stamp: 0,
        }
    }

    /// The stamp the store listed a session with is used as it is; the
    /// reader is asked only for a session listed without one (0), and a
    /// log it cannot stamp (gone) is 0.
    #[test]
    fn a_listed_stamp_is_taken_and_the_reader_asked_only_without_one() {
        let mut listed = session("log-1");
        listed.stamp = 42;
        assert_eq!(version_hash(&Named, &listed), 42);
        let unlisted = session("log-1");
        let read = Version(b"log-1".to_vec()).token();
        assert_eq!(version_hash(&Named, &unlisted), read);
        assert_ne!(read, 0);
        assert_eq!(version_hash(&Named, &session("gone")), 0);
    }

    /// A log read once per call, each read the next of `logs` (the last
    /// one again once they run out): a log that changes between reads.
    struct Changing {
        logs: std::sync::Mutex<Vec<Vec<Entry<'static>>>>,
    }

    impl SessionReader for Changing {
        fn read_range(
            &self,
            session: &Session,
            _: Option<u64>,
            _: Cancelled<'_>,
            sink: &mut dyn FnMut(Entry<'_>),
        ) -> Result<ReadSummary, ReadError> {
            let mut logs = self.logs.lock().unwrap();
            let log = if logs.len() > 1 {
                logs.remove(0)
            } else {
                logs[0].clone()
            };
            log.into_iter().for_each(sink);
            Ok(ReadSummary {
                header: session.header.clone(),
                captured_through_seq: None,
                title: None,
                capacity: None,
                skipped_lines: 0,
                bytes: 0,
            })
        }

        fn version(&self, _: &Session) -> Option<Version> {
            Some(Version(b"v".to_vec()))
        }

        fn link_target(&self, _: &Session) -> Option<String> {
            None
        }
    }

    /// Issue 29 item 6: a large session is written from a second read; a
    /// log that changed between the two leaves nothing of it in the index
    /// (the next sync reads it again), and one read twice alike is there.
    #[test]
    fn a_log_that_changed_between_the_two_reads_leaves_nothing() {
        let summary = |through| Entry {
            seq: 3,
            event: Event::Checkpoint {
                through_seq: through,
                text: Cow::Borrowed("a summary of the early work"),
            },
        };
        let log = |through| {
            vec![
                Entry::message(1, Role::User, "a question long enough to stream"),
                Entry::message(2, Role::Assistant, "an answer long enough to stream"),
                summary(through),
            ]
        };
        let dir = tempfile::tempdir().unwrap();
        let index = SearchIndex::open_or_create(dir.path(), 0).unwrap();
        let sessions = vec![session("s")];
        let reader = Changing {
            logs: std::sync::Mutex::new(vec![log(1), log(2)]),
        };
        let sync_now = || sync(&index, &sessions, &reader, &|| false, &mut |_, _| {}, 0);
        let changed = sync_now().unwrap();
        assert_eq!((changed.added, changed.unreadable), (0, 1), "{changed:?}");
        assert!(index.manifest().unwrap().is_empty());
        let read_alike = sync_now().unwrap();
        assert_eq!((read_alike.added, read_alike.unreadable), (1, 0));
        let indexed = index.manifest().unwrap();
        let s = indexed.get("s").unwrap();
        // The summary alone: the second log's shadows both messages.
        assert_eq!(s.messages, 1);
    }

    /// Issue 27 item 9: a message's text is cut to its first MiB, at a
    /// character, borrowed or owned; shorter texts pass untouched.
    #[test]
    fn a_message_is_cut_to_its_first_mib_at_a_character() {
        let long = format!("{}é{}", "a".repeat(MAX_MESSAGE_BYTES - 1), "b".repeat(10));
        let text_of = |e: Entry<'_>| match e.event {
            Event::Message { text, .. } | Event::Checkpoint { text, .. } => text.into_owned(),
            _ => String::new(),
        };
        let message = |text: Cow<'static, str>| Entry {
            seq: 1,
            event: Event::Message {
                role: Role::User,
                text,
            },
        };
        let borrowed: &'static str = Box::leak(long.clone().into_boxed_str());
        for entry in [message(Cow::Borrowed(borrowed)), message(Cow::Owned(long))] {
            let cut = text_of(capped(entry));
            assert_eq!(cut.len(), MAX_MESSAGE_BYTES - 1);
            assert!(cut.bytes().all(|b| b == b'a'));
        }
        let checkpoint = Entry {
            seq: 2,
            event: Event::Checkpoint {
                through_seq: 1,
                text: Cow::Owned("x".repeat(MAX_MESSAGE_BYTES + 5)),
            },
        };
        assert_eq!(text_of(capped(checkpoint)).len(), MAX_MESSAGE_BYTES);
        assert_eq!(text_of(capped(message(Cow::Borrowed("short")))), "short");
    }
}
