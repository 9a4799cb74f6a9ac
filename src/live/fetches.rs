//! Snapshots fetched in the background (issue 26). A face that must not
//! wait for the network — the language server's diagnostics and hover —
//! asks [`Fetches::check`] before it reads a session: a team store's
//! snapshot that is not in the local cache is then queued, and answered
//! "fetching" until it is here. [`Fetches::start`] hands the queue to a
//! thread of this module's own (never a worker of the async runtime, never
//! the blocking pool a keystroke's work waits on), which fetches one
//! snapshot at a time, each bounded by the team store's timeouts. After
//! each fetch `done` is called, so the face looks again (the language
//! server publishes the documents' diagnostics anew).
//!
//! The face starts the queue once it has shown what it found: the
//! language server after publishing diagnostics, so that the "fetching"
//! diagnostic is always published before the one that replaces it.

use std::collections::{HashMap, HashSet};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::model::{Locator, Session, SessionReader, Wake};
use crate::reference::prepare::read_error;
use crate::reference::ReferenceError;

/// A failed fetch is shown as it failed until then; a later look starts
/// it again (a store that was down may be back).
pub const RETRY_AFTER: Duration = Duration::from_secs(60);

/// One snapshot to fetch.
struct Job {
    reader: Arc<dyn SessionReader>,
    session: Session,
}

#[derive(Default)]
struct State {
    /// Queued or being fetched.
    pending: HashSet<Locator>,
    /// Queued, not handed to the worker yet.
    queued: Vec<Job>,
    /// The last failure of each snapshot, and when.
    failed: HashMap<Locator, (Instant, ReferenceError)>,
    /// The worker's queue, started by the first fetch.
    queue: Option<mpsc::Sender<Job>>,
}

/// The background fetches of one face.
pub struct Fetches {
    state: Arc<Mutex<State>>,
    done: Wake,
}

impl std::fmt::Debug for Fetches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetches").finish_non_exhaustive()
    }
}

impl Fetches {
    /// `done` is called (on the fetching thread) after each fetch ends.
    pub fn new(done: Wake) -> Fetches {
        Fetches {
            state: Arc::default(),
            done,
        }
    }

    /// `None` when `session`'s bytes are here (read it now); else what to
    /// show instead of reading: `SESSION_REFERENCE_FETCHING` while its
    /// fetch is queued or runs (queued now if it was not), or the failure
    /// of the last fetch (`SESSION_REFERENCE_READ_FAILED`: gone, tampered,
    /// the store down).
    pub fn check(
        &self,
        reader: &Arc<dyn SessionReader>,
        session: &Session,
    ) -> Option<ReferenceError> {
        let from = reader.remote(session)?;
        let key = session.locator.clone();
        let fetching = || {
            let sha = std::str::from_utf8(&session.locator.name).unwrap_or_default();
            ReferenceError::fetching(session.id(), sha, &from)
        };
        let Ok(mut state) = self.state.lock() else {
            return Some(fetching());
        };
        if state.pending.contains(&key) {
            return Some(fetching());
        }
        if let Some((when, error)) = state.failed.get(&key) {
            if when.elapsed() < RETRY_AFTER {
                return Some(error.clone());
            }
        }
        state.failed.remove(&key);
        state.pending.insert(key);
        state.queued.push(Job {
            reader: reader.clone(),
            session: session.clone(),
        });
        Some(fetching())
    }

    /// Starts fetching what [`Self::check`] queued.
    pub fn start(&self) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        for job in std::mem::take(&mut state.queued) {
            if let Err(e) = self.send(&mut state, job) {
                tracing::warn!("team store snapshots cannot be fetched: {e}");
                return;
            }
        }
    }

    /// Hands `job` to the worker, starting it on the first. When no thread
    /// can start, the job fails as a read would.
    fn send(&self, state: &mut State, job: Job) -> std::io::Result<()> {
        let job = match &state.queue {
            Some(queue) => match queue.send(job) {
                Ok(()) => return Ok(()),
                // The worker is gone (it never ends on its own): anew.
                Err(mpsc::SendError(job)) => job,
            },
            None => job,
        };
        let (queue, jobs) = mpsc::channel();
        let shared = self.state.clone();
        let done = self.done.clone();
        let spawned = std::thread::Builder::new()
            .name("team-fetch".into())
            .spawn(move || work(&jobs, &shared, &done));
        if let Err(e) = spawned {
            let key = job.session.locator.clone();
            state.pending.remove(&key);
            let failed = ReferenceError::read_failed(format!(
                "{}: the snapshot cannot be fetched: {e}",
                job.session.id()
            ));
            state.failed.insert(key, (Instant::now(), failed));
            return Err(e);
        }
        let _ = queue.send(job);
        state.queue = Some(queue);
        Ok(())
    }
}

