//! The text a snippet is cut from, read again from the session's log at
//! query time: the index keeps no copy of what was said (issue 29 item 5:
//! the stored text was 69 % of an index as large as 82 % of the logs).
//!
//! Each message document holds its event's `seq`; a search reads the
//! sessions it answers with (never more than its limit), through the
//! store's own bounded reader, up to the last `seq` it needs and no
//! further (the read is cancelled there). A log that changed since it was
//! indexed may hold other text at that `seq`: a snippet that no longer
//! shows a match is left out, so a snippet is never wrong text.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::model::{Cancelled, Event, Session, SessionReader};

/// Where a search finds the sessions it answers with: without it, hits
/// come without snippets.
#[derive(Clone, Copy)]
pub struct Texts<'a> {
    /// The session of an id as the store lists it now.
    pub session: &'a dyn Fn(&str) -> Option<Session>,
    pub reader: &'a dyn SessionReader,
}

impl Texts<'_> {
    /// The texts of the events `seqs` of session `id` (cut as the writer
    /// cut them), as its log holds them now (those not found are missing),
    /// and the log's version as the writer hashes it (`None`: no such
    /// session now).
    pub fn read(
        &self,
        id: &str,
        seqs: &[u64],
        cancelled: Cancelled<'_>,
    ) -> (HashMap<u64, String>, Option<u64>) {
        let mut out = HashMap::with_capacity(seqs.len());
        let Some(session) = (self.session)(id) else {
            return (out, None);
        };
        let version = super::writer::version_hash(self.reader, &session);
        let Some(last) = seqs.iter().copied().max() else {
            return (out, Some(version));
        };
        let past = AtomicBool::new(false);
        let stop = || past.load(Ordering::Relaxed) || cancelled();
        // A read stopped early fails as cancelled: what it handed over
        // before is what was asked for.
        let _ = self.reader.read(&session, &stop, &mut |entry| {
            if entry.seq > last {
                past.store(true, Ordering::Relaxed);
                return;
            }
            if !seqs.contains(&entry.seq) {
                return;
            }
            let seq = entry.seq;
            if let Event::Message { text, .. } | Event::Checkpoint { text, .. } =
                super::writer::capped(entry).event
            {
                out.insert(seq, text.into_owned());
            }
        });
        (out, Some(version))
    }
}
