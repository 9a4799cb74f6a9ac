//! `notifications/resources/list_changed` when the stores change.

use rmcp::service::{Peer, RoleServer};
use tokio::sync::broadcast;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::live::IndexEvent;

/// Tells the client each time the live index installs changed sessions
/// (the index gathers a burst of changes into one); ends with the index or
/// the client. The first view is no change: the client has not listed.
/// On a warm start that is the one listed from the on-disk index cache;
/// the checked index after it comes as a change only when it differs.
/// A client that shook hands (2025-11-25 and before) is told directly;
/// a 2026-07-28 one only through its `subscriptions/listen`, which
/// `changes` feeds.
pub async fn follow(
    mut events: UnboundedReceiver<IndexEvent>,
    peer: Peer<RoleServer>,
    changes: broadcast::Sender<()>,
) {
    let mut first = true;
    while let Some(event) = events.recv().await {
        if !matches!(event, IndexEvent::Changed) {
            continue;
        }
        if std::mem::take(&mut first) {
            continue;
        }
        // No subscription open is no error.
        let _ = changes.send(());
        if peer.peer_info().is_some() && peer.notify_resource_list_changed().await.is_err() {
            return;
        }
    }
}
