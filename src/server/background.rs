//! Background work the session starts: following the store index (with
//! its progress report), building the search index (with its own), and
//! pulling settings. Each tells the main loop
//! what it found; none changes the session itself.

use std::time::Duration;

use lsp_types::notification::Progress;
use lsp_types::request::WorkDoneProgressCreate;
use lsp_types::*;
use std::sync::Arc;
use tokio::sync::mpsc;

use super::logging;
use super::request_view::RequestView;
use super::settings::SECTION;
use super::shared::{LoopEvent, Shared};
use crate::live::IndexEvent;

/// How long a `workspace/configuration` pull waits for the client.
const PULL_PATIENCE: Duration = Duration::from_secs(10);

/// The shortest time between two diagnostics refreshes caused by the store.
const STORE_REFRESH: Duration = Duration::from_millis(500);

/// A work-done progress from now until the first index is built.
pub async fn report_indexing(shared: Arc<Shared>) {
    let token = NumberOrString::String("hydra-session/index".to_string());
    let create = WorkDoneProgressCreateParams {
        token: token.clone(),
    };
    if shared
        .client
        .request::<WorkDoneProgressCreate>(create)
        .await
        .is_err()
    {
        return;
    }
    let begin = WorkDoneProgressBegin {
        title: "Indexing sessions".to_string(),
        cancellable: Some(false),
        message: Some(shared.index.roots().join(", ")),
        percentage: None,
    };
    progress(&shared, &token, WorkDoneProgress::Begin(begin)).await;
    shared.index.ready().await;
    let count = shared.index.view().len();
    let end = WorkDoneProgressEnd {
        message: Some(format!("{count} sessions")),
    };
    progress(&shared, &token, WorkDoneProgress::End(end)).await;
}

/// Brings the search index of the snapshot's stores up to date once the
/// sessions are indexed (on the blocking pool: completion and hover are
/// answered meanwhile), so the first search need not build it. With
/// `report`, a work-done progress of its own shows how far it is.
pub async fn build_search_index(shared: Arc<Shared>, request: RequestView, report: bool) {
    let view = request.sessions().await;
    let token = NumberOrString::String("hydra-session/search".to_string());
    let reporting = report && {
        let create = WorkDoneProgressCreateParams {
            token: token.clone(),
        };
        shared
            .client
            .request::<WorkDoneProgressCreate>(create)
            .await
            .is_ok()
    };
    if reporting {
        let begin = WorkDoneProgressBegin {
            title: "Indexing messages for search".to_string(),
            cancellable: Some(false),
            message: Some(format!("{} sessions", view.len())),
            percentage: Some(0),
        };
        progress(&shared, &token, WorkDoneProgress::Begin(begin)).await;
    }
    let stores = request.stores();
    let worker = shared.clone();
    let report_token = token.clone();
    let built = in_the_background(move || {
        let reader = view.reader.clone()?;
        let mut last = None;
        let followed = crate::search::Followed {
            specs: &stores,
            state: Some(view.generation),
            sessions: view.sessions(),
            reader: reader.as_ref(),
        };
        let outcome = worker.search.update(
            &followed,
            &|| false,
            &mut |note| tracing::warn!("{note}"),
            &mut |done, total| {
                // A report per percent at most, not per session.
                let percentage = (done * 100 / total.max(1)) as u32;
                if reporting && last != Some(percentage) {
                    last = Some(percentage);
                    let value = WorkDoneProgressReport {
                        cancellable: None,
                        message: Some(format!("{done} of {total} sessions")),
                        percentage: Some(percentage),
                    };
                    // From the blocking pool: waiting here for room in
                    // the outbox holds no async worker.
                    worker.client.notify::<Progress>(ProgressParams {
                        token: report_token.clone(),
                        value: ProgressParamsValue::WorkDone(WorkDoneProgress::Report(value)),
                    });
                }
            },
        );
        // The writer's and the merges' buffers are free now; this thread
        // is not one of the async workers.
        crate::live::give_back_freed();
        Some(outcome.map(|()| view.len()))
    })
    .await;
    let message = match built {
        Some(Some(Ok(count))) => format!("{count} sessions searchable"),
        Some(Some(Err(e))) => {
            tracing::warn!("the search index: {e}");
            e.to_string()
        }
        Some(None) | None => "the search index could not be built".to_string(),
    };
    if reporting {
        let end = WorkDoneProgressEnd {
            message: Some(message),
        };
        progress(&shared, &token, WorkDoneProgress::End(end)).await;
    }
}

/// How much lower the background search build's threads are scheduled
/// (a nice increment), where the idle class cannot be had.
const BACKGROUND_NICE: i32 = 10;

