//! Background work the session starts: following the store index (with
//! its progress report) and pulling settings. Each tells the main loop
//! what it found; none changes the session itself.

use std::time::Duration;

use lsp_types::notification::Progress;
use lsp_types::request::WorkDoneProgressCreate;
use lsp_types::*;
use std::sync::Arc;
use tokio::sync::mpsc;

use super::index::IndexEvent;
use super::logging;
use super::settings::SECTION;
use super::shared::{LoopEvent, Shared};

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
