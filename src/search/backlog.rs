//! The writer's queue, bounded by bytes.
//!
//! tantivy's writer hands documents to its indexing thread through a
//! queue of up to 10,000 documents. Reading and splitting a log is faster
//! than indexing it, so in a first build the queue stays full, and 10,000
//! messages of a large store are tens of MiB held beside the writer's own
//! budget (issue 29 item 6: the language server within 80 MiB while it
//! builds). Each document here carries a [`Ticket`] for its bytes, given
//! back when the indexing thread lets the document go (it drops each one
//! once it is indexed and stored), and the writing side waits while more
//! than [`MOST_BYTES`] are queued.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tantivy::schema::Document;
use tantivy::TantivyDocument;

use crate::model::Cancelled;

/// The most bytes of documents waiting for the indexing thread: enough
/// that it never waits for the reading side between two flushes, small
/// beside the writer's 16 MiB.
pub const MOST_BYTES: usize = 4 << 20;

/// How often a wait looks at cancellation.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// A queue that does not move for this long is no longer waited for (the
/// indexing thread failed, and the writer's next commit says why).
const GIVE_UP_AFTER: Duration = Duration::from_secs(30);

/// What is queued, in bytes, and a signal each time some of it is taken.
pub struct Backlog {
    queued: Mutex<usize>,
    taken: Condvar,
    most: usize,
}

impl Backlog {
    pub fn new(most: usize) -> Arc<Self> {
        Arc::new(Backlog {
            queued: Mutex::new(0),
            taken: Condvar::new(),
            most,
        })
    }

    /// `doc`, of about `bytes`, once there is room for it: at once when
    /// nothing is queued (a document larger than the bound still goes),
    /// else when the queue has drained enough, the writer is cancelled, or
    /// the queue stopped moving.
    pub fn admit(
        self: &Arc<Self>,
        doc: TantivyDocument,
        bytes: usize,
        cancelled: Cancelled<'_>,
    ) -> Queued {
        let mut queued = self.queued.lock().unwrap_or_else(PoisonError::into_inner);
        let mut last_move = Instant::now();
        let mut seen = *queued;
        while *queued > 0 && *queued + bytes > self.most && !cancelled() {
            if *queued != seen {
                seen = *queued;
                last_move = Instant::now();
            } else if last_move.elapsed() > GIVE_UP_AFTER {
                tracing::warn!("the search writer's queue stopped moving; no longer bounded");
                break;
            }
            queued = self
                .taken
                .wait_timeout(queued, LOOK_EVERY)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *queued += bytes;
        Queued {
            doc,
            _ticket: Ticket {
                bytes,
                backlog: Arc::clone(self),
            },
        }
    }

    /// The bytes queued now.
    #[cfg(test)]
    fn queued(&self) -> usize {
        *self.queued.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A document's share of the queue, given back when it is dropped.
struct Ticket {
    bytes: usize,
    backlog: Arc<Backlog>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut queued = self
            .backlog
            .queued
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *queued = queued.saturating_sub(self.bytes);
        self.backlog.taken.notify_all();
    }
}

/// A document with its ticket: what the writer is given. To tantivy it is
/// the document it wraps.
pub struct Queued {
    doc: TantivyDocument,
    _ticket: Ticket,
}

impl Document for Queued {
    type Value<'a> = <TantivyDocument as Document>::Value<'a>;
    type FieldsValuesIter<'a> = <TantivyDocument as Document>::FieldsValuesIter<'a>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        self.doc.iter_fields_and_values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tickets count what is queued and give it back when dropped; a
    /// document larger than the bound goes when nothing else is queued;
    /// a wait ends when the writer is cancelled.
    #[test]
    fn counts_what_is_queued_and_waits_only_while_it_is_full() {
        let backlog = Backlog::new(100);
        let never = || false;
        let first = backlog.admit(TantivyDocument::default(), 60, &never);
        let second = backlog.admit(TantivyDocument::default(), 40, &never);
        assert_eq!(backlog.queued(), 100);
        drop(first);
        assert_eq!(backlog.queued(), 40);
        drop(second);
        let huge = backlog.admit(TantivyDocument::default(), 1_000, &never);
        assert_eq!(backlog.queued(), 1_000);
        let cancelled = || true;
        let over = backlog.admit(TantivyDocument::default(), 10, &cancelled);
        assert_eq!(backlog.queued(), 1_010);
        drop((huge, over));
        assert_eq!(backlog.queued(), 0);
    }

    /// A full queue is waited for until another thread takes from it.
    #[test]
    fn a_full_queue_waits_until_some_is_taken() {
        let backlog = Backlog::new(100);
        let never = || false;
        let held = backlog.admit(TantivyDocument::default(), 100, &never);
        let (sent, got) = std::sync::mpsc::channel();
        let taking = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let taker = {
            let taking = Arc::clone(&taking);
            std::thread::spawn(move || {
                let held: Queued = got.recv().unwrap();
                taking.store(true, std::sync::atomic::Ordering::SeqCst);
                drop(held);
            })
        };
        sent.send(held).unwrap();
        let next = backlog.admit(TantivyDocument::default(), 50, &never);
        // Let through only once the held document was let go.
        assert!(taking.load(std::sync::atomic::Ordering::SeqCst));
        taker.join().unwrap();
        assert_eq!(backlog.queued(), 50);
        drop(next);
    }
}