/// Runs `work` on a thread of its own scheduled below the rest of the
/// server (on Linux in the idle class, as desktop file indexers run, else
/// nice +[`BACKGROUND_NICE`]; the threads it starts, tantivy's writer and
/// mergers, inherit that), so building the search index of a large store
/// takes the cores only when completion and hover leave them. Not on the
/// blocking pool: a pooled thread cannot be raised back for the work it
/// runs later. `None` when the thread could not start or `work` panicked.
async fn in_the_background<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (done, result) = tokio::sync::oneshot::channel();
    let started = std::thread::Builder::new()
        .name("search-index".into())
        .spawn(move || {
            lower_this_thread();
            let _ = done.send(work());
        });
    if let Err(e) = started {
        tracing::warn!("the search build could not start: {e}");
        return None;
    }
    result.await.ok()
}

/// Schedules the calling thread (and those it starts) below the rest:
/// the idle class on Linux, nice elsewhere. At nice +10 a request that
/// woke still waited for the build's threads: completion's p95 while the
/// index of 100,000 sessions was built was 3.3–3.5 ms, in the idle class
/// 2.1 ms, with the build as fast on a machine otherwise idle
/// (docs/performance.md, stop 44). The price: on a machine kept busy by
/// other work the build waits for it, as a desktop file indexer does.
fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `sched_setscheduler` with pid 0 changes only the calling
        // thread's policy, from a valid parameter on the stack.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } == 0 {
            return;
        }
    }
    // On Linux a thread's nice value is its own.
    #[cfg(unix)]
    if let Err(e) = rustix::process::nice(BACKGROUND_NICE) {
        tracing::debug!("the search build keeps its priority: {e}");
    }
}

async fn progress(shared: &Shared, token: &NumberOrString, value: WorkDoneProgress) {
    shared
        .client
        .notify_from_task::<Progress>(ProgressParams {
            token: token.clone(),
            value: ProgressParamsValue::WorkDone(value),
        })
        .await;
}

/// Reports store warnings, and has diagnostics refreshed when the sessions
/// change: at once, then at most once per [`STORE_REFRESH`]. Logs that
/// are being written change often; restarting the debounce on every
/// append would keep diagnostics from ever being published.
pub async fn follow_index(shared: Arc<Shared>, mut events: mpsc::UnboundedReceiver<IndexEvent>) {
    while let Some(event) = events.recv().await {
        let mut changed = on_index_event(&shared, event).await;
        while changed {
            shared.tell(LoopEvent::StoreChanged);
            changed = false;
            let until = tokio::time::Instant::now() + STORE_REFRESH;
            loop {
                match tokio::time::timeout_at(until, events.recv()).await {
                    Ok(Some(event)) => changed |= on_index_event(&shared, event).await,
                    Ok(None) => return,
                    Err(_) => break,
                }
            }
        }
    }
}

/// Handles one index event; whether the sessions changed.
async fn on_index_event(shared: &Shared, event: IndexEvent) -> bool {
    match event {
        IndexEvent::Notes(notes) => {
            for note in &notes {
                tracing::debug!("{note}");
            }
            for message in logging::note_messages(&notes) {
                tracing::warn!("{message}");
                shared
                    .client
                    .notify_from_task::<notification::LogMessage>(LogMessageParams {
                        typ: MessageType::WARNING,
                        message,
                    })
                    .await;
            }
            false
        }
        IndexEvent::Changed => true,
    }
}

/// Pulls section `hydraSession`, given up after [`PULL_PATIENCE`]; the
/// main loop applies what came.
pub async fn pull_configuration(shared: Arc<Shared>) {
    let item = ConfigurationItem {
        scope_uri: None,
        section: Some(SECTION.to_string()),
    };
    let pulled = tokio::time::timeout(PULL_PATIENCE, shared.client.configuration(vec![item])).await;
    let update = match pulled {
        Ok(Ok(mut values)) if !values.is_empty() => Some(values.swap_remove(0)),
        Ok(Ok(_)) => None,
        Ok(Err(e)) => {
            tracing::warn!("cannot pull the {SECTION} settings: {}", e.message);
            None
        }
        Err(_) => {
            tracing::warn!(
                "the client did not answer workspace/configuration within {PULL_PATIENCE:?}"
            );
            None
        }
    };
    shared.tell(LoopEvent::Pulled(update));
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The search build's thread, and a thread it starts, run in the
    /// idle class.
    #[test]
    fn the_build_thread_and_its_threads_are_idle_class() {
        let policies = std::thread::spawn(|| {
            super::lower_this_thread();
            // SAFETY: pid 0 asks for the calling thread's own policy.
            let own = unsafe { libc::sched_getscheduler(0) };
            let started = std::thread::spawn(|| unsafe { libc::sched_getscheduler(0) })
                .join()
                .unwrap();
            (own, started)
        })
        .join()
        .unwrap();
        assert_eq!(policies, (libc::SCHED_IDLE, libc::SCHED_IDLE));
        // SAFETY: as above; this thread was never lowered.
        assert_ne!(unsafe { libc::sched_getscheduler(0) }, libc::SCHED_IDLE);
    }
}