/// The worker: each job fetched, its outcome kept, `done` called; ends
/// when the [`Fetches`] is dropped (its queue closes).
fn work(jobs: &mpsc::Receiver<Job>, state: &Mutex<State>, done: &Wake) {
    while let Ok(job) = jobs.recv() {
        let outcome = job.reader.fetch(&job.session).map_err(read_error);
        let key = job.session.locator;
        {
            let Ok(mut state) = state.lock() else {
                return;
            };
            state.pending.remove(&key);
            match outcome {
                Ok(()) => {
                    state.failed.remove(&key);
                }
                Err(e) => {
                    tracing::warn!("{}: {}", job.session.header.id, e.message);
                    state.failed.insert(key, (Instant::now(), e));
                }
            }
        }
        done();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cancelled, Entry, LogError, ReadError, ReadSummary, Version};
    use crate::reference::ErrorCode;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A remote reader whose fetch waits for the test, then succeeds (the
    /// bytes then here) or fails.
    struct Remote {
        here: AtomicBool,
        fail: bool,
        gate: Mutex<mpsc::Receiver<()>>,
    }

    impl SessionReader for Remote {
        fn read_range(
            &self,
            _: &Session,
            _: Option<u64>,
            _: Cancelled<'_>,
            _: &mut dyn FnMut(Entry<'_>),
        ) -> Result<ReadSummary, ReadError> {
            Err(ReadError::Cancelled)
        }
        fn version(&self, _: &Session) -> Option<Version> {
            None
        }
        fn link_target(&self, _: &Session) -> Option<String> {
            None
        }
        fn remote(&self, _: &Session) -> Option<String> {
            (!self.here.load(Ordering::SeqCst)).then(|| "file:///team".to_owned())
        }
        fn fetch(&self, _: &Session) -> Result<(), ReadError> {
            let _ = self.gate.lock().unwrap().recv();
            if self.fail {
                return Err(ReadError::Log(LogError {
                    file: "file:///team ~a/s".into(),
                    line: None,
                    reason: "sha256 mismatch".into(),
                }));
            }
            self.here.store(true, Ordering::SeqCst);
            Ok(())
        }
    }

    fn session() -> Session {
        Session {
            header: crate::model::SessionHeader {
                id: "~a/s@sha256:".to_owned() + &"a".repeat(64),
                ..Default::default()
            },
            locator: Locator {
                store: 0,
                format: "team",
                name: Arc::from("a".repeat(64).as_bytes()),
            },
            title: None,
            capacity: None,
            unreadable: None,
            skipped_lines: 0,
            stamp: 0,
        }
    }

    fn started(
        fail: bool,
    ) -> (
        Fetches,
        Arc<dyn SessionReader>,
        mpsc::Sender<()>,
        mpsc::Receiver<()>,
    ) {
        let (open, gate) = mpsc::channel();
        let reader: Arc<dyn SessionReader> = Arc::new(Remote {
            here: AtomicBool::new(false),
            fail,
            gate: Mutex::new(gate),
        });
        let (tx, ended) = mpsc::channel();
        let tx = Mutex::new(tx);
        let fetches = Fetches::new(Arc::new(move || {
            let _ = tx.lock().unwrap().send(());
        }));
        (fetches, reader, open, ended)
    }

    /// Starts the fetching thread and lets its one fetch through the gate,
    /// returning once the fetch said it ended.
    fn let_the_fetch_end(fetches: &Fetches, open: &mpsc::Sender<()>, ended: &mpsc::Receiver<()>) {
        fetches.start();
        open.send(()).unwrap();
        ended.recv_timeout(Duration::from_secs(10)).unwrap();
    }

    #[test]
    fn a_remote_session_is_fetching_until_its_fetch_ends_then_read() {
        let (fetches, reader, open, ended) = started(false);
        let s = session();
        let first = fetches.check(&reader, &s).unwrap();
        assert_eq!(first.code, ErrorCode::Fetching);
        assert!(first.message.contains("file:///team"), "{}", first.message);
        // Asked again while it runs: still fetching, not queued twice.
        assert_eq!(
            fetches.check(&reader, &s).unwrap().code,
            ErrorCode::Fetching
        );
        let_the_fetch_end(&fetches, &open, &ended);
        assert!(fetches.check(&reader, &s).is_none());
        assert!(ended.try_recv().is_err(), "one fetch only");
    }

    #[test]
    fn a_failed_fetch_is_shown_as_read_failed() {
        let (fetches, reader, open, ended) = started(true);
        let s = session();
        assert_eq!(
            fetches.check(&reader, &s).unwrap().code,
            ErrorCode::Fetching
        );
        let_the_fetch_end(&fetches, &open, &ended);
        let failed = fetches.check(&reader, &s).unwrap();
        assert_eq!(failed.code, ErrorCode::ReadFailed);
        assert!(
            failed.message.contains("sha256 mismatch"),
            "{}",
            failed.message
        );
    }
}
