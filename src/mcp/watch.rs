//! `notifications/resources/list_changed` when the stores change.

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use super::sessions::Sessions;

/// Changes are gathered this long after the first one, then applied at
/// once: an agent appending line after line is one notification a second,
/// not one per line.
const DEBOUNCE: Duration = Duration::from_secs(1);

/// Applies the store's changes after each burst of wakes and tells the
/// client when the sessions changed; ends with the wakes or the client.
pub async fn follow(
    sessions: Arc<Sessions>,
    mut woken: UnboundedReceiver<()>,
    peer: Peer<RoleServer>,
) {
    while woken.recv().await.is_some() {
        let deadline = Instant::now() + DEBOUNCE;
        while let Ok(Some(())) = tokio::time::timeout_at(deadline, woken.recv()).await {}
        let store = sessions.clone();
        // The update reads the appended lines: off the async workers.
        let changed = tokio::task::spawn_blocking(move || store.update())
            .await
            .unwrap_or(false);
        if changed && peer.notify_resource_list_changed().await.is_err() {
            return;
        }
    }
}
