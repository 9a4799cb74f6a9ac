//! The debounce of pushed diagnostics: every change (or refresh) takes a
//! new [`Ticket`] for its document and schedules a run with it; the run
//! waits out its delay and goes ahead only if no later ticket was taken by
//! then. A burst of edits closer together than the delay therefore ends in
//! one run, the last one's, on the text as the last edit left it (its
//! snapshot is taken when it is scheduled).
//!
//! Its own unit so that it can be tested on tokio's paused clock: the
//! waiting is `tokio::time::sleep_until`, which `time::pause()` and `advance()`
//! control, so the tests count runs at exact instants instead of measuring
//! a machine's speed.

use std::future::Future;
use std::time::Duration;

use crate::server::documents::Ticket;

/// Spawns `run(ticket)` after `delay`, unless `ticket` was overtaken by a
/// newer one first. `run` should check the ticket again at each await
/// point that can take long (the text may change while it works).
pub fn after_pause<F, Fut>(ticket: Ticket, delay: Duration, run: F) -> tokio::task::JoinHandle<()>
where
    F: FnOnce(Ticket) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    // The window counts from the change, not from when a worker first
    // polls the task: on a busy runtime that can be much later.
    let deadline = tokio::time::Instant::now() + delay;
    tokio::spawn(async move {
        // A zero delay (a document just opened) runs without yielding to
        // the timer.
        if !delay.is_zero() {
            tokio::time::sleep_until(deadline).await;
        }
        if ticket.is_current() {
            run(ticket).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use lsp_types::{TextDocumentContentChangeEvent, Url};

    use super::*;
    use crate::proto::position::Encoding;
    use crate::server::documents::Documents;

    const DELAY: Duration = Duration::from_millis(150);
    const TICK: Duration = Duration::from_millis(1);

    /// The server's side of the debounce as `lifecycle.rs` drives it: the
    /// documents, and the texts the runs that went ahead saw, in order.
    struct Editor {
        uri: Url,
        documents: Documents,
        runs: Arc<Mutex<Vec<String>>>,
    }

    impl Editor {
        fn open(text: &str) -> Editor {
            let uri = Url::parse("file:///w/notes.md").unwrap_or_else(|e| panic!("{e}"));
            let mut documents = Documents::default();
            documents.open(uri.clone(), text, 1);
            Editor {
                uri,
                documents,
                runs: Arc::default(),
            }
        }

        /// Replaces the whole text and schedules a run, as `didChange`
        /// does.
        fn edit(&mut self, version: i32, text: &str) {
            let change = TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: text.to_string(),
            };
            assert!(self
                .documents
                .change(&self.uri, version, &[change], Encoding::Utf16));
            self.schedule();
        }

        /// A ticket and a snapshot taken now, as `schedule_diagnostics`
        /// takes them; the run records the snapshot's text.
        fn schedule(&self) {
            let Some(ticket) = self.documents.ticket(&self.uri) else {
                panic!("the document is open");
            };
            let Some(snapshot) = self.documents.snapshot(&self.uri) else {
                panic!("the document is open");
            };
            let runs = self.runs.clone();
            after_pause(ticket, DELAY, move |_| async move {
                if let Ok(mut runs) = runs.lock() {
                    runs.push(snapshot.rope.to_string());
                }
            });
        }

        fn runs(&self) -> Vec<String> {
            self.runs.lock().map(|r| r.clone()).unwrap_or_default()
        }
    }

    /// Moves the paused clock on and lets every task that became ready
    /// run to its next await.
    async fn advance(by: Duration) {
        tokio::time::advance(by).await;
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn edits_inside_the_window_give_one_run_on_the_last_text() {
        let mut editor = Editor::open("start");
        // Forty edits, each 149 ms after the one before: the burst lasts
        // almost six seconds, longer than forty windows, yet no window
        // ever closes.
        for version in 2..=41 {
            editor.edit(version, &format!("text {version}"));
            advance(DELAY - TICK).await;
            assert_eq!(editor.runs(), Vec::<String>::new(), "version {version}");
        }
        // The last edit was 149 ms ago: one millisecond more closes its
        // window, and only its run goes ahead.
        advance(TICK).await;
        assert_eq!(editor.runs(), ["text 41"]);
        // Nothing else is pending.
        advance(DELAY * 10).await;
        assert_eq!(editor.runs(), ["text 41"]);
    }

    #[tokio::test(start_paused = true)]
    async fn an_edit_after_the_window_gives_another_run() {
        let mut editor = Editor::open("start");
        editor.edit(2, "first");
        advance(DELAY).await;
        assert_eq!(editor.runs(), ["first"]);
        editor.edit(3, "second");
        editor.edit(4, "third");
        advance(DELAY - TICK).await;
        assert_eq!(editor.runs(), ["first"]);
        advance(TICK).await;
        assert_eq!(editor.runs(), ["first", "third"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_refresh_restarts_the_window_and_runs_on_the_same_text() {
        // A settings or store change schedules again without an edit
        // (`refresh_diagnostics`): the pending run is replaced, not added to.
        let mut editor = Editor::open("start");
        editor.edit(2, "typed");
        advance(DELAY / 2).await;
        editor.schedule();
        advance(DELAY - TICK).await;
        assert_eq!(editor.runs(), Vec::<String>::new());
        advance(TICK).await;
        assert_eq!(editor.runs(), ["typed"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_delay_runs_at_once() {
        let editor = Editor::open("opened");
        let Some(ticket) = editor.documents.ticket(&editor.uri) else {
            panic!("the document is open");
        };
        let runs = editor.runs.clone();
        let handle = after_pause(ticket, Duration::ZERO, move |_| async move {
            if let Ok(mut runs) = runs.lock() {
                runs.push("opened".into());
            }
        });
        // No time passes: the task finishes on the paused clock as it is.
        let start = tokio::time::Instant::now();
        assert!(handle.await.is_ok());
        assert_eq!(tokio::time::Instant::now(), start);
        assert_eq!(editor.runs(), ["opened"]);
    }
}
