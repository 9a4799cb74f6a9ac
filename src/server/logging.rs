//! Logging to stderr (stdout is the protocol channel), at the level of
//! `RUST_LOG` or, once the client sends it, the `logLevel` setting.

use std::sync::OnceLock;

use tracing_subscriber::prelude::*;
use tracing_subscriber::{reload, EnvFilter, Registry};

static RELOAD: OnceLock<reload::Handle<EnvFilter, Registry>> = OnceLock::new();

/// Installs the stderr subscriber (once per process; later calls do nothing).
pub fn init() {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(filter_for("info")));
    let (filter, handle) = reload::Layer::new(filter);
    let installed = tracing_subscriber::registry()
        .with(filter)
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .try_init();
    if installed.is_ok() {
        let _ = RELOAD.set(handle);
    }
}

/// Switches the level (`error`…`trace`), when a subscriber was installed.
pub fn set_level(level: &str) {
    if let Some(handle) = RELOAD.get() {
        if let Err(e) = handle.reload(EnvFilter::new(filter_for(level))) {
            tracing::warn!("cannot change the log level: {e}");
        }
    }
}

/// `level` for our code; the file watcher's own chatter (a watch removed
/// twice, say) only when it is an error, and the search index's (every
/// commit and merge is an `info`) only from warnings up.
fn filter_for(level: &str) -> String {
    format!("{level},notify=error,tantivy=warn")
}

/// Up to this many store warnings are each a message of their own; more
/// are summed up in one.
const NOTE_MESSAGES: usize = 3;

/// The messages that report `notes` (new store warnings) to the client: each
/// of a few, else one with their count and the first, pointing to
/// `sessionReference/status` for the list. A store of 20,000 files that are
/// not sessions must not send 20,000 notifications at startup.
pub fn note_messages(notes: &[String]) -> Vec<String> {
    match notes {
        [] => Vec::new(),
        few if few.len() <= NOTE_MESSAGES => few.to_vec(),
        [first, ..] => vec![format!(
            "{} store warnings (files skipped, duplicate ids), listed in \
             sessionReference/status (\"notes\"); the first: {first}",
            notes.len()
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_notes_are_each_a_message_and_many_are_one() {
        let notes: Vec<String> = (0..20_000)
            .map(|i| format!("f{i}.jsonl: skipped"))
            .collect();
        assert_eq!(note_messages(&notes[..2]), notes[..2].to_vec());
        assert_eq!(note_messages(&notes[..3]), notes[..3].to_vec());
        let summary = note_messages(&notes);
        assert_eq!(summary.len(), 1);
        assert!(
            summary[0].starts_with("20000 store warnings"),
            "{}",
            summary[0]
        );
        assert!(
            summary[0].ends_with("the first: f0.jsonl: skipped"),
            "{}",
            summary[0]
        );
        assert!(note_messages(&[]).is_empty());
    }
}
